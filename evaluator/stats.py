"""Cluster-bootstrap confidence intervals for accuracy, AUROC and AUPRC, in pure numpy.

Items (questions, windows, utterances) belong to units (questions, patients, ICU stays) and a bootstrap
replicate resamples *units* with replacement, so every item of a drawn unit comes along. All replicates are
drawn at once as a count per unit and replicate; a unit drawn twice weighs twice. Each replicate's metric is
then a weighted metric of the full data, computed for a block of replicates at a time with array operations.

Exactness: unit counts are small integers, so every sum this module forms on the way to accuracy and AUROC
(weighted totals, cumulative sums, the Mann-Whitney pair count) is an integer that float64 holds exactly
while a replicate holds fewer than about 10**8 items; float32 working arrays are used only where every
running sum stays below 2**24 (`work_dtype`). The order of summation therefore cannot change the result:
the same rng seed gives bit-identical numbers whatever the block size. AUPRC divides per score level, so it
is not exact, but every replicate goes through the same row-wise operations whatever the block size.

Randomness: the counts of replicate r are the bincount of row r of
``rng.integers(0, U, size=(R, U), dtype=np.int64)``, i.e. U uniform draws of a unit with replacement, which
is distributed exactly as ``rng.multinomial(U, [1/U] * U)`` and is faster to draw. Rows are drawn in blocks
in order; numpy's generator yields the same stream whatever the block sizes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
CountArray = npt.NDArray[np.float32]
"""How often each unit was drawn, per replicate (replicates x units); float32 holds these counts exactly."""
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]

Metric = Literal["accuracy", "auroc", "auprc"]
METRICS: tuple[str, ...] = ("accuracy", "auroc", "auprc")
PERCENTILE_METHOD: Final = "linear"
"""`np.percentile` method for every interval: linear interpolation between order statistics."""
CHUNK_ELEMENTS = 2_000_000
"""Elements of one (replicates x items) working block: 8-16 MB, a bounded, cache-friendly working set."""
DRAW_BLOCK_ELEMENTS = 2**17
"""Elements of one block of drawn unit indices: small enough to stay in cache."""


def rng_from_key(key: str) -> np.random.Generator:
    """Seeded generator for `key`: seed = the first 128 bits of sha256(key) read as an integer."""
    seed = int(hashlib.sha256(key.encode()).hexdigest()[:32], 16)
    return np.random.default_rng(seed)


@dataclass(frozen=True)
class Estimate:
    """A metric's point estimate on the full data and its percentile bootstrap interval.

    `ci_low`/`ci_high` are None when no replicate was drawn or when more than half of the replicates were
    degenerate (one class absent); `degenerate_replicates` counts those dropped replicates.
    """

    name: str
    value: float
    ci_low: float | None
    ci_high: float | None
    n_items: int
    n_units: int
    replicates: int
    degenerate_replicates: int


def factorize_units(unit_ids: Sequence[str] | np.ndarray) -> np.ndarray:
    """Integer codes 0..U-1 for `unit_ids`, numbered in order of first appearance (int32)."""
    values = np.asarray(unit_ids)
    if values.ndim != 1:
        raise ValueError("unit ids must be one-dimensional")
    if values.size == 0:
        return np.zeros(0, dtype=np.int32)
    _, first_index, inverse = np.unique(values, return_index=True, return_inverse=True)
    code_of_sorted = np.empty(first_index.size, dtype=np.int32)
    code_of_sorted[np.argsort(first_index, kind="stable")] = np.arange(first_index.size, dtype=np.int32)
    return code_of_sorted[inverse.reshape(-1)]


def accuracy(correct: np.ndarray) -> float:
    """Share of items answered correctly."""
    values = as_correct(correct)
    return float(values.mean())


def auroc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve: the Mann-Whitney probability that a positive outscores a negative.

    A tied positive/negative pair counts one half, as in scikit-learn's `roc_auc_score`.
    """
    binary = as_labels(labels)
    return AurocPlan.build(binary, as_scores(scores, binary.size), *_own_units(binary.size)).point()


