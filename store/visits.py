"""Browser page visits (from beacons), written in batches off the request path."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from store.db import Store


@dataclass(frozen=True)
class Visit:
    path: str  # the page's path, without its query string
    visitor: str | None  # the daily visitor hash, never an address
    day: str  # the Korea-time date the visitor hash belongs to


async def record_visits(store: Store, served: Sequence[Visit], visits: Sequence[Visit]) -> list[Visit]:
    """Store the pages served and, in the same transaction, each visit whose page was served to its visitor that
    day (a second beacon for one page from one visitor on one day is ignored: primary key). Return the visits
    whose page is not (yet) known to have been served."""
    if not served and not visits:
        return []
    waiting: list[Visit] = []
    async with store.transaction() as db:
        await db.executemany(
            "INSERT OR IGNORE INTO served_pages (day, path, visitor) VALUES (?, ?, ?)",
            [(v.day, v.path, v.visitor or "") for v in served],
        )
        for visit in visits:
            values = (visit.day, visit.path, visit.visitor or "")
            cursor = await db.execute(
                "INSERT OR IGNORE INTO visits (day, path, visitor) SELECT ?, ?, ? WHERE EXISTS "
                "(SELECT 1 FROM served_pages WHERE day = ? AND path = ? AND visitor = ?)",
                values + values,
            )
            if cursor.rowcount == 0 and not await served_visit(db, values):
                waiting.append(visit)
    return waiting


async def served_visit(db: aiosqlite.Connection, values: tuple[str, str, str]) -> bool:
    """Whether a visit was refused as a repeat (its page was served and it is stored already)."""
    rows = await db.execute_fetchall("SELECT 1 FROM visits WHERE day = ? AND path = ? AND visitor = ?", values)
    return bool(list(rows))


def count_visits(store: Store) -> int:
    row = store.read_one("SELECT COUNT(*) AS n FROM visits")
    return int(row["n"]) if row else 0
