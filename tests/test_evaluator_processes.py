"""`benchtoward eval` as real processes: two at once compute a key once; a run killed with SIGKILL resumes
without asking a completed item again and ends identical to an uninterrupted run."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pyarrow.parquet as pq

from tests.fake_llm import FakeLLM
from tests.test_evaluator_harness import DEMO, demo_instances, scripted

BENCHTOWARD = [sys.executable, "-m", "server.cli"]


def eval_command(db: Path, url: str, *extra: str) -> list[str]:
    return [
        *BENCHTOWARD,
        "eval",
        "--model",
        "acme/scripted-1",
        "--task",
        DEMO,
        "--endpoint",
        url,
        "--model-id",
        "scripted",
        "--db",
        str(db),
        "--json",
        *extra,
    ]


def cached_count(db: Path) -> int:
    if not db.exists():
        return 0
    connection = sqlite3.connect(db, timeout=10)
    try:
        return int(connection.execute("SELECT COUNT(*) FROM run_items").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        connection.close()


def test_two_processes_evaluating_one_key_compute_it_once(tmp_path: Path) -> None:
    script, _ = scripted(demo_instances()[:40])
    script.delay = 0.05
    db = tmp_path / "race.db"
    subprocess.run([*BENCHTOWARD, "models", "add", "acme/scripted-1", "--db", str(db)], check=True, timeout=60)
    with FakeLLM(script) as llm:
        command = eval_command(db, llm.url, "--limit", "40", "--concurrency", "4")
        first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        outputs = [p.communicate(timeout=180) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outputs
    bodies = [orjson.loads(out) for out, _ in outputs]
    assert script.total() == sum(1 + len(reply.errors) for reply in script.replies.values())  # once per item
    computed = [b for b in bodies if "run_key" in b and "metrics" in b]
    assert len(computed) >= 1
    others = [b for b in bodies if b not in computed]
    assert all(b["outcome"] == "in_progress" for b in others)
    run_ids = {b["run_id"] for b in bodies}
    assert len(run_ids) == 1


def test_a_killed_run_resumes_without_asking_a_completed_item_again(tmp_path: Path) -> None:
    instances = demo_instances()[:120]
    script, _ = scripted(instances)
    script.delay = 0.06  # 120 items at concurrency 2: ~4 s, so the kill lands mid-run
    db = tmp_path / "crash.db"
    subprocess.run([*BENCHTOWARD, "models", "add", "acme/scripted-1", "--db", str(db)], check=True, timeout=60)
    with FakeLLM(script) as llm:
        command = eval_command(db, llm.url, "--limit", "120", "--concurrency", "2")
        victim = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(3000):  # bounded: ~60 s
            if cached_count(db) >= 40 or victim.poll() is not None:
                break
            threading.Event().wait(0.02)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=30)
        with sqlite3.connect(db) as connection:
            completed = {row[0] for row in connection.execute("SELECT instance_id FROM run_items")}
        connection.close()
        assert 40 <= len(completed) < 120
        asked_at_kill = dict(script.requests)

        refused = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert refused.returncode == 3 and "--resume" in orjson.loads(refused.stdout)["message"]
        resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=180)
        assert resumed.returncode == 0, resumed.stderr
        result = orjson.loads(resumed.stdout)

        by_id = {i.instance_id: i.messages[-1]["content"] for i in instances}
        for instance_id in completed:
            assert script.requests[by_id[instance_id]] == asked_at_kill[by_id[instance_id]]

        fresh = tmp_path / "fresh.db"
        subprocess.run([*BENCHTOWARD, "models", "add", "acme/scripted-1", "--db", str(fresh)], check=True, timeout=60)
        uninterrupted = orjson.loads(
            subprocess.run(
                eval_command(fresh, llm.url, "--limit", "120", "--concurrency", "8"),
                capture_output=True,
                text=True,
                timeout=180,
                check=True,
            ).stdout
        )
    assert result["run_id"] == uninterrupted["run_id"]
    assert result["metrics"] == uninterrupted["metrics"] and result["parse_rate"] == uninterrupted["parse_rate"]
    tables = [
        pq.read_table(path / "predictions.parquet").drop(["latency_ms"])
        for path in (tmp_path / "crash-artifacts" / result["run_id"], tmp_path / "fresh-artifacts" / result["run_id"])
    ]
    assert tables[0].equals(tables[1])