def auprc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Average precision: the mean, over positives, of the precision at their score threshold.

    Tied scores form one threshold, as in scikit-learn's `average_precision_score`.
    """
    binary = as_labels(labels)
    return AuprcPlan.build(binary, as_scores(scores, binary.size), *_own_units(binary.size)).point()


def bootstrap_metric(
    metric: Metric,
    *,
    units: np.ndarray,
    replicates: int,
    rng: np.random.Generator,
    correct: np.ndarray | None = None,
    labels: np.ndarray | None = None,
    scores: np.ndarray | None = None,
    level: float = 0.95,
) -> Estimate:
    """Point estimate of `metric` on the full data and its cluster-bootstrap percentile interval."""
    return bootstrap_metrics(
        [metric],
        units=units,
        replicates=replicates,
        rng=rng,
        correct=correct,
        labels=labels,
        scores=scores,
        level=level,
    )[0]


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
    """Estimates for several metrics of one result, all from one shared draw of replicate weights.

    `units` gives each item's unit (any labels; see `factorize_units`). Accuracy needs `correct`; AUROC and
    AUPRC need `labels` (0/1) and `scores`. A replicate in which one class is absent is degenerate for AUROC
    and AUPRC: it is left out of the percentiles and counted; if more than half are, the interval is None.
    """
    codes, n_units = unit_codes(units)
    _check_replicates(replicates, level)
    plans = [build_plan(metric, codes, n_units, correct, labels, scores) for metric in metrics]
    draws = replicate_values(plans, n_units, len(codes), replicates, rng)
    return [
        _estimate(metric, plan.point(), values, valid, len(codes), n_units, level)
        for metric, plan, (values, valid) in zip(metrics, plans, draws, strict=True)
    ]


class Plan(Protocol):
    """A metric prepared once for its data; evaluates any block of replicate unit counts."""

    def values(self, counts: CountArray) -> tuple[FloatArray, BoolArray]:
        """Metric value per row of `counts` and whether that replicate is valid (both classes present)."""
        ...

    def point(self) -> float:
        """Metric on the full data (every unit counted once)."""
        ...


@dataclass(frozen=True)
class AccuracyPlan:
    """Accuracy as correct items over items, both summed per unit; one model or several side by side.

    With `correct` of shape (models, items) the values are (replicates, models): one matrix product per
    block of replicates rescores every model on the same draw.
    """

    unit_sums: npt.NDArray[np.floating]  # units x (models + 1): correct items per model, then items
    single: bool  # `correct` was one model's vector: values are (replicates,)

    @classmethod
    def build(cls, correct: BoolArray, codes: IntArray, n_units: int) -> AccuracyPlan:
        order = np.argsort(codes, kind="stable")
        starts = np.searchsorted(codes[order], np.arange(n_units))  # every unit holds an item
        table = np.column_stack([np.atleast_2d(correct).T, np.ones(codes.size)])
        unit_size = np.bincount(codes, minlength=n_units).astype(np.float64)
        sums = np.add.reduceat(table[order].astype(work_dtype(n_units, unit_size)), starts, axis=0)
        return cls(sums, correct.ndim == 1)

    def values(self, counts: CountArray) -> tuple[FloatArray, BoolArray]:
        sums = (counts.astype(self.unit_sums.dtype, copy=False) @ self.unit_sums).astype(np.float64)
        value = sums[:, :-1] / sums[:, -1:]  # at least 1 item: U units are drawn, each holds an item
        return (value[:, 0] if self.single else value), np.ones(counts.shape[0], dtype=np.bool_)

    def point(self) -> float:
        value, _ = self.values(full_data_counts(self.unit_sums.shape[0]))
        return float(value.reshape(-1)[0])


@dataclass(frozen=True)
class AurocPlan:
    """Weighted Mann-Whitney count with the scores sorted once.

    The classes are oriented so that the smaller one ("minor") is cumulated per replicate: for each item
    of the other class ("major") the weight of minor items scored below it (plus half of those tied) is a
    lookup in that cumulative sum. If positives are the smaller class, labels are swapped and scores negated,
    which leaves the AUROC unchanged.
    """

    minor_units: IntArray  # units of minor items, ascending score
    major_units: IntArray  # units of major items, ascending score
    below: IntArray  # per major item: number of minor items with a strictly lower score
    tied: IntArray  # major items with at least one tied minor item
    tied_upto: IntArray  # per tied major item: number of minor items with a lower or equal score
    unit_minor: FloatArray
    unit_major: FloatArray
    work_dtype: type[np.floating] = np.float64

    @classmethod
    def build(cls, labels: BoolArray, scores: FloatArray, codes: IntArray, n_units: int) -> AurocPlan:
        if labels.sum() * 2 < labels.size:
            labels, scores = ~labels, -scores
        minor = np.flatnonzero(~labels)
        minor = minor[np.argsort(scores[minor], kind="stable")]
        major = np.flatnonzero(labels)
        major = major[np.argsort(scores[major], kind="stable")]
        minor_scores, major_scores = scores[minor], scores[major]
        below = np.searchsorted(minor_scores, major_scores, side="left")
        upto = np.searchsorted(minor_scores, major_scores, side="right")
        tied = np.flatnonzero(upto != below)
        unit_minor = np.bincount(codes[minor], minlength=n_units).astype(np.float64)
        unit_major = np.bincount(codes[major], minlength=n_units).astype(np.float64)
        return cls(
            codes[minor],
            codes[major],
            below,
            tied,
            upto[tied],
            unit_minor,
            unit_major,
            work_dtype(n_units, unit_minor),
        )

    def values(self, counts: CountArray) -> tuple[FloatArray, BoolArray]:
        work = counts.astype(self.work_dtype, copy=False)
        cumulative = _cumulative_weights(work, self.minor_units)
        major_weights = np.take(work, self.major_units, axis=1)
        at_below = np.take(cumulative, self.below, axis=1)
        # Twice the pair count, 2 * (minor below) + (minor tied): an exact integer, accumulated in float64.
        doubled = 2.0 * np.einsum("ij,ij->i", major_weights, at_below, dtype=np.float64)
        if self.tied.size:
            tied_minor = np.take(cumulative, self.tied_upto, axis=1) - at_below[:, self.tied]
            doubled += np.einsum("ij,ij->i", major_weights[:, self.tied], tied_minor, dtype=np.float64)
        pairs = (counts @ self.unit_minor) * (counts @ self.unit_major)
        valid = pairs > 0
        value = np.divide(doubled, 2.0 * pairs, out=np.zeros_like(doubled), where=valid)
        return value, valid

    def point(self) -> float:
        value, _ = self.values(full_data_counts(self.unit_minor.size))
        return float(value[0])


@dataclass(frozen=True)
class AuprcPlan:
    """Weighted average precision over the distinct score levels that hold a positive, highest first."""

    positive_units: IntArray  # descending score
    negative_units: IntArray  # descending score
    level_positives: IntArray  # per level: number of positives scored at or above it
    level_negatives: IntArray  # per level: number of negatives scored at or above it
    unit_positive: FloatArray
    unit_negative: FloatArray
    work_dtype: type[np.floating] = np.float64

    @classmethod
    def build(cls, labels: BoolArray, scores: FloatArray, codes: IntArray, n_units: int) -> AuprcPlan:
        positive = np.flatnonzero(labels)
        positive = positive[np.argsort(-scores[positive], kind="stable")]
        negative = np.flatnonzero(~labels)
        negative = negative[np.argsort(-scores[negative], kind="stable")]
        descending_positive = -scores[positive]
        levels = np.unique(descending_positive)  # ascending in -score: highest score first
        unit_positive = np.bincount(codes[positive], minlength=n_units).astype(np.float64)
        unit_negative = np.bincount(codes[negative], minlength=n_units).astype(np.float64)
        return cls(
            codes[positive],
            codes[negative],
            np.searchsorted(descending_positive, levels, side="right"),
            np.searchsorted(-scores[negative], levels, side="right"),
            unit_positive,
            unit_negative,
            work_dtype(n_units, np.maximum(unit_positive, unit_negative)),
        )

    def values(self, counts: CountArray) -> tuple[FloatArray, BoolArray]:
        work = counts.astype(self.work_dtype, copy=False)
        positives_at = np.take(_cumulative_weights(work, self.positive_units), self.level_positives, axis=1)
        negatives_at = np.take(_cumulative_weights(work, self.negative_units), self.level_negatives, axis=1)
        true_positives = positives_at.astype(np.float64)
        false_positives = negatives_at.astype(np.float64)
        flagged = true_positives + false_positives
        precision = np.divide(true_positives, flagged, out=np.zeros_like(flagged), where=flagged > 0)
        recall_steps = np.diff(true_positives, axis=1, prepend=0.0)
        positives = counts @ self.unit_positive
        valid = (positives > 0) & (counts @ self.unit_negative > 0)
        summed = np.einsum("ij,ij->i", recall_steps, precision)
        value = np.divide(summed, positives, out=np.zeros_like(summed), where=valid)
        return value, valid

    def point(self) -> float:
        value, _ = self.values(full_data_counts(self.unit_positive.size))
        return float(value[0])


def build_plan(
    metric: str,
    codes: IntArray,
    n_units: int,
    correct: np.ndarray | None,
    labels: np.ndarray | None,
    scores: np.ndarray | None,
) -> Plan:
    """Prepare `metric` for the given item data; raise ValueError on a missing or malformed input."""
    n_items = len(codes)
    if metric == "accuracy":
        if correct is None:
            raise ValueError("accuracy needs `correct`")
        return AccuracyPlan.build(as_correct(correct, n_items), codes, n_units)
    if metric not in ("auroc", "auprc"):
        raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    if labels is None or scores is None:
        raise ValueError(f"{metric} needs `labels` and `scores`")
    binary = as_labels(labels, n_items)
    values = as_scores(scores, n_items)
    if metric == "auroc":
        return AurocPlan.build(binary, values, codes, n_units)
    return AuprcPlan.build(binary, values, codes, n_units)


def replicate_values(
    plans: Sequence[Plan],
    n_units: int,
    n_items: int,
    replicates: int,
    rng: np.random.Generator,
    chunk_elements: int = CHUNK_ELEMENTS,
) -> list[tuple[FloatArray, BoolArray]]:
    """Every plan's value and validity for each of `replicates` shared draws, computed block by block."""
    rows = max(1, chunk_elements // max(n_items, n_units, 1))
    blocks: list[list[tuple[FloatArray, BoolArray]]] = [[] for _ in plans]
    for counts in resample_unit_counts(rng, replicates, n_units, rows):
        for plan, collected in zip(plans, blocks, strict=True):
            collected.append(plan.values(counts))
    return [
        (
            np.concatenate([values for values, _ in collected]) if collected else np.zeros(0),
            np.concatenate([valid for _, valid in collected]) if collected else np.zeros(0, dtype=np.bool_),
        )
        for collected in blocks
    ]


def resample_unit_counts(rng: np.random.Generator, replicates: int, n_units: int, rows: int) -> Iterator[CountArray]:
    """Blocks of at most `rows` replicates: how often each unit is drawn, U draws with replacement each.

    Row r of the concatenated blocks is the bincount of row r of
    `rng.integers(0, U, size=(replicates, U), dtype=np.int64)`, whatever `rows` is.
    """
    draw_rows = max(1, DRAW_BLOCK_ELEMENTS // max(n_units, 1))  # draw in cache-sized pieces
    for start in range(0, replicates, max(rows, 1)):
        block = np.empty((min(rows, replicates - start), n_units), dtype=np.float32)
        for offset in range(0, block.shape[0], draw_rows):
            part = block[offset : offset + draw_rows]
            # int64 indices go straight into bincount, which converts an int32 input first, slowly.
            picks = rng.integers(0, n_units, size=part.shape, dtype=np.int64)
            picks += np.arange(part.shape[0], dtype=np.int64)[:, None] * n_units
            part[...] = np.bincount(picks.reshape(-1), minlength=part.size).reshape(part.shape)
        yield block


def full_data_counts(n_units: int) -> CountArray:
    """The one "replicate" that counts every unit once: the full data."""
    return np.ones((1, n_units), dtype=np.float32)


def percentile_bounds(values: np.ndarray, level: float, axis: int | None = None) -> tuple[Any, Any]:
    """The central `level` percentile bounds of `values` (along `axis`; linear interpolation)."""
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(values, [tail, 100.0 - tail], axis=axis, method=PERCENTILE_METHOD)
    return low, high


def percentile_interval(values: FloatArray, level: float) -> tuple[float, float]:
    """The central `level` percentile interval of `values`."""
    low, high = percentile_bounds(values, level)
    return float(low), float(high)


def unit_codes(units: np.ndarray | Sequence[str]) -> tuple[IntArray, int]:
    """Codes of `units` (see `factorize_units`) as intp, and the number of distinct units."""
    codes = factorize_units(units).astype(np.intp)
    if codes.size == 0:
        raise ValueError("no items: `units` is empty")
    n_units = int(codes.max()) + 1
    if n_units >= 2**24:
        raise ValueError("more than 2**24 units: replicate counts would not be exact in float32")
    return codes, n_units


def as_correct(correct: np.ndarray, n_items: int | None = None) -> BoolArray:
    """`correct` as a 1-D boolean array; raise ValueError on other values or a length mismatch."""
    return _as_binary(correct, n_items, "correct")


def as_labels(labels: np.ndarray, n_items: int | None = None) -> BoolArray:
    """`labels` (0/1 or bool) as a 1-D boolean array with both classes present."""
    binary = _as_binary(labels, n_items, "labels")
    if binary.all() or not binary.any():
        raise ValueError("labels hold a single class; AUROC and AUPRC need positives and negatives")
    return binary


def as_scores(scores: np.ndarray, n_items: int) -> FloatArray:
    """`scores` as a 1-D finite float64 array of length `n_items`."""
    values = np.asarray(scores, dtype=np.float64)
    if values.shape != (n_items,):
        raise ValueError(f"scores have shape {values.shape}; expected ({n_items},)")
    if not np.isfinite(values).all():
        raise ValueError("scores must be finite")
    return values


def _as_binary(values: np.ndarray, n_items: int | None, name: str) -> BoolArray:
    array = np.asarray(values)
    if array.ndim != 1 or array.size == 0 or (n_items is not None and array.size != n_items):
        raise ValueError(f"{name} has shape {array.shape}; expected ({n_items or 'n'},) with n > 0")
    if array.dtype != np.bool_ and not np.isin(array, (0, 1)).all():
        raise ValueError(f"{name} must be boolean or 0/1")
    return array.astype(np.bool_)


def _own_units(n_items: int) -> tuple[IntArray, int]:
    """Every item its own unit (for point estimates)."""
    return np.arange(n_items, dtype=np.intp), n_items


def work_dtype(n_units: int, unit_items: FloatArray) -> type[np.floating]:
    """float32 when every running weight is an integer below 2**24, which float32 holds exactly; else float64.

    A replicate draws `n_units` units, so no running weight exceeds `n_units` times the largest unit.
    float32 halves the memory traffic of the per-item arrays; the results are bit-identical either way.
    """
    bound = n_units * float(unit_items.max(initial=0.0))
    return np.float32 if bound < 2.0**24 else np.float64


def _cumulative_weights(counts: npt.NDArray[np.floating], units: IntArray) -> npt.NDArray[np.floating]:
    """Per replicate, the running weight of `units` (items in order), with a leading zero column."""
    cumulative = np.empty((counts.shape[0], units.size + 1), dtype=counts.dtype)
    cumulative[:, 0] = 0.0
    np.take(counts, units, axis=1, out=cumulative[:, 1:])
    np.cumsum(cumulative, axis=1, out=cumulative)
    return cumulative


def _check_replicates(replicates: int, level: float) -> None:
    if replicates < 0:
        raise ValueError("replicates must be >= 0")
    if not 0.0 < level < 1.0:
        raise ValueError("level must lie strictly between 0 and 1")


def _estimate(
    metric: str, point: float, values: FloatArray, valid: BoolArray, n_items: int, n_units: int, level: float
) -> Estimate:
    replicates = int(valid.size)
    degenerate = replicates - int(valid.sum())
    low: float | None = None
    high: float | None = None
    if replicates and degenerate * 2 <= replicates:
        low, high = percentile_interval(values[valid], level)
    return Estimate(metric, point, low, high, n_items, n_units, replicates, degenerate)
