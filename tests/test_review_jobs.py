"""Approved runs are jobs that survive their worker: the server stopped mid-job hands the job back and a new
start finishes it; a `benchtoward worker` process killed with SIGKILL leaves a stale claim that another worker
takes over. Either way no completed item is asked of the model again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from server.cli import main
from server.settings import Settings
from tests.conftest import running
from tests.fake_llm import FakeLLM, Reply, Script
from tests.review_support import DEMO, HARI_CARD, bearer, make_maintainer, poll, poll_sync, query
from tests.test_evaluator_harness import demo_instances

BENCHTOWARD = [sys.executable, "-m", "server.cli"]


def prompts() -> dict[str, str]:
    return {i.instance_id: i.messages[-1]["content"] for i in demo_instances()}


def slow_script() -> Script:
    script = Script({}, default=Reply("정답: B"))
    script.delay = 0.03  # long enough to stop the run in the middle
    return script


def cached_items(db: Path) -> set[str]:
    return {row[0] for row in query(db, "SELECT instance_id FROM run_items")}


def job_row(db: Path) -> tuple[Any, ...]:
    return query(db, "SELECT status, owner, attempts, run_id, message FROM jobs")[0]


async def approve_demo_run(http: httpx.AsyncClient, endpoint: str) -> dict[str, Any]:
    reading = await http.post("/v1/review/papers", files={"file": (HARI_CARD.name, HARI_CARD.read_bytes())})
    item = next(i for i in reading.json()["items"] if i["task"] == DEMO)
    approved = await http.post(f"/v1/review/items/{item['proposal_id']}/approve", json={"endpoint": endpoint})
    assert approved.status_code == 200, approved.text
    return dict(item)


@pytest.mark.anyio
async def test_a_claimed_job_survives_a_server_restart_without_recomputing_completed_items(settings: Settings) -> None:
    token = await make_maintainer(settings)
    script = slow_script()
    with FakeLLM(script) as llm:
        async with running(settings) as http:
            http.headers.update(bearer(token))
            item = await approve_demo_run(http, llm.url)

            async def some_items_done() -> int | None:
                done = len(cached_items(settings.db))
                return done if done >= 60 else None

            await poll(some_items_done, timeout=120)
        # the app has stopped: its worker handed the job back, and the run's claim says it stopped
        status, owner, attempts, run_id, message = job_row(settings.db)
        assert (status, owner, attempts, run_id) == ("queued", None, 1, None) and "resumes" in message
        completed = cached_items(settings.db)
        assert 60 <= len(completed) < 862
        asked_at_stop = dict(script.requests)

        async with running(settings) as http:
            http.headers.update(bearer(token))

            async def job_finished() -> dict[str, Any] | None:
                found = (await http.get(f"/v1/review/items/{item['proposal_id']}")).json()
                return found if found["job"]["status"] in ("done", "failed") else None

            finished = await poll(job_finished, timeout=240)
    assert finished["job"]["status"] == "done", finished["job"]["message"]
    assert finished["job"]["attempts"] == 2 and finished["job"]["run_id"] == item["run_id"]
    by_id = prompts()
    for instance_id in completed:  # a completed item is never asked again
        assert script.requests[by_id[instance_id]] == asked_at_stop[by_id[instance_id]]
    assert len(cached_items(settings.db)) == 862


def benchtoward(*arguments: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BENCHTOWARD, *arguments], capture_output=True, text=True, timeout=timeout, check=False)


def test_a_killed_worker_process_leaves_a_claim_another_worker_takes_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "bt.db")  # set up with the commands in this process; the workers are processes
    assert main(["maintainer", "add", "alice", "--db", db]) == 0
    capsys.readouterr()  # the token
    assert main(["papers", "read", str(HARI_CARD), "--propose", "--json", "--as", "alice", "--db", db]) == 0
    item = next(i for i in orjson.loads(capsys.readouterr().out)["items"] if i["task"] == DEMO)
    script = slow_script()
    with FakeLLM(script) as llm:
        approve = ["review", "approve", str(item["proposal_id"]), "--endpoint", llm.url, "--as", "alice", "--db", db]
        assert main(approve) == 0
        victim = subprocess.Popen(
            [*BENCHTOWARD, "worker", "--db", db], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            poll_sync(lambda: True if len(cached_items(Path(db))) >= 60 or victim.poll() is not None else None)
        finally:
            os.kill(victim.pid, signal.SIGKILL)
            victim.wait(timeout=30)
        status, owner, attempts, _, _ = job_row(Path(db))
        assert status == "running" and owner.split(":")[1] == str(victim.pid) and attempts == 1
        completed = cached_items(Path(db))
        asked_at_kill = dict(script.requests)
        assert 60 <= len(completed) < 862

        rescued = benchtoward("worker", "--exit-when-idle", "--db", db, timeout=300)
        assert rescued.returncode == 0, rescued.stderr
    status, _, attempts, run_id, message = job_row(Path(db))
    assert (status, attempts, run_id) == ("done", 2, item["run_id"]), message
    by_id = prompts()
    for instance_id in completed:
        assert script.requests[by_id[instance_id]] == asked_at_kill[by_id[instance_id]]
    log = query(Path(db), "SELECT actor, action FROM audit_log ORDER BY id DESC LIMIT 2")
    assert log == [("evaluator", "job_done"), ("alice", "approve")]


@pytest.mark.anyio
async def test_a_failed_job_shows_its_reason_and_approving_again_queues_it(settings: Settings) -> None:
    token = await make_maintainer(settings)
    script = Script({}, default=Reply("", garbage=True))  # not chat-completion JSON: the run stops at once
    with FakeLLM(script) as llm:
        async with running(settings) as http:
            http.headers.update(bearer(token))
            item = await approve_demo_run(http, llm.url)

            async def job_in(*states: str) -> dict[str, Any] | None:
                found = (await http.get(f"/v1/review/items/{item['proposal_id']}")).json()
                return found if found["job"]["status"] in states else None

            failed = await poll(lambda: job_in("failed", "done"), timeout=120)
            assert failed["job"]["status"] == "failed" and "failed" in failed["job"]["message"]
            assert query(settings.db, "SELECT status FROM models WHERE slug = 'snuh/hari-q3-8b'") == [("evaluating",)]
            assert (
                await http.post(f"/v1/review/items/{item['proposal_id']}/reject", json={"why": "x"})
            ).status_code == 409  # an approved item is not rejected afterwards
            script.default = Reply("정답: B")
            again = await http.post(f"/v1/review/items/{item['proposal_id']}/approve", json={"endpoint": llm.url})
            assert again.status_code == 200 and again.json()["job"]["status"] in ("queued", "running", "done")
            done = await poll(lambda: job_in("done", "failed"), timeout=240)
            twice = await http.post(f"/v1/review/items/{item['proposal_id']}/approve", json={"endpoint": llm.url})
    assert done["job"]["status"] == "done" and done["job"]["run_id"] == item["run_id"], done["job"]["message"]
    assert twice.status_code == 409
    actions = [row[0] for row in query(settings.db, "SELECT action FROM audit_log ORDER BY id")]
    assert actions[-4:] == ["approve", "job_failed", "retry", "job_done"]
