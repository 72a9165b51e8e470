"""One lease mechanism for run claims and evaluation jobs (store/leases.py), on one real SQLite file shared by
real processes and connections: of processes that read the same free or stale lease exactly one takes it; a
holder that heart-beat after another read its lease keeps it; a holder whose lease was taken over learns it at
its next heartbeat and its end writes nothing; a killed holder's lease is stale at once, a live one's is not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from store import Store, leases
from store import jobs as job_store
from store import proposals as proposal_store
from store import runs as run_store
from store.clock import utc_now
from store.proposals import NewProposal
from store.runs import Run
from tests.review_support import poll_sync
from tests.test_evaluator_harness import DEMO
from tools.lookup import LookupQuery, lookup
from tools.registry import Registry

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[1]
LONG_AGO = "2026-01-01T00:00:00Z"  # a heartbeat far older than STALE_SECONDS

# A process that reads one lease, says so, waits for the word to go, then tries to take it and prints the answer.
RACER = """
import asyncio, sys
from pathlib import Path
from store import Store, leases, jobs, runs

async def main(db, kind, key, holder, folder):
    store = await Store.open(Path(db))
    try:
        leased = leases.RUNS if kind == "run" else leases.JOBS
        seen = runs.get_run(store, key) if kind == "run" else jobs.get_job(store, int(key))
        (Path(folder) / f"ready-{holder}").touch()
        for _ in range(6000):
            if (Path(folder) / "go").exists():
                break
            await asyncio.sleep(0.01)
        print(await leases.take(store, leased, key if kind == "run" else int(key), seen, holder))
    finally:
        await store.close()

asyncio.run(main(*sys.argv[1:]))
"""

# A process that claims a run as itself (host:pid) and then stays alive, heart-beating nothing, until killed.
HOLDER = """
import asyncio, sys, time
from pathlib import Path
from store import Store, leases, runs
from store.clock import utc_now

async def main(db, key, model, task):
    store = await Store.open(Path(db))
    now = utc_now()
    claim = runs.Run(key, key[:12], "{}", model, task, "running", leases.process_holder(), now, now, None, 862, 40,
                     "")
    await runs.claim_run(store, claim)
    await store.close()
    time.sleep(120)

asyncio.run(main(*sys.argv[1:]))
"""


def a_run(key: str, holder: str, status: str = "running", heartbeat_at: str | None = None) -> Run:
    beat = heartbeat_at or utc_now()
    return Run(key, key[:12], "{}", "acme/x", "clinicalqa@0", status, holder, beat, beat, None, None, 0, "")


async def queued_job(store: Store) -> int:
    """A job queued from an approved run proposal, through the store's own functions."""
    async with store.transaction() as db:
        reading = await proposal_store.insert_reading(db, "0" * 64, "test", "rules", "{}", "alice")
        new = NewProposal("run:" + "j" * 64, "run", "acme/x", "clinicalqa@0", "j" * 64, "full", "{}", "why", "")
        proposal = await proposal_store.insert_proposal(db, reading, new)
        assert proposal is not None
        await proposal_store.decide(db, proposal, "approved", "alice", "")
        return await job_store.enqueue(db, proposal, "acme/x", "clinicalqa@0", "j" * 64, "full", "http://x", None)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(tmp_path / "bt.db")
    yield opened
    await opened.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["run", "job"])
async def test_of_four_processes_that_read_one_takeable_lease_exactly_one_takes_it(
    store: Store, tmp_path: Path, kind: str
) -> None:
    if kind == "run":  # a claim whose holder stopped beating an hour ago
        key = "r" * 64
        await run_store.claim_run(store, a_run(key, "gone-worker", heartbeat_at=LONG_AGO))
    else:  # a queued job
        key = str(await queued_job(store))
    holders = [f"racer{index}" for index in range(4)]
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(store.path), kind, key, holder, str(tmp_path)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for holder in holders
    ]
    try:  # every racer has read the lease before any tries to take it
        poll_sync(lambda: all((tmp_path / f"ready-{h}").exists() for h in holders) or None, timeout=60)
        (tmp_path / "go").touch()
        answers = [racer.communicate(timeout=60) for racer in racers]
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
    assert all(racer.returncode == 0 for racer in racers), [err for _, err in answers]
    won = [holder for holder, (out, _) in zip(holders, answers, strict=True) if out.strip() == "True"]
    assert len(won) == 1 and all(out.strip() in ("True", "False") for out, _ in answers)
    row = run_store.get_run(store, key) if kind == "run" else job_store.get_job(store, int(key))
    assert row is not None and row.status == "running" and row.owner == won[0]


