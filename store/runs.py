"""Run claims and the per-item cache.

A claim is a row keyed by run key: the first process to insert it computes the run; any other finds the
claim and reports it (or waits). The claim is a lease (`store.leases`, shared with the evaluation jobs): one
whose owner stopped heart-beating is stale; it is reported, and taken over only when asked (`--resume`).
Completed items are cached per (run key, instance id), so a resumed run never queries a completed item again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from store import leases
from store.clock import utc_now
from store.db import Store

COLUMNS = (
    "run_key, run_id, key_json, model_slug, task_ref, status, owner, started_at, heartbeat_at, finished_at, "
    "items_total, items_done, error"
)


@dataclass(frozen=True)
class Run:
    run_key: str
    run_id: str
    key_json: str
    model_slug: str
    task_ref: str
    status: str
    owner: str
    started_at: str
    heartbeat_at: str
    finished_at: str | None
    items_total: int | None
    items_done: int
    error: str


def from_row(row: sqlite3.Row) -> Run:
    return Run(**dict(row))


def get_run(store: Store, run_key: str) -> Run | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM runs WHERE run_key = ?", (run_key,))
    return from_row(row) if row else None


def list_runs(store: Store, status: str | None = None) -> list[Run]:
    if status is None:
        return [from_row(r) for r in store.read(f"SELECT {COLUMNS} FROM runs ORDER BY started_at DESC")]
    rows = store.read(f"SELECT {COLUMNS} FROM runs WHERE status = ? ORDER BY started_at DESC", (status,))
    return [from_row(r) for r in rows]


def live_run(store: Store, model_slug: str, task_ref: str) -> Run | None:
    """The newest running claim of one model on one task version (read on every lookup: not cached)."""
    row = store.read_one(
        f"SELECT {COLUMNS} FROM runs WHERE model_slug = ? COLLATE NOCASE AND task_ref = ? AND status = 'running' "
        "ORDER BY started_at DESC LIMIT 1",
        (model_slug, task_ref),
    )
    return from_row(row) if row else None


async def claim_run(store: Store, run: Run) -> tuple[Run, bool]:
    """Insert the claim unless the key is claimed already; return (the claim as stored, whether it is ours)."""
    async with store.transaction() as db:
        cursor = await db.execute(
            f"INSERT INTO runs ({COLUMNS}) VALUES ({', '.join('?' * 13)}) ON CONFLICT (run_key) DO NOTHING",
            (
                run.run_key,
                run.run_id,
                run.key_json,
                run.model_slug,
                run.task_ref,
                run.status,
                run.owner,
                run.started_at,
                run.heartbeat_at,
                run.finished_at,
                run.items_total,
                run.items_done,
                run.error,
            ),
        )
        won = cursor.rowcount == 1
        cursor = await db.execute(f"SELECT {COLUMNS} FROM runs WHERE run_key = ?", (run.run_key,))
        row = await cursor.fetchone()
    assert row is not None
    return from_row(row), won


async def take_over(store: Store, seen: Run, owner: str) -> bool:
    """Move a failed or stale claim to `owner`, only if it is still as `seen` (see `store.leases`)."""
    return await leases.take(store, leases.RUNS, seen.run_key, seen, owner)


async def heartbeat(store: Store, run_key: str, owner: str, items_total: int | None, items_done: int) -> bool:
    """Keep `owner`'s claim fresh with its progress; False when the claim was taken over."""
    return await leases.heartbeat(store, leases.RUNS, run_key, owner, items_done, items_total)


async def finish_run(store: Store, run_key: str, owner: str, status: str, error: str = "") -> bool:
    """End `owner`'s claim as done or failed; False (nothing written) when the claim was taken over."""
    async with store.transaction() as db:
        return await leases.end(db, leases.RUNS, run_key, owner, status, error=error[:2000], finished_at=utc_now())


def cached_items(store: Store, run_key: str) -> dict[str, str]:
    """instance_id → the stored output JSON of every completed item of a run."""
    rows = store.read("SELECT instance_id, output_json FROM run_items WHERE run_key = ?", (run_key,))
    return {row["instance_id"]: row["output_json"] for row in rows}


async def save_items(store: Store, run_key: str, items: Iterable[tuple[str, str]]) -> None:
    """Cache completed items (instance_id, output JSON); an item already cached keeps its first output."""
    batch = [(run_key, instance_id, output) for instance_id, output in items]
    if not batch:
        return
    async with store.transaction() as db:
        await db.executemany(
            "INSERT INTO run_items (run_key, instance_id, output_json) VALUES (?, ?, ?) "
            "ON CONFLICT (run_key, instance_id) DO NOTHING",
            batch,
        )
