"""Schemathesis against /v1/openapi.json on a real uvicorn: generated requests for every operation (examples,
coverage, fuzzing and the stateful phase that follows the document's links) find no server error, no response
that breaks the document (status codes, content types, schemas, headers), no valid request refused and no
invalid one accepted. Bounded here (a fixed seed, a few hundred cases); `make fuzz-api` runs the long search."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import LiveServer

pytestmark = pytest.mark.anyio

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
CI_SEED = 20261130


def schemathesis_command(url: str, max_examples: int, seed: int | None) -> list[str]:
    """The one command line, shared in spirit with bench/fuzz_api.py (which adds a time budget)."""
    command = [
        str(SCHEMATHESIS),
        "run",
        f"{url}/v1/openapi.json",
        "--checks",
        "all",
        "--max-examples",
        str(max_examples),
        "--no-color",
        "--generation-database",
        "none",
        "--request-timeout",
        "20",
        "--phases",
        "examples,coverage,fuzzing,stateful",
    ]
    return [*command, "--seed", str(seed)] if seed is not None else command


async def test_generated_requests_find_no_server_error_and_no_departure_from_the_openapi_document(
    data_live_server: LiveServer, tmp_path: Path
) -> None:
    run = subprocess.run(  # blocking is fine: the server runs its own loop in its thread
        schemathesis_command(data_live_server.url, 12, CI_SEED),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-8000:]
    assert "Tested: 13" in report and "passed" in report, report[-3000:]
    assert "✅ Stateful" in report, report[-3000:]  # the links were followed, not skipped