async def test_a_holder_that_beat_after_another_process_read_its_stale_lease_keeps_it(store: Store) -> None:
    key = "b" * 64
    await run_store.claim_run(store, a_run(key, "slow-worker", heartbeat_at=LONG_AGO))
    other = await Store.open(store.path)  # another process's connections, in effect
    try:
        seen = run_store.get_run(other, key)
        assert seen is not None and leases.is_stale(seen)
        assert await run_store.heartbeat(store, key, "slow-worker", 10, 3)  # the holder was only slow
        assert not await run_store.take_over(other, seen, "eager-worker")
    finally:
        await other.close()
    kept = run_store.get_run(store, key)
    assert kept is not None and (kept.owner, kept.items_done, kept.items_total) == ("slow-worker", 3, 10)
    assert not leases.is_stale(kept)


async def test_a_job_whose_worker_exited_is_taken_over_and_the_old_holder_learns_it_at_its_next_heartbeat(
    store: Store,
) -> None:
    job_id = await queued_job(store)
    exited = subprocess.Popen([sys.executable, "-c", "pass"])  # a worker process that is gone
    assert exited.wait(timeout=60) == 0
    gone = leases.process_holder().rsplit(":", 1)[0] + f":{exited.pid}:5eed"
    job = job_store.get_job(store, job_id)
    assert job is not None and await job_store.claim(store, job, gone)
    other = await Store.open(store.path)  # another worker's connections, in effect
    try:
        held = job_store.get_job(other, job_id)
        assert held is not None and not leases.heartbeat_stale(held.heartbeat_at) and leases.is_stale(held)
        assert await job_store.claim(other, held, "rescuer")
    finally:
        await other.close()
    assert not await job_store.heartbeat(store, job_id, gone)
    async with store.transaction() as db:
        assert not await job_store.finish(db, job_id, gone, "done", "x" * 12, "it thought it still held the job")
    after = job_store.get_job(store, job_id)
    assert after is not None and (after.status, after.owner, after.attempts, after.run_id) == (
        "running",
        "rescuer",
        2,
        None,
    )


async def test_a_stale_run_claim_taken_over_tells_its_old_holder_and_its_end_writes_nothing(
    store: Store,
) -> None:
    key = "t" * 64
    await run_store.claim_run(store, a_run(key, "first-worker", heartbeat_at=LONG_AGO))
    seen = run_store.get_run(store, key)
    assert seen is not None and await run_store.take_over(store, seen, "second-worker")
    assert not await run_store.heartbeat(store, key, "first-worker", 10, 9)
    assert not await run_store.finish_run(store, key, "first-worker", "failed", "it thought it still held the run")
    after = run_store.get_run(store, key)
    assert after is not None and (after.status, after.owner, after.error, after.items_done) == (
        "running",
        "second-worker",
        "",
        0,
    )
    assert await run_store.finish_run(store, key, "second-worker", "done")
    done = run_store.get_run(store, key)
    assert done is not None and done.status == "done" and done.finished_at is not None


