"""Interim statistics (replaced by the statistics module of issue 4, same API)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def rng_from_key(key: str) -> np.random.Generator:
    return np.random.default_rng(int(hashlib.sha256(key.encode()).hexdigest()[:32], 16))


@dataclass(frozen=True)
class Estimate:
    name: str
    value: float
    ci_low: float | None
    ci_high: float | None
    n_items: int
    n_units: int
    replicates: int
    degenerate_replicates: int


def factorize_units(unit_ids: Sequence[str] | np.ndarray) -> np.ndarray:
    _, first, codes = np.unique(np.asarray(unit_ids), return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[codes].astype(np.int32)


def accuracy(correct: np.ndarray) -> float:
    return float(np.mean(correct))


def auroc(labels: np.ndarray, scores: np.ndarray, weights: np.ndarray | None = None) -> float:
    weights = np.ones(len(labels)) if weights is None else weights
    order = np.argsort(scores, kind="mergesort")
    scores, labels, weights = scores[order], labels[order].astype(bool), weights[order]
    positive, negative = weights * labels, weights * ~labels
    total = 0.0
    below = 0.0
    for value in np.unique(scores):
        tied = scores == value
        total += positive[tied].sum() * (below + negative[tied].sum() / 2)
        below += negative[tied].sum()
    return float(total / (positive.sum() * negative.sum()))


def auprc(labels: np.ndarray, scores: np.ndarray, weights: np.ndarray | None = None) -> float:
    weights = np.ones(len(labels)) if weights is None else weights
    order = np.argsort(-scores, kind="mergesort")
    scores, labels, weights = scores[order], labels[order].astype(float), weights[order]
    last = np.r_[np.flatnonzero(np.diff(scores)), len(scores) - 1]
    true_positive = np.cumsum(labels * weights)[last]
    predicted = np.cumsum(weights)[last]
    recall = true_positive / true_positive[-1]
    return float(np.sum(np.diff(np.r_[0.0, recall]) * true_positive / predicted))


def bootstrap_metrics(
    metrics: Sequence[str],
    *,
    units: np.ndarray,
    replicates: int,
    rng: np.random.Generator,
    correct: np.ndarray | None = None,
    labels: np.ndarray | None = None,
    scores: np.ndarray | None = None,
    level: float = 0.95,
) -> list[Estimate]:
    n_units = int(units.max()) + 1
    counts = rng.multinomial(n_units, np.full(n_units, 1 / n_units), size=replicates)
    out = []
    for name in metrics:
        values = []
        for row in counts:
            weights = row[units].astype(float)
            if name == "accuracy":
                assert correct is not None
                values.append(float(np.average(correct, weights=weights)))
            else:
                assert labels is not None and scores is not None
                kept = weights > 0
                if labels[kept].min() == labels[kept].max():
                    continue
                fn = auroc if name == "auroc" else auprc
                values.append(fn(labels[kept], scores[kept], weights[kept]))
        point = accuracy(correct) if name == "accuracy" else (auroc if name == "auroc" else auprc)(labels, scores)  # type: ignore[arg-type]
        tail = (1 - level) / 2 * 100
        low, high = np.percentile(values, [tail, 100 - tail])
        out.append(
            Estimate(
                name,
                point,
                float(low),
                float(high),
                len(units),
                n_units,
                replicates,
                replicates - len(values),
            )
        )
    return out
