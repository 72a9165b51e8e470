"""Stored rank ranges of a task version, and the set of run_ids they were computed over."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from store.clock import utc_now
from store.db import Store


@dataclass(frozen=True)
class RankRangeSet:
    covers: tuple[str, ...]
    replicates: int
    note: str
    computed_at: str
    ranges: dict[str, tuple[int, int]]


def get_rank_ranges(store: Store, slug: str, version: int) -> RankRangeSet | None:
    head = store.read_one(
        "SELECT covers_json, replicates, note, computed_at FROM rank_range_sets "
        "WHERE task_slug = ? AND task_version = ?",
        (slug, version),
    )
    if head is None:
        return None
    rows = store.read(
        "SELECT run_id, best, worst FROM rank_ranges WHERE task_slug = ? AND task_version = ?", (slug, version)
    )
    return RankRangeSet(
        covers=tuple(orjson.loads(head["covers_json"])),
        replicates=int(head["replicates"]),
        note=head["note"],
        computed_at=head["computed_at"],
        ranges={r["run_id"]: (int(r["best"]), int(r["worst"])) for r in rows},
    )


async def replace_rank_ranges(
    store: Store,
    slug: str,
    version: int,
    covers: list[str],
    replicates: int,
    note: str,
    ranges: dict[str, tuple[int, int]],
) -> None:
    """Swap a task version's ranges for a new set in one transaction (readers see the old or the new)."""
    async with store.transaction() as db:
        await db.execute("DELETE FROM rank_ranges WHERE task_slug = ? AND task_version = ?", (slug, version))
        await db.execute(
            "INSERT INTO rank_range_sets (task_slug, task_version, covers_json, replicates, note, computed_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (task_slug, task_version) DO UPDATE SET "
            "covers_json = excluded.covers_json, replicates = excluded.replicates, note = excluded.note, "
            "computed_at = excluded.computed_at",
            (slug, version, orjson.dumps(sorted(covers)).decode(), replicates, note, utc_now()),
        )
        await db.executemany(
            "INSERT INTO rank_ranges (task_slug, task_version, run_id, best, worst) VALUES (?, ?, ?, ?, ?)",
            [(slug, version, run_id, best, worst) for run_id, (best, worst) in sorted(ranges.items())],
        )
