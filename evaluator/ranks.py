"""Paired-bootstrap rank ranges: how far each model's rank moves when every model is rescored on the same
resampled units.

Each replicate draws units once (see `evaluator.stats`) and rescores every model on that draw, so models
are compared on identical items. Models are ranked per replicate with competition ranking ("1224": tied
models share the best rank of their group, and the next rank skips). A model's range is the 2.5th
percentile of its ranks, rounded down, to the 97.5th percentile, rounded up (for a 95% level), widened if
needed to include its rank on the full data: when several models tie on the full data they share the best
rank of their group, which the bootstrap may reach less often than the tail share. If more than half of the
replicates are degenerate (one class absent, for AUROC and AUPRC), or none was drawn, the ranges are the
uninformative [1, M].

Ties are exact: replicate accuracies and AUROCs are ratios of exact integer sums with a denominator shared
by all models of the replicate, so equal sums give equal values.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from evaluator import stats

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class RankRanges:
    """Point ranks (1 = best) and the integer [best, worst] 95% range of each model's bootstrap rank.

    `degenerate_replicates` (an addition to the contract, default 0) counts replicates left out because one
    class was absent from the draw.
    """

    point_ranks: np.ndarray
    best: np.ndarray
    worst: np.ndarray
    replicates: int
    degenerate_replicates: int = 0


def rank_seed_key(spec_hash: str, run_ids: Iterable[str]) -> str:
    """Key for `stats.rng_from_key`: the spec hash and the distinct run_ids, sorted, one per line."""
    ids = sorted(set(run_ids))
    if any("\n" in value for value in [spec_hash, *ids]):
        raise ValueError("spec hash and run ids must not contain newlines")
    return "\n".join([spec_hash, *ids])


def competition_ranks(values: np.ndarray, higher_is_better: bool = True) -> IntArray:
    """Competition ranks ("1224") of each row's values; 1 is the best value of the row."""
    table = np.atleast_2d(np.asarray(values, dtype=np.float64))
    keys = -table if higher_is_better else table  # ascending key = best first
    order = np.argsort(keys, axis=1, kind="stable")
    ordered = np.take_along_axis(keys, order, axis=1)
    starts_group = np.ones(ordered.shape, dtype=np.bool_)
    starts_group[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    positions = np.broadcast_to(np.arange(table.shape[1]), table.shape)
    group_start = np.maximum.accumulate(np.where(starts_group, positions, 0), axis=1)
    ranks = np.empty(table.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, group_start + 1, axis=1)
    return ranks.reshape(np.shape(values)) if np.ndim(values) == 1 else ranks


def rank_ranges(
    metric: str,
    *,
    units: np.ndarray,
    replicates: int,
    rng: np.random.Generator,
    higher_is_better: bool = True,
    correct: np.ndarray | None = None,
    labels: np.ndarray | None = None,
    scores: np.ndarray | None = None,
    level: float = 0.95,
) -> RankRanges:
    """Rank ranges of M models scored on the same items: `correct` or `scores` are (models x items) arrays.

    For accuracy, all models' replicate scores are one matrix product per block of replicates
    (replicates x units times units x models). For AUROC and AUPRC, `labels` are shared by all models.
    """
    codes, n_units = stats.unit_codes(units)
    if replicates < 0 or not 0.0 < level < 1.0:
        raise ValueError("replicates must be >= 0 and level strictly between 0 and 1")
    models = model_scorer(metric, codes, n_units, correct, labels, scores)
    point_ranks = competition_ranks(models.values(stats.full_data_counts(n_units))[0][0], higher_is_better)
    rows = max(1, stats.CHUNK_ELEMENTS // max(len(codes), n_units))
    rank_blocks = [np.zeros((0, point_ranks.size), dtype=np.int64)]
    valid_blocks = [np.zeros(0, dtype=np.bool_)]
    for counts in stats.resample_unit_counts(rng, replicates, n_units, rows):
        values, valid = models.values(counts)
        rank_blocks.append(competition_ranks(values, higher_is_better))
        valid_blocks.append(valid)
    ranks, valid = np.concatenate(rank_blocks), np.concatenate(valid_blocks)
    best, worst = _range_bounds(ranks[valid], point_ranks, replicates, level)
    return RankRanges(point_ranks, best, worst, replicates, replicates - int(valid.sum()))


class _Scorer(Protocol):
    def values(self, counts: stats.CountArray) -> tuple[stats.FloatArray, stats.BoolArray]:
        """(replicates x models) metric values of a block of unit counts, and each replicate's validity."""
        ...


@dataclass(frozen=True)
class _PerModel:
    """One single-model plan per model (AUROC, AUPRC), evaluated side by side on each block."""

    plans: list[stats.Plan]

    def values(self, counts: stats.CountArray) -> tuple[stats.FloatArray, stats.BoolArray]:
        parts = [plan.values(counts) for plan in self.plans]
        # The labels are shared, so a replicate is degenerate for every model or for none.
        return np.stack([value for value, _ in parts], axis=1), parts[0][1]


def model_scorer(
    metric: str,
    codes: stats.IntArray,
    n_units: int,
    correct: np.ndarray | None,
    labels: np.ndarray | None,
    scores: np.ndarray | None,
) -> _Scorer:
    """A scorer whose values are (replicates x models); raise ValueError on missing or malformed inputs."""
    n_items = len(codes)
    if metric not in stats.METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(stats.METRICS)}")
    if metric == "accuracy":
        if correct is None:
            raise ValueError("accuracy needs `correct` (models x items)")
        table = _models_by_items(correct, n_items, "correct")
        rows = np.stack([stats.as_correct(row, n_items) for row in table])
        return stats.AccuracyPlan.build(rows, codes, n_units)
    if scores is None:
        raise ValueError(f"{metric} needs `labels` (items) and `scores` (models x items)")
    table = _models_by_items(scores, n_items, "scores")
    return _PerModel([stats.build_plan(metric, codes, n_units, None, labels, row) for row in table])


def _range_bounds(ranks: IntArray, point_ranks: IntArray, replicates: int, level: float) -> tuple[IntArray, IntArray]:
    """Each model's rank percentiles: low rounded down, high rounded up, widened to include the point rank."""
    n_models = point_ranks.size
    if ranks.shape[0] == 0 or (replicates - ranks.shape[0]) * 2 > replicates:
        return np.ones(n_models, np.int64), np.full(n_models, n_models, np.int64)
    low, high = stats.percentile_bounds(ranks, level, axis=0)
    # Rounding outward keeps integer bounds from being narrower than the interpolated percentiles.
    best = np.floor(low).astype(np.int64)
    worst = np.ceil(high).astype(np.int64)
    best = np.clip(np.minimum(best, point_ranks), 1, n_models)
    worst = np.clip(np.maximum(worst, point_ranks), 1, n_models)
    return best, worst


def _models_by_items(values: np.ndarray, n_items: int, name: str) -> np.ndarray:
    table = np.asarray(values)
    if table.ndim != 2 or table.shape[1] != n_items or table.shape[0] == 0:
        raise ValueError(f"{name} has shape {table.shape}; expected (models, {n_items})")
    return table
