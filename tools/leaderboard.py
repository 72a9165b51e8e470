"""Capability: the ranked rows of one task version, and the same table as CSV."""

from __future__ import annotations

import csv
import io

from pydantic import Field

from store import models as model_store
from store import rank_ranges as range_store
from store import results as result_store
from store.results import Result, ResultFilter
from tools.ranking import is_current
from tools.refs import resolve_task
from tools.registry import Registry
from tools.schemas import MetricValue, ModelRef, ResultStatus, Shape, Tier, model_ref, primary_metric_value

MAX_LIMIT = 1000


class LeaderboardQuery(Shape):
    task: str = Field(description="slug@version, or slug for the latest published version.", max_length=80)
    model_type: str | None = Field(
        default=None,
        max_length=40,
        description="Only models of this type: llm, tabular, timeseries, baseline.",
    )
    tier: Tier | None = Field(default=None, description="Only results with this tag.")
    limit: int = Field(default=100, ge=1, le=MAX_LIMIT, description="At most this many rows (1-1000).")


class LeaderboardRow(Shape):
    """One ranked result. `rank` is the position on the task's full leaderboard (ties share a rank);
    `rank_range` is the [best, worst] 95% range of ranks from the paired bootstrap, null until computed."""

    rank: int
    run_id: str
    task: str
    model: ModelRef
    tier: Tier
    metric: MetricValue
    n: int
    parse_rate: float | None
    cost_usd: float | None
    eval_date: str
    url: str
    rank_range: list[int] | None = Field(description="[best, worst] rank in 95% of paired bootstrap replicates.")
    status: ResultStatus


class Leaderboard(Shape):
    task: str
    title: str
    spec_hash: str
    primary_metric: str
    higher_is_better: bool
    demo: bool
    preview: bool
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
    def key(result: Result) -> tuple[int, float, str, str]:
        value = result.primary_value
        if value is None:
            return (1, 0.0, result.eval_date, result.run_id)
        return (0, -value if higher_is_better else value, result.eval_date, result.run_id)

    return key


async def leaderboard(registry: Registry, query: LeaderboardQuery) -> Leaderboard:
    """Use to compare models on one task: ranked, published, complete results, best first by the primary metric.

    Each row has the metric with its 95% bootstrap CI and `rank_range`, the 95% range of ranks from a paired
    bootstrap (close scores with overlapping intervals may not differ meaningfully). Filters (model_type,
    tier) select rows but keep each row's rank on the full leaderboard.
    """
    key = ("leaderboard", query.task, query.model_type, query.tier, query.limit)
    return registry.remember(key, lambda: build_leaderboard(registry, query))


def build_leaderboard(registry: Registry, query: LeaderboardQuery) -> Leaderboard:
    task = resolve_task(registry.store, query.task)
    results = result_store.search_results(
        registry.store, ResultFilter(task_slug=task.slug, task_version=task.version), limit=100_000
    )
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
    rows = []
    for rank, result in zip(ranks, results, strict=True):
        model = models[result.model_slug]
        if query.model_type is not None and model.type != query.model_type:
            continue
        if query.tier is not None and result.tier != query.tier:
            continue
        rows.append(
            LeaderboardRow(
                rank=rank,
                run_id=result.run_id,
                task=task.ref,
                model=model_ref(model),
                tier=result.tier,  # type: ignore[arg-type]
                metric=primary_metric_value(result),
                n=result.n,
                parse_rate=result.parse_rate,
                cost_usd=result.cost_usd,
                eval_date=result.eval_date,
                url=registry.result_url(result.run_id),
                rank_range=list(ranges[result.run_id]) if result.run_id in ranges else None,
                status=result.status,  # type: ignore[arg-type]
            )
        )
        if len(rows) >= query.limit:
            break
    return Leaderboard(
        task=task.ref,
        title=task.title,
        spec_hash=task.spec_hash,
        primary_metric=task.primary_metric,
        higher_is_better=task.higher_is_better,
        demo=task.demo,
        preview=task.preview,
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
