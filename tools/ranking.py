"""Paired-bootstrap rank ranges of a leaderboard: recomputed when a result is published or withdrawn.

All published, complete results of one task version that were scored on the same instance set are rescored
together on every replicate's resampled units (evaluator.ranks). The seed is derived from the spec hash and
the sorted run_ids covered, so the same set of results always gets the same ranges. Results on another
instance set are not ranked with them, and the stored note says so.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import numpy as np
import orjson
import pyarrow.parquet as pq

from evaluator import ranks, stats
from evaluator.kinds import TaskKind
from evaluator.specs import TaskSpec
from store import rank_ranges as range_store
from store import results as result_store
from store import tasks as task_store
from store.rank_ranges import RankRangeSet
from store.results import Result, ResultFilter
from tools.registry import Registry


def published_results(registry: Registry, slug: str, version: int) -> list[Result]:
    """Full rows (predictions paths, instance-set hashes) of the results a task version's ranges cover."""
    where = ResultFilter(task_slug=slug, task_version=version)
    return result_store.search_results(registry.store, where, limit=100_000)


def aligned(paths: list[Path], kind: TaskKind) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Units and per-model arrays over the instances sorted by id (every file holds the same instance set): the
    kind's compared column of every file, as the kind hands it to the paired statistics."""
    first = pq.read_table(paths[0], columns=["instance_id", "unit_id", "label"]).sort_by("instance_id")
    units = np.asarray(first.column("unit_id").to_pylist())
    column = kind.compared_column
    values = np.stack(
        [
            pq.read_table(path, columns=["instance_id", column])
            .sort_by("instance_id")
            .column(column)
            .to_numpy(zero_copy_only=False)
            for path in paths
        ]
    )
    return units, kind.paired_arrays(first.column("label"), values)


def ranked_together(results: list[Result]) -> list[Result]:
    """The results whose ranges are computed together, by run_id: those on the most common instance set."""
    sets = Counter(r.instance_set_hash for r in results)
    main_set = max(sets, key=lambda h: (sets[h], h)) if sets else None
    return sorted((r for r in results if r.instance_set_hash == main_set), key=lambda r: r.run_id)


def compute(spec: TaskSpec, kind: TaskKind, run_ids: list[str], paths: list[Path]) -> dict[str, tuple[int, int]]:
    units, data = aligned(paths, kind)
    result = ranks.rank_ranges(
        spec.primary_metric,
        units=units,
        replicates=int(spec.bootstrap["replicates"]),
        rng=stats.rng_from_key(ranks.rank_seed_key(spec.spec_hash, run_ids)),
        higher_is_better=spec.higher_is_better,
        level=float(spec.bootstrap.get("level", 0.95)),
        **data,
    )
    return {run_id: (int(b), int(w)) for run_id, b, w in zip(run_ids, result.best, result.worst, strict=True)}


async def refresh_rank_ranges(registry: Registry, slug: str, version: int) -> RankRangeSet | None:
    """Recompute and store the rank ranges of one task version (the heavy part runs in a thread)."""
    task = task_store.get_task(registry.store, slug, version)
    kind = registry.kinds.get(task.kind) if task is not None else None
    if task is None or kind is None:  # a kind this process does not know is not ranked by it
        return None
    spec = TaskSpec.model_validate(orjson.loads(task.spec_json))
    results = published_results(registry, slug, version)
    together = ranked_together(results)
    apart = len(results) - len(together)
    run_ids = [r.run_id for r in together]
    paths = [registry.predictions_path(r.predictions_path) for r in together]
    computed = await asyncio.to_thread(compute, spec, kind, run_ids, paths) if together else {}
    note = (
        f"95% rank ranges from a paired bootstrap: {spec.bootstrap['replicates']} replicates resampling "
        f"{spec.bootstrap['unit']} units, every model rescored on the same draw; seeded from the spec hash and "
        f"the {len(run_ids)} run ids covered."
    )
    if apart:
        note += f" {apart} result(s) scored on a different instance set are not ranked with them (no range)."
    considered = [r.run_id for r in results]
    await range_store.replace_rank_ranges(
        registry.store, slug, version, considered, int(spec.bootstrap["replicates"]), note, computed
    )
    return range_store.get_rank_ranges(registry.store, slug, version)


def is_current(stored: RankRangeSet | None, published: list[str]) -> bool:
    """The stored ranges considered exactly the results published now."""
    return stored is not None and sorted(stored.covers) == sorted(published)


async def refresh_stale(registry: Registry) -> list[str]:
    """Recompute every task version whose stored ranges considered another set than its published results."""
    refreshed = []
    for task in task_store.list_tasks(registry.store):
        published = [r.run_id for r in result_store.ranked_results(registry.store, task.slug, task.version)]
        stored = range_store.get_rank_ranges(registry.store, task.slug, task.version)
        if (published or stored is not None) and not is_current(stored, published):
            await refresh_rank_ranges(registry, task.slug, task.version)
            refreshed.append(task.ref)
    return refreshed
