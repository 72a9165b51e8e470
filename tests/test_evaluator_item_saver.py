"""The per-item cache's saver ends without losing a batch: a periodic write still waiting for SQLite's lock when
the run ends is waited for, not cancelled (cancelled, it lost the batch it had taken, and those items were asked
of the model again on a resume; a CI run caught it as a job that ended with 805 of its 862 items cached)."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from evaluator.adapters import ItemOutput
from server.settings import Settings
from store import runs as run_store
from store.runs import Run
from tools.registry import Registry
from tools.run_claims import SAVE_SECONDS, ItemSaver

pytestmark = pytest.mark.anyio


async def test_a_batch_whose_write_is_in_flight_when_the_run_ends_is_written(
    registry: Registry, settings: Settings
) -> None:
    run = Run("s" * 64, "s" * 12, "{}", "acme/x", "clinicalqa@0", "running", "me", "t", "t", None, None, 0, "")
    await run_store.claim_run(registry.store, run)
    blocker = sqlite3.connect(settings.db, timeout=0, isolation_level=None)  # another process's writer, in effect
    try:
        async with ItemSaver(registry, run.run_key) as saver:
            blocker.execute("BEGIN IMMEDIATE")  # the saver's next periodic write waits for this lock
            for index in range(10):
                await saver.save(f"q{index}", ItemOutput(raw_output="정답: A"))
            await asyncio.sleep(SAVE_SECONDS * 2)  # the periodic write has taken the ten and is waiting
            assert run_store.cached_items(registry.store, run.run_key) == {}
            asyncio.get_running_loop().call_later(0.5, blocker.execute, "COMMIT")  # freed while the saver ends
        cached = run_store.cached_items(registry.store, run.run_key)
    finally:
        blocker.close()
    assert sorted(cached) == [f"q{index}" for index in range(10)]
