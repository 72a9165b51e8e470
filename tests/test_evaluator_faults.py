"""An evaluation under faults, as real processes: kill -9 while its predictions file is being written; the LLM
endpoint disappearing mid-run; a full disk (a small tmpfs) under the predictions and under an import. Each ends
with nothing half-stored, the reason recorded, and `--resume` (or a rerun) finishing the same run once."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from tests.fake_llm import FakeLLM
from tests.killing import kill_inside
from tests.review_support import query
from tests.snapshots import integrity, results_without_their_file
from tests.test_evaluator_harness import DEMO, demo_instances, request, scripted
from tools.evaluate import evaluate
from tools.registry import Registry

BENCHTOWARD = [sys.executable, "-m", "server.cli"]
MODEL = "acme/verbose-2"
VERBOSE = """import base64, hashlib, json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
with open(sys.argv[2], "w") as out:
    for row in rows:
        seed = hashlib.sha256(row["instance_id"].encode()).digest()
        noise = b"".join(hashlib.sha256(seed + bytes([i])).digest() for i in range(70))
        answer = "정답: B " + base64.b64encode(noise).decode()
        out.write(json.dumps({"instance_id": row["instance_id"], "answer": answer}) + "\\n")
"""


def verbose_command(folder: Path) -> str:
    """An external model that answers B with ~3 KB of incompressible text: a ~2.6 MB predictions file."""
    script = folder / "verbose.py"
    script.write_text(VERBOSE)
    return f"{sys.executable} {script}"


def evaluation(db: Path, command: str, *extra: str) -> list[str]:
    return [
        *BENCHTOWARD,
        "eval",
        "--model",
        MODEL,
        "--task",
        DEMO,
        "--command",
        command,
        "--db",
        str(db),
        "--json",
        *extra,
    ]


def prepare(db: Path) -> None:
    subprocess.run(
        [*BENCHTOWARD, "models", "add", MODEL, "--version", "1", "--db", str(db)],
        check=True,
        timeout=120,
        capture_output=True,
    )


def test_an_evaluation_killed_while_writing_its_predictions_resumes_to_the_uninterrupted_result(
    tmp_path: Path,
) -> None:
    command = verbose_command(tmp_path)
    reference_db = tmp_path / "reference.db"
    prepare(reference_db)
    reference = orjson.loads(
        subprocess.run(
            evaluation(reference_db, command), capture_output=True, text=True, timeout=300, check=True
        ).stdout
    )
    landed = False
    for attempt in range(4):  # the write lasts milliseconds: try again if the run got through it first
        db = tmp_path / f"crash{attempt}.db"
        artifacts = tmp_path / f"crash{attempt}-artifacts"
        prepare(db)
        victim = subprocess.Popen(evaluation(db, command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        landed = kill_inside(victim, lambda place=artifacts: any(place.glob("*/.predictions.parquet.*.tmp")))
        if landed:
            break
    assert landed, "the kill never landed inside the predictions write"
    assert integrity(db) == "ok"
    assert query(db, "SELECT COUNT(*) FROM results") == [(0,)]
    assert query(db, "SELECT status FROM runs") == [("running",)]  # its owner is dead: reported as stale

    stale = subprocess.run(evaluation(db, command), capture_output=True, text=True, timeout=300)
    assert stale.returncode == 3 and "--resume" in orjson.loads(stale.stdout)["message"]
    resumed = subprocess.run(evaluation(db, command, "--resume"), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    result = orjson.loads(resumed.stdout)
    assert result["run_id"] == reference["run_id"] and result["metrics"] == reference["metrics"]
    assert result["predictions"]["sha256"] == reference["predictions"]["sha256"]
    assert query(db, "SELECT COUNT(*) FROM results") == [(1,)]
    assert results_without_their_file(db, artifacts) == []
    assert list(artifacts.glob("*/.*.tmp")) == []


@pytest.mark.anyio
async def test_an_endpoint_that_disappears_mid_run_fails_it_with_the_reason_and_resume_finishes_it(
    registry: Registry,
) -> None:
    import asyncio

    instances = demo_instances()[:120]
    script, _ = scripted(instances)
    script.delay = 0.03
    with FakeLLM(script) as first:
        running = asyncio.create_task(evaluate(registry, request(first.url, limit=120, concurrency=2, max_retries=1)))
        for _ in range(1500):  # bounded: ~30 s
            if sum(script.requests.values()) >= 30 or running.done():
                break
            await asyncio.sleep(0.02)
        first.server.should_exit = True  # the endpoint goes away with the run half done
    failed = await asyncio.wait_for(running, timeout=120)
    assert failed.outcome == "failed" and "rerun with --resume" in failed.message
    # the reason names the endpoint and the transport's failure, which depends on where the request was cut: a
    # refused connection, or "Can not write request body" when the server went away mid-request (ClientOSError)
    assert first.url in failed.message
    assert re.search(r"connect|OSError|disconnect|reset|write request", failed.message, re.I), failed.message
    asked = dict(script.requests)
    with FakeLLM(script) as second:  # back on another port: the run key does not include the URL
        resumed = await evaluate(registry, request(second.url, limit=120, concurrency=4, max_retries=1, resume=True))
    assert resumed.outcome == "computed" and resumed.run_id == failed.run_id
    by_prompt = {i.instance_id: i.messages[-1]["content"] for i in instances}
    from store import runs as run_store

    cached = run_store.cached_items(registry.store, failed.run_key)
    assert len(cached) == 120
    asked_again = [i for i, prompt in by_prompt.items() if script.requests[prompt] > asked.get(prompt, 0)]
    assert 0 < len(asked_again) < 120  # only what had not completed was asked again


@contextlib.contextmanager
def small_disk(size: str) -> Iterator[Path]:
    """A tmpfs of `size` mounted by the test (root only); skipped with the reason when mounting is refused."""
    folder = Path(tempfile.mkdtemp(prefix="benchtoward-full-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount a small tmpfs to fill ({mounted.stderr.strip() or 'not root'})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)
        folder.rmdir()


def test_a_full_disk_under_the_predictions_fails_the_run_cleanly_and_resume_finishes_it(tmp_path: Path) -> None:
    command = verbose_command(tmp_path)
    db = tmp_path / "full.db"
    prepare(db)
    with small_disk("1m") as artifacts:
        full = subprocess.run(
            evaluation(db, command, "--artifacts", str(artifacts)), capture_output=True, text=True, timeout=300
        )
        assert full.returncode == 4, full.stderr  # failed, with the reason, no traceback
        outcome = orjson.loads(full.stdout)
        assert outcome["outcome"] == "failed" and "No space left on device" in outcome["message"]
        assert "Traceback" not in full.stderr
        assert list(artifacts.rglob("*.tmp")) == [] and list(artifacts.rglob("*.parquet")) == []
        assert integrity(db) == "ok" and query(db, "SELECT COUNT(*) FROM results") == [(0,)]
        assert query(db, "SELECT status FROM runs")[0][0] == "failed"
        assert "No space left" in str(query(db, "SELECT error FROM runs")[0][0])
        cached = query(db, "SELECT COUNT(*) FROM run_items")[0][0]
    roomy = tmp_path / "roomy-artifacts"
    resumed = subprocess.run(
        evaluation(db, command, "--artifacts", str(roomy), "--resume"), capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    assert query(db, "SELECT COUNT(*) FROM run_items")[0][0] == cached  # nothing was asked again
    assert results_without_their_file(db, roomy) == []


def test_a_full_disk_under_an_import_stores_nothing_and_says_why(tmp_path: Path) -> None:
    from tests.test_store_crash import big_bundle

    bundle = big_bundle(tmp_path / "bundle")
    db = tmp_path / "import.db"
    with small_disk("4m") as artifacts:
        full = subprocess.run(
            [*BENCHTOWARD, "import-result", str(bundle), "--db", str(db), "--artifacts", str(artifacts)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert full.returncode == 1 and "No space left on device" in full.stderr
        assert "Traceback" not in full.stderr
        assert list(artifacts.rglob("*.tmp")) == [] and list(artifacts.rglob("*.parquet")) == []
    assert integrity(db) == "ok" and query(db, "SELECT COUNT(*) FROM results") == [(0,)]
    assert pq.read_metadata(bundle / "predictions.parquet").num_rows > 0  # the bundle itself is untouched
    assert os.access(bundle / "result.json", os.R_OK)
