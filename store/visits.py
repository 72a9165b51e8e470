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
    at: str


@dataclass(frozen=True)
class PageVisits:
    day: str
    path: str
    visits: int


async def record_visits(store: Store, visits: Sequence[Visit]) -> None:
    """Store a batch; a second beacon for one page from one visitor on one day is ignored (primary key)."""
    if not visits:
        return
    async with store.transaction() as db:
        await db.executemany(
            "INSERT OR IGNORE INTO visits (day, path, visitor, at) VALUES (?, ?, ?, ?)",
            [(v.day, v.path, v.visitor or "", v.at) for v in visits],
        )


def count_visits(store: Store) -> int:
    row = store.read_one("SELECT COUNT(*) AS n FROM visits")
    return int(row["n"]) if row else 0


def visits_by_page(store: Store, day: str | None = None) -> list[PageVisits]:
    """Visits per page per day, newest day first (one day when `day` is given)."""
    sql = "SELECT day, path, COUNT(*) AS n FROM visits"
    params: tuple[str, ...] = ()
    if day is not None:
        sql += " WHERE day = ?"
        params = (day,)
    rows = store.read(sql + " GROUP BY day, path ORDER BY day DESC, n DESC, path", params)
    return [PageVisits(day=row["day"], path=row["path"], visits=int(row["n"])) for row in rows]
