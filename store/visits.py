"""Browser page visits (from beacons), written in batches off the request path."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from store.db import Store


@dataclass(frozen=True)
class Visit:
    path: str  # the page's path, without its query string
    visitor: str | None  # the daily visitor hash, never an address
    day: str  # the Korea-time date the visitor hash belongs to


async def record_visits(store: Store, visits: Sequence[Visit]) -> None:
    """Store a batch; a second beacon for one page from one visitor on one day is ignored (primary key)."""
    if not visits:
        return
    async with store.transaction() as db:
        await db.executemany(
            "INSERT OR IGNORE INTO visits (day, path, visitor) VALUES (?, ?, ?)",
            [(v.day, v.path, v.visitor or "") for v in visits],
        )


def count_visits(store: Store) -> int:
    row = store.read_one("SELECT COUNT(*) AS n FROM visits")
    return int(row["n"]) if row else 0
