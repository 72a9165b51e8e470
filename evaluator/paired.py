"""Two models compared on the same items: the paired-bootstrap difference of a metric, and McNemar's exact test.

The bootstrap is the rank ranges' own (`evaluator.ranks`): each replicate draws units once and rescores both
models on that draw, so the difference of a replicate is the difference of two scores on identical items.
Given the same generator state and the same units, the replicate scores of A and B are exactly the scores
`ranks.rank_ranges` ranks on that replicate (each model's score depends only on the draw and its own items).

The difference is A minus B in the metric's own units. `p_a_better` is the share of valid replicates in
which A scores strictly better than B (higher, or lower when lower is better); `p_tie` the share in which
they score the same. As for one model's interval, a replicate with one class absent is degenerate (AUROC,
AUPRC) and left out; if more than half are, the interval and the shares are None.

McNemar's exact test (`mcnemar_exact_p`) asks whether the discordant items (only A right, only B right) split
evenly: the two-sided binomial test of `only_a` successes in `only_a + only_b` trials at p = 1/2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evaluator import ranks, stats


@dataclass(frozen=True)
class PairedDifference:
    """Metric of A minus metric of B on the full data, its percentile interval, and how often A is better."""

    value: float
    ci_low: float | None
    ci_high: float | None
    p_a_better: float | None
    p_tie: float | None
    replicates: int
    degenerate_replicates: int


def paired_difference(
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
) -> PairedDifference:
    """`correct` or `scores` hold two rows, A then B, over the same items (see `ranks.rank_ranges`)."""
    codes, n_units = stats.unit_codes(units)
    if replicates < 0 or not 0.0 < level < 1.0:
        raise ValueError("replicates must be >= 0 and level strictly between 0 and 1")
    table = correct if correct is not None else scores
    if table is None or np.shape(table)[0] != 2:
        raise ValueError("paired_difference compares exactly two models (two rows)")
    scorer = ranks.model_scorer(metric, codes, n_units, correct, labels, scores)
    full, _ = scorer.values(stats.full_data_counts(n_units))
    rows = max(1, stats.CHUNK_ELEMENTS // max(len(codes), n_units))
    differences = [np.zeros(0)]
    valid_blocks = [np.zeros(0, dtype=np.bool_)]
    for counts in stats.resample_unit_counts(rng, replicates, n_units, rows):
        values, valid = scorer.values(counts)
        differences.append(values[:, 0] - values[:, 1])
        valid_blocks.append(valid)
    difference, valid = np.concatenate(differences), np.concatenate(valid_blocks)
    return _summary(float(full[0, 0] - full[0, 1]), difference, valid, higher_is_better, level)


def _summary(
    point: float, difference: np.ndarray, valid: np.ndarray, higher_is_better: bool, level: float
) -> PairedDifference:
    drawn = int(valid.size)
    degenerate = drawn - int(valid.sum())
    if drawn == 0 or degenerate * 2 > drawn:
        return PairedDifference(point, None, None, None, None, drawn, degenerate)
    kept = difference[valid]
    low, high = stats.percentile_interval(kept, level)
    better = kept > 0 if higher_is_better else kept < 0
    return PairedDifference(point, low, high, float(better.mean()), float((kept == 0).mean()), drawn, degenerate)


def mcnemar_exact_p(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: P(a split at least as uneven as this one) under Binomial(n, 1/2).

    The tail is summed from its largest term down, in log space (that term from `math.lgamma`, the others by
    their ratios), so it holds for counts in the millions: within 1e-9 relative of scipy's `binomtest`.
    """
    if only_a < 0 or only_b < 0:
        raise ValueError("discordant counts must be non-negative")
    n, m = only_a + only_b, min(only_a, only_b)
    if n == 0 or only_a == only_b:
        return 1.0
    top = math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1) - n * math.log(2.0)
    k = np.arange(m, 0, -1, dtype=np.float64)
    below = np.concatenate([[0.0], np.cumsum(np.log(k) - np.log(n - k + 1))])  # log term(k) - log term(m)
    return min(1.0, 2.0 * math.exp(top) * float(np.exp(below).sum()))
