"""Schemathesis against /v1/openapi.json on a real uvicorn: generated requests for every operation (examples,
coverage, fuzzing and the stateful phase that follows the document's links) find no server error, no response
that breaks the document (status codes, content types, schemas, headers), no valid request refused and no
invalid one accepted. Bounded here (a fixed seed, a few hundred cases); `make fuzz-api` runs the long search."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from server.settings import Settings
from tests.conftest import LiveServer
from tests.review_support import make_maintainer
from tests.test_review_auth import propose_hari

pytestmark = pytest.mark.anyio

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
CI_SEED = 20261130
CONFIG = Path(__file__).parent / "schemathesis.toml"


def schemathesis_command(url: str, max_examples: int, seed: int | None, token: str | None = None) -> list[str]:
    """The one command line, shared in spirit with bench/fuzz_api.py (which adds a time budget)."""
    command = [
        str(SCHEMATHESIS),
        "--config-file",
        str(CONFIG),
        "run",
        f"{url}/v1/openapi.json",
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
    if token is not None:  # the maintainers' routes too, with a real token
        command += ["-H", f"Authorization: Bearer {token}"]
    return [*command, "--seed", str(seed)] if seed is not None else command


@pytest.mark.timeout(600)  # a subprocess with its own deadline runs inside
async def test_generated_requests_find_no_server_error_and_no_departure_from_the_openapi_document(
    settings: Settings, run_ids: dict[str, str], tmp_path: Path
) -> None:
    await propose_hari(settings)  # review items for the maintainers' routes to find
    token = await make_maintainer(settings)
    quiet = replace(settings, offline=True, review_workers=0)  # no paper fetched from a URL, no job run
    with LiveServer(quiet) as server:
        run = subprocess.run(  # blocking is fine: the server runs its own loop in its thread
            schemathesis_command(server.url, 10, CI_SEED, token),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-8000:]
    tested = int(report.split("Tested:", 1)[1].split()[0])
    assert tested >= 30 and "passed" in report, report[-3000:]  # /v1, files, beacon and the maintainers' API
    assert "Authentication failed" not in report, report[-3000:]
    assert "✅ Stateful" in report, report[-3000:]  # the links were followed, not skipped