class HoldingProcess:
    """A process that claimed a run as itself (host:pid) and stays alive until `kill()`."""

    def __init__(self, db: Path, key: str, model: str, task: str, log: Path) -> None:
        with log.open("w") as errors:
            arguments = [sys.executable, "-c", HOLDER, str(db), key, model, task]
            self.process = subprocess.Popen(arguments, cwd=ROOT, stderr=errors)
        self.log = log

    def claim(self, store: Store, key: str) -> Run:
        claim = poll_sync(
            lambda: run_store.get_run(store, key) or (None if self.process.poll() is None else "exited"), timeout=60
        )
        assert isinstance(claim, Run), self.log.read_text()
        return claim

    def kill(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


@pytest.mark.timeout(120)
async def test_a_killed_holders_lease_is_stale_at_once_and_a_live_holders_is_not(store: Store, tmp_path: Path) -> None:
    key = "k" * 64
    holder = HoldingProcess(store.path, key, "acme/x", "clinicalqa@0", tmp_path / "holder.log")
    try:
        claim = holder.claim(store, key)
        assert claim.owner == leases.process_holder().rsplit(":", 1)[0] + f":{holder.process.pid}"
        assert not leases.is_stale(claim) and not await run_store.take_over(store, claim, "rescuer")
    finally:
        holder.kill()
    dead = run_store.get_run(store, key)
    assert dead is not None and dead.heartbeat_at == claim.heartbeat_at
    assert not leases.heartbeat_stale(dead.heartbeat_at)  # its heartbeat is recent: its process is gone
    assert leases.is_stale(dead) and await run_store.take_over(store, dead, "rescuer")
    rescued = run_store.get_run(store, key)
    assert rescued is not None and (rescued.status, rescued.owner) == ("running", "rescuer")


@pytest.mark.timeout(120)
async def test_lookup_shows_a_run_claimed_by_a_live_process_as_evaluating_and_once_killed_as_stale(
    registry: Registry, tmp_path: Path
) -> None:
    query = LookupQuery(model="acme/lease-probe", task=DEMO)
    assert (await lookup(registry, query)).status == "not_evaluated"
    holder = HoldingProcess(registry.store.path, "p" * 64, "acme/lease-probe", DEMO, tmp_path / "holder.log")
    try:
        holder.claim(registry.store, "p" * 64)
        live = await lookup(registry, query)
    finally:
        holder.kill()
    stopped = await lookup(registry, query)
    for answer in (live, stopped):
        assert answer.status == "evaluating" and answer.progress is not None and answer.result is None
        assert (answer.progress.items_done, answer.progress.items_total) == (40, 862)
    assert live.progress is not None and not live.progress.stale and "do not run it yourself" in (live.hint or "")
    assert stopped.progress is not None and stopped.progress.stale and "resumes" in (stopped.hint or "")


async def test_a_job_handed_back_is_queued_without_holder_and_taken_again_with_one_more_attempt(
    store: Store,
) -> None:
    job_id = await queued_job(store)
    first = job_store.get_job(store, job_id)
    assert first is not None and await job_store.claim(store, first, "stopping-worker")
    assert await job_store.release(store, job_id, "stopping-worker", "the worker stopped")
    handed_back = job_store.get_job(store, job_id)
    assert handed_back is not None
    assert (handed_back.status, handed_back.owner, handed_back.attempts) == ("queued", None, 1)
    assert leases.takeable(leases.JOBS, handed_back) and await job_store.claim(store, handed_back, "next-worker")
    again = job_store.get_job(store, job_id)
    assert again is not None and (again.status, again.owner, again.attempts) == ("running", "next-worker", 2)


async def test_a_finished_lease_is_never_taken_again_and_a_failed_run_only_by_its_resume(store: Store) -> None:
    job_id = await queued_job(store)
    job = job_store.get_job(store, job_id)
    assert job is not None and await job_store.claim(store, job, "worker")
    async with store.transaction() as db:
        assert await job_store.finish(db, job_id, "worker", "failed", None, "the endpoint refused")
    failed_job = job_store.get_job(store, job_id)
    assert failed_job is not None and not await job_store.claim(store, failed_job, "other")  # approval re-queues it

    for status in ("done", "failed"):
        key = status[0] * 64
        await run_store.claim_run(store, a_run(key, "worker"))
        assert await run_store.finish_run(store, key, "worker", status, "" if status == "done" else "boom")
        ended = run_store.get_run(store, key)
        assert ended is not None and not leases.is_stale(ended)
        assert await run_store.take_over(store, ended, "resumer") == (status == "failed")
    resumed = run_store.get_run(store, "f" * 64)
    assert resumed is not None and (resumed.status, resumed.owner, resumed.error) == ("running", "resumer", "")


async def test_an_end_naming_a_column_the_table_does_not_lease_is_refused_before_any_sql(store: Store) -> None:
    await run_store.claim_run(store, a_run("e" * 64, "worker"))
    with pytest.raises(ValueError, match="no lease end column"):
        async with store.transaction() as db:
            await leases.end(db, leases.RUNS, "e" * 64, "worker", "done", model_slug="someone/else")
    unchanged = run_store.get_run(store, "e" * 64)
    assert unchanged is not None and (unchanged.status, unchanged.model_slug) == ("running", "acme/x")
