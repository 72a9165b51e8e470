"""Reuse events (counted lookups and downloads), written in batches off the request path."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from store.db import Store


@dataclass(frozen=True)
class Event:
    kind: str  # 'lookup' | 'download'
    target: str  # what was used: a run_id for lookups and result downloads, a path for files
    run_id: str | None
    visitor: str | None  # the daily visitor hash, never an address
    day: str  # the Korea-time date the visitor hash belongs to
    at: str  # the first of them
    n: int = 1  # identical lookups folded into this row (downloads: always 1)


async def record_events(store: Store, events: Sequence[Event]) -> None:
    """Store a batch; a repeat download of one file by one visitor on one day is ignored by a unique index."""
    if not events:
        return
    async with store.transaction() as db:
        await db.executemany(
            "INSERT OR IGNORE INTO events (kind, target, run_id, visitor, day, at, n) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(e.kind, e.target, e.run_id, e.visitor, e.day, e.at, e.n) for e in events],
        )


def count_events(store: Store) -> dict[str, int]:
    rows = store.read("SELECT kind, SUM(n) AS n FROM events GROUP BY kind")
    counts = {"lookup": 0, "download": 0}
    counts.update({row["kind"]: int(row["n"]) for row in rows})
    return counts
