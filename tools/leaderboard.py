"""Capability: the ranked rows of one task version, and the same table as CSV."""

from __future__ import annotations

import csv
import io

from pydantic import Field

from store import models as model_store
from store import rank_ranges as range_store
from store import results as result_store
from store.results import Ranked, Result
from store.tasks import Task
from tools import paging
from tools.paging import cursor_field, next_field, total_field
from tools.ranking import is_current
from tools.refs import TASK_HELP, TASK_REF_SCHEMA, resolve_task
from tools.registry import Registry
from tools.schemas import (
    DEMO_HELP,
    MODEL_TYPE_HELP,
    PRIMARY_METRIC_HELP,
    RANK_HELP,
    RANK_RANGE_HELP,
    ModelTypeFilter,
    ResultRow,
    Shape,
    TieredQuery,
)

MAX_LIMIT = 1000


class LeaderboardQuery(TieredQuery):
    task: str = Field(
        description=TASK_HELP,
        min_length=1,
        max_length=80,
        json_schema_extra=TASK_REF_SCHEMA,
    )
    model_type: ModelTypeFilter | None = Field(default=None, description=MODEL_TYPE_HELP)
    limit: int = Field(default=100, ge=1, le=MAX_LIMIT, description="Rows per page.")
    cursor: str | None = cursor_field()


class LeaderboardRow(ResultRow):
    """One ranked result."""

    rank: int = Field(description=RANK_HELP)
    rank_range: list[int] | None = Field(description=RANK_RANGE_HELP)


class Leaderboard(Shape):
    task: str = Field(description="slug@version.")
    title: str
    spec_hash: str = Field(description="sha256 of the task version's spec.")
    primary_metric: str = Field(description=PRIMARY_METRIC_HELP)
    higher_is_better: bool
    demo: bool = Field(description=DEMO_HELP)
    preview: bool = Field(description="This leaderboard may still change (a change makes a new version).")
    total: int = total_field()
    next: str | None = next_field()
    rows: list[LeaderboardRow]
    rank_range_note: str = Field(description="How rank ranges were computed, or why a row has none.")


def competition_ranks(values: list[float | None]) -> list[int]:
    """Ranks 1, 2, 2, 4 … for values already sorted best first; a missing value ranks last."""
    ranks: list[int] = []
    for position, value in enumerate(values):
        tied = position > 0 and value == values[position - 1]
        ranks.append(ranks[-1] if tied else position + 1)
    return ranks


def sort_key(higher_is_better: bool):  # type: ignore[no-untyped-def]
    def key(result: Result | Ranked) -> tuple[int, float, str, str]:
        value = result.primary_value
        if value is None:
            return (1, 0.0, result.eval_date, result.run_id)
        return (0, -value if higher_is_better else value, result.eval_date, result.run_id)

    return key


async def leaderboard(registry: Registry, query: LeaderboardQuery) -> Leaderboard:
    """Use to compare models on one task: published, complete results, best first, with 95% CIs and
    `rank_range` (overlapping intervals may not differ meaningfully)."""
    key = ("leaderboard", query.model_dump_json())
    return registry.remember(key, lambda: leaderboard_page(registry, query))


def leaderboard_page(registry: Registry, query: LeaderboardQuery) -> Leaderboard:
    task = resolve_task(registry.store, query.task)
    board = full_leaderboard(registry, task)
    rows = [row for row in board.rows if query.tier in (None, row.tier) and query.model_type in (None, row.model.type)]
    shown, total, following = paging.page(rows, query, query.limit)
    return board.model_copy(update={"rows": shown, "total": total, "next": following})


def full_leaderboard(registry: Registry, task: Task) -> Leaderboard:
    """Every row of a task version's leaderboard (kept until the store changes)."""
    return registry.remember(("leaderboard-all", task.slug, task.version), lambda: build_leaderboard(registry, task))


def standing(registry: Registry, task: Task, run_id: str) -> tuple[int, list[int] | None] | None:
    """(rank, rank_range) of a result on its task version's leaderboard, or None when it is not on it."""
    for row in full_leaderboard(registry, task).rows:
        if row.run_id == run_id:
            return row.rank, row.rank_range
    return None


def build_leaderboard(registry: Registry, task: Task) -> Leaderboard:
    results = result_store.ranked_results(registry.store, task.slug, task.version)
    results.sort(key=sort_key(task.higher_is_better))
    ranks = competition_ranks([r.primary_value for r in results])
    models = model_store.models_by_slug(registry.store, {r.model_slug for r in results})
    stored = range_store.get_rank_ranges(registry.store, task.slug, task.version)
    current = is_current(stored, [r.run_id for r in results])
    ranges = stored.ranges if stored is not None and current else {}
    if not results:
        note = "No published results yet."
    elif stored is not None and current:
        note = stored.note
    else:
        note = "Rank ranges are being recomputed for the current set of results."
    rows = [
        LeaderboardRow.of(
            registry,
            result,
            models[result.model_slug],
            task.ref,
            rank=rank,
            rank_range=list(ranges[result.run_id]) if result.run_id in ranges else None,
        )
        for rank, result in zip(ranks, results, strict=True)
    ]
    return Leaderboard.from_row(
        task,
        task=task.ref,
        total=len(rows),
        next=None,
        rows=rows,
        rank_range_note=note,
    )


CSV_COLUMNS = [
    "rank",
    "rank_best",
    "rank_worst",
    "run_id",
    "task",
    "model_slug",
    "model_name",
    "model_type",
    "provider",
    "tier",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "parse_rate",
    "cost_usd",
    "eval_date",
    "url",
]


def leaderboard_csv(board: Leaderboard) -> str:
    """The leaderboard as CSV, one row per result, the columns of CSV_COLUMNS."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in board.rows:
        best, worst = row.rank_range if row.rank_range else (None, None)
        writer.writerow(
            [
                row.rank,
                best,
                worst,
                row.run_id,
                row.task,
                row.model.slug,
                row.model.name,
                row.model.type,
                row.model.provider,
                row.tier,
                row.metric.name,
                row.metric.value,
                row.metric.ci_low,
                row.metric.ci_high,
                row.n,
                row.parse_rate,
                row.cost_usd,
                row.eval_date,
                row.url,
            ]
        )
    return out.getvalue()
