"""Capability: compare two results of one task version, item by item (the paired bootstrap of the rank ranges).

The difference of the primary metric (A minus B) and its 95% interval come from the same replicates as the
task's rank ranges: the same spec, the same units and the same seed (the spec hash and the run ids ranked
together), so replicate r rescores both models on the draw the rank ranges used for r. Results outside the
ranked set (a minority instance set shared by both) are seeded from the spec hash and the two run ids.
For multiple-choice tasks the agreement table counts the shared items each model got right or wrong, with
McNemar's exact test of the discordant items.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import orjson
from pydantic import Field
from pydantic.config import JsonDict

from evaluator import paired, ranks, stats
from evaluator.kinds import TaskKind
from evaluator.specs import TaskSpec
from store import models as model_store
from store import results as result_store
from store.results import Result
from store.tasks import Task
from tools import leaderboard, ranking
from tools.errors import BadRequest, NotComparable, RunNotFound, RunNotOnTask, RunNotPublished
from tools.refs import TASK_HELP, TASK_REF_SCHEMA, resolve_task
from tools.registry import Registry
from tools.schemas import (
    RANK_HELP,
    RANK_RANGE_HELP,
    Bootstrap,
    MetricValue,
    ModelRef,
    Shape,
    Tier,
    model_ref,
    primary_metric_value,
)

RUN_ID_SCHEMA: JsonDict = {"pattern": "^[0-9a-f]{12}$"}


class CompareQuery(Shape):
    task: str = Field(
        min_length=1,
        max_length=80,
        description=TASK_HELP,
        json_schema_extra=TASK_REF_SCHEMA,
    )
    a: str = Field(min_length=1, max_length=64, description="Run id of result A.", json_schema_extra=RUN_ID_SCHEMA)
    b: str = Field(min_length=1, max_length=64, description="Run id of result B.", json_schema_extra=RUN_ID_SCHEMA)


class ComparedResult(Shape):
    """One side."""

    run_id: str
    url: str
    model: ModelRef
    tier: Tier
    metric: MetricValue
    rank: int | None = Field(description=RANK_HELP)
    rank_range: list[int] | None = Field(description=RANK_RANGE_HELP)


class Difference(Shape):
    """A minus B, with its 95% paired-bootstrap interval."""

    value: float
    ci_low: float | None
    ci_high: float | None


class Agreement(Shape):
    """Item-by-item agreement."""

    items: int
    both_right: int
    only_a: int = Field(description="Right in A, wrong in B.")
    only_b: int = Field(description="Right in B, wrong in A.")
    both_wrong: int
    mcnemar_p: float = Field(description="Two-sided exact McNemar p (only_a vs only_b).")


class Comparison(Shape):
    """Two results of one task version compared on identical items."""

    task: str
    title: str
    spec_hash: str
    demo: bool
    primary_metric: str
    higher_is_better: bool
    a: ComparedResult
    b: ComparedResult
    difference: Difference
    p_a_better: float | None = Field(description="Share of bootstrap replicates where A beats B.")
    p_tie: float | None = Field(description="Share of replicates where A and B tie.")
    agreement: Agreement | None = Field(description="Multiple-choice tasks only.")
    bootstrap: Bootstrap
    same_draws_as_rank_ranges: bool = Field(description="Same replicates as the rank ranges.")
    note: str


@dataclass(frozen=True)
class Computed:
    difference: paired.PairedDifference
    agreement: Agreement | None
    n_units: int


async def compare(registry: Registry, query: CompareQuery) -> Comparison:
    """Use to compare two results of one task: A minus B on the primary metric with its 95% paired-bootstrap
    interval, P(A better) and, for multiple choice, McNemar's agreement table. `a`, `b`: run ids from
    `leaderboard`."""
    task = resolve_task(registry.store, query.task)
    a, b = (comparable(registry, task, run_id) for run_id in (query.a, query.b))
    if a.run_id == b.run_id:
        raise BadRequest("a and b are the same result; pick two different run ids")
    if a.instance_set_hash != b.instance_set_hash:
        raise NotComparable(f"{a.run_id} and {b.run_id} were scored on different instance sets of {task.ref}")
    key = ("compare", task.ref, a.run_id, b.run_id)
    cached: Comparison | None = registry.cache.peek(registry.store, key)
    if cached is not None:
        return cached
    spec = TaskSpec.model_validate(orjson.loads(task.spec_json))
    together = [r.run_id for r in ranking.ranked_together(ranking.published_results(registry, task.slug, task.version))]
    same_draws = a.run_id in together and b.run_id in together
    seed_ids = together if same_draws else [a.run_id, b.run_id]
    paths = [registry.predictions_path(r.predictions_path) for r in (a, b)]
    computed = await asyncio.to_thread(compute, spec, registry.kind(task.kind), seed_ids, paths)
    comparison = await assemble(registry, task, spec, (a, b), computed, same_draws)
    registry.cache.put(registry.store, key, comparison)
    return comparison


def comparable(registry: Registry, task: Task, run_id: str) -> Result:
    """The stored result `run_id`, published and complete on `task`; else the error that says why not."""
    result = result_store.get_result(registry.store, run_id)
    if result is None:
        raise RunNotFound(f"no result with run_id {run_id[:64]!r}")
    if (result.task_slug, result.task_version) != (task.slug, task.version):
        raise RunNotOnTask(f"result {run_id} is on {result.task_slug}@{result.task_version}, not on {task.ref}")
    if result.status != "published" or result.partial:
        state = "a partial run" if result.partial else result.status.replace("_", " ")
        raise RunNotPublished(f"result {run_id} is {state}; only published results are compared")
    return result


def compute(spec: TaskSpec, kind: TaskKind, seed_ids: list[str], paths: list[Path]) -> Computed:
    """The paired bootstrap and, for kinds scored right or wrong per item, the agreement table (CPU-heavy: run off
    the loop)."""
    units, data = ranking.aligned(paths, kind)
    difference = paired.paired_difference(
        spec.primary_metric,
        units=units,
        replicates=int(spec.bootstrap["replicates"]),
        rng=stats.rng_from_key(ranks.rank_seed_key(spec.spec_hash, seed_ids)),
        higher_is_better=spec.higher_is_better,
        level=float(spec.bootstrap.get("level", 0.95)),
        **data,
    )
    agreement = None
    if "correct" in data:
        right_a, right_b = data["correct"]
        only_a, only_b = int((right_a & ~right_b).sum()), int((~right_a & right_b).sum())
        agreement = Agreement(
            items=int(right_a.size),
            both_right=int((right_a & right_b).sum()),
            only_a=only_a,
            only_b=only_b,
            both_wrong=int((~right_a & ~right_b).sum()),
            mcnemar_p=paired.mcnemar_exact_p(only_a, only_b),
        )
    return Computed(difference, agreement, stats.unit_codes(units)[1])


async def assemble(
    registry: Registry,
    task: Task,
    spec: TaskSpec,
    pair: tuple[Result, Result],
    computed: Computed,
    same_draws: bool,
) -> Comparison:
    board = await leaderboard.leaderboard(
        registry, leaderboard.LeaderboardQuery(task=task.ref, limit=leaderboard.MAX_LIMIT)
    )
    rows = {row.run_id: row for row in board.rows}
    models = model_store.models_by_slug(registry.store, {r.model_slug for r in pair})
    sides = [
        ComparedResult(
            run_id=r.run_id,
            url=registry.result_url(r.run_id),
            model=model_ref(models[r.model_slug]),
            tier=r.tier,  # type: ignore[arg-type]
            metric=primary_metric_value(r),
            rank=rows[r.run_id].rank if r.run_id in rows else None,
            rank_range=rows[r.run_id].rank_range if r.run_id in rows else None,
        )
        for r in pair
    ]
    found = computed.difference
    replicates, level = int(spec.bootstrap["replicates"]), float(spec.bootstrap.get("level", 0.95))
    return Comparison.from_row(
        task,
        task=task.ref,
        a=sides[0],
        b=sides[1],
        difference=Difference(value=found.value, ci_low=found.ci_low, ci_high=found.ci_high),
        p_a_better=found.p_a_better,
        p_tie=found.p_tie,
        agreement=computed.agreement,
        bootstrap=Bootstrap(
            unit=str(spec.bootstrap["unit"]),
            n_units=computed.n_units,
            replicates=replicates,
            level=level,
            degenerate_replicates=found.degenerate_replicates,
        ),
        same_draws_as_rank_ranges=same_draws,
        note=note(spec, same_draws),
    )


def note(spec: TaskSpec, same_draws: bool) -> str:
    seed = (
        "the seed and replicates of the task's rank ranges (the spec hash and the run ids ranked together)"
        if same_draws
        else "a seed from the spec hash and the two run ids (these results are not ranked together)"
    )
    return (
        f"Paired bootstrap: {spec.bootstrap['replicates']} replicates resampling {spec.bootstrap['unit']} units, "
        f"both models rescored on each draw; {seed}. The interval is the percentile interval of A minus B."
    )
