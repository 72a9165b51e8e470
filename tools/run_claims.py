"""Claims on a run key, kept fresh while the run computes, and the per-item cache a resumed run starts from.

A process claims a run key before computing it (the loser never computes); a claim whose heartbeat stopped,
or whose owner process on this host is gone, is stale and may be taken over with --resume.
"""

from __future__ import annotations

import asyncio
from typing import Any, Self

from evaluator.adapters import ItemOutput
from evaluator.canonical import canonical_json
from evaluator.runkey import run_id as run_id_of
from store import leases
from store import runs as run_store
from store.clock import utc_now
from store.runs import Run
from store.tasks import Task
from tools.eval_plan import EvalOutcome, Plan
from tools.registry import Registry

SAVE_SECONDS = 0.25
SAVE_BATCH = 64


def owner_id() -> str:
    return leases.process_holder()


async def claim(
    registry: Registry, key: str, inputs: dict[str, Any], plan: Plan, task: Task, resume: bool
) -> EvalOutcome | None:
    """Claim the key, or say why not: None when this process may compute it."""
    me = owner_id()
    now = utc_now()
    run = Run(
        key,
        run_id_of(key),
        canonical_json(inputs).decode(),
        plan.model.slug,
        task.ref,
        "running",
        me,
        now,
        now,
        None,
        None,
        0,
        "",
    )
    stored, won = await run_store.claim_run(registry.store, run)
    if won:
        return None
    progress = f"{stored.items_done}/{stored.items_total or '?'} items"
    if stored.status == "running" and not leases.is_stale(stored):
        return EvalOutcome(
            "in_progress",
            stored.run_id,
            key,
            f"being computed by {stored.owner} since {stored.started_at} ({progress}); not started again",
        )
    state = "failed" if stored.status == "failed" else "stale" if stored.status == "running" else stored.status
    if not resume:
        reason = f": {stored.error}" if stored.error else ""
        return EvalOutcome(
            "stale" if state != "failed" else "failed",
            stored.run_id,
            key,
            f"run {stored.run_id} is {state} ({progress}, owner {stored.owner}){reason}; "
            "rerun with --resume to finish it",
        )
    if not await run_store.take_over(registry.store, stored, me):
        return EvalOutcome("in_progress", stored.run_id, key, "another process took this run over first")
    return None


class Periodic:
    """Runs `tick` every `seconds` while the `async with` block runs, and once more when it ends.

    The loop is stopped by an event, never cancelled: a tick cancelled half way would lose what it had taken
    (the item cache's batch), so the end waits for a tick in flight to finish."""

    seconds = 1.0

    def __init__(self, registry: Registry, key: str) -> None:
        self.registry, self.key = registry, key
        self.task: asyncio.Task[None] | None = None
        self.stopping = asyncio.Event()

    async def tick(self) -> None:
        raise NotImplementedError

    async def tick_forever(self) -> None:
        while not self.stopping.is_set():
            try:
                await asyncio.wait_for(self.stopping.wait(), self.seconds)
            except TimeoutError:
                await self.tick()

    async def __aenter__(self) -> Self:
        await self.tick()
        self.task = asyncio.create_task(self.tick_forever())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.task is not None
        self.stopping.set()
        await self.task
        await self.tick()


class Heartbeat(Periodic):
    """Keeps a claim fresh while the run computes, and records how far it got."""

    seconds = leases.HEARTBEAT_SECONDS

    def __init__(self, registry: Registry, key: str) -> None:
        super().__init__(registry, key)
        self.owner = owner_id()
        self.done, self.total = 0, 0

    def update(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    async def tick(self) -> None:
        await run_store.heartbeat(self.registry.store, self.key, self.owner, self.total, self.done)


class ItemSaver(Periodic):
    """Writes completed items to the per-item cache in small batches (every SAVE_SECONDS or SAVE_BATCH
    items, and on exit, error or not): one transaction per batch instead of one per item. An item counts as
    completed for a resume once it is written; at most the last batch is asked again after a SIGKILL."""

    seconds = SAVE_SECONDS

    def __init__(self, registry: Registry, key: str) -> None:
        super().__init__(registry, key)
        self.pending: list[tuple[str, str]] = []

    async def save(self, instance_id: str, output: ItemOutput) -> None:
        self.pending.append((instance_id, output.to_json()))
        if len(self.pending) >= SAVE_BATCH:
            await self.tick()

    async def tick(self) -> None:
        batch, self.pending = self.pending, []
        await run_store.save_items(self.registry.store, self.key, batch)


def cached(registry: Registry, key: str) -> dict[str, ItemOutput]:
    return {k: ItemOutput.from_json(v) for k, v in run_store.cached_items(registry.store, key).items()}
