"""Point estimates (placeholder until the statistics module lands with its bootstrap)."""

from __future__ import annotations

import numpy as np


def accuracy(correct: np.ndarray) -> float:
    return float(np.mean(correct)) if len(correct) else float("nan")


def auroc(labels: np.ndarray, scores: np.ndarray) -> float:
    from scipy.stats import rankdata

    labels = labels.astype(bool)
    positives, negatives = int(labels.sum()), int((~labels).sum())
    ranks = rankdata(scores)
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def auprc(labels: np.ndarray, scores: np.ndarray) -> float:
    order = np.argsort(-scores, kind="mergesort")
    labels = labels[order].astype(float)
    scores = scores[order]
    distinct = np.r_[np.flatnonzero(np.diff(scores)), len(scores) - 1]
    true_positives = np.cumsum(labels)[distinct]
    precision = true_positives / (distinct + 1)
    recall = true_positives / labels.sum()
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))
