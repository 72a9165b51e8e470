"""`benchtoward serve --workers 2` on one database file while other processes write: concurrent evaluations of one
run key compute it once, concurrent imports (one bundle twice among them) store each result once, and every
worker serves every result as soon as it is stored (each worker's read cache follows the file's generation)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx
import orjson
import psutil
import pytest

from server.settings import Settings
from tests.conftest import free_port
from tests.factory import FakeModel, write_bundle
from tests.review_support import poll_sync, query
from tests.snapshots import integrity, results_without_their_file

pytestmark = pytest.mark.anyio
BENCHTOWARD = [sys.executable, "-m", "server.cli"]
DEMO = "clinicalqa-upstream-demo@0"


def answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


async def test_two_workers_serve_every_write_of_other_processes_and_nothing_is_stored_twice(
    settings: Settings, run_ids: dict[str, str], tmp_path: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [
            *BENCHTOWARD,
            "serve",
            "--db",
            str(settings.db),
            "--port",
            str(port),
            "--workers",
            "2",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        poll_sync(lambda: True if answers(url) else None, timeout=90)
        assert len(psutil.Process(server.pid).children()) >= 2
        models = [FakeModel(f"acme/w{i}", f"W{i}", provider_model_id=f"w{i}") for i in range(3)]
        bundles = [
            write_bundle(tmp_path / f"b{i}", task="clinicalqa@0", model=m, quality=0.5) for i, m in enumerate(models)
        ]
        writers = [
            subprocess.Popen(
                [*BENCHTOWARD, "import-result", str(b), "--db", str(settings.db)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for b in [*bundles, bundles[0]]
        ]  # the first bundle twice, at the same time
        evaluations = [
            subprocess.Popen(
                [
                    *BENCHTOWARD,
                    "eval",
                    "--model",
                    "baseline/majority",
                    "--task",
                    DEMO,
                    "--db",
                    str(settings.db),
                    "--json",
                    "--publish",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:  # reads go on meanwhile
            while any(p.poll() is None for p in [*writers, *evaluations]):
                response = await http.get("/v1/leaderboard?task=clinicalqa@0&limit=5")
                assert response.status_code == 200
                await asyncio.sleep(0.05)
        outputs = [p.communicate(timeout=300) for p in [*writers, *evaluations]]
        assert all(p.returncode == 0 for p in [*writers, *evaluations]), outputs
        outcomes = [orjson.loads(out) for out, _ in outputs[len(writers) :]]
        assert len({o["run_id"] for o in outcomes}) == 1  # one run key, computed once, the same answer for all
        keys = query(settings.db, "SELECT run_key, COUNT(*) FROM results GROUP BY run_key HAVING COUNT(*) > 1")
        assert keys == []
        assert query(settings.db, "SELECT COUNT(*) FROM runs")[0][0] == 1
        assert query(settings.db, "SELECT COUNT(*) FROM results")[0][0] == len(run_ids) + 3 + 1
        for _ in range(40):  # fresh connections land on either worker: each must see every write
            async with httpx.AsyncClient(base_url=url, timeout=30) as fresh:
                for model in models:
                    found = (await fresh.get(f"/v1/lookup?model={model.provider_model_id}&task=clinicalqa@0")).json()
                    assert found["status"] == "evaluated", found
                baseline = (await fresh.get(f"/v1/lookup?model=baseline/majority&task={DEMO}")).json()
                assert baseline["result"]["run_id"] == outcomes[0]["run_id"]
        workers = psutil.Process(server.pid).children()
        assert all(worker.cpu_times().user > 0 for worker in workers)
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=60)
    assert b"Traceback" not in errors, errors[-3000:]
    assert integrity(settings.db) == "ok"
    assert results_without_their_file(settings.db, settings.artifacts_dir) == []
