"""Windows and labels of one case's grid, vectorised with cumulative sums (O(grid length) per case).

Definitions (grid sample k is the bin [k*g, k*g + g) seconds since casestart, g = grid_seconds):
- Analysed samples: with a known span [anestart, aneend], the samples whose whole bin lies inside it,
  k_start = max(0, ceil(anestart / g)) .. k_end = min(n, floor(aneend / g)) (end exclusive); without a
  span, every sample of the recording, 0 .. n.
- Window starts: k0 = k_start + j * stride for j = 0, 1, ... while k0 + input + horizon <= k_end. The input
  is samples k0 .. k0+input-1, the horizon the next `horizon` samples. t0 = k0 * g (an integer, seconds
  since casestart); instance_id = f"{caseid}:{t0}".
- Kept: at most `max_missing_input` missing input samples and at most `max_missing_horizon` missing
  horizon samples (10% of 150 = 15: exactly 15 missing is kept, 16 is dropped).
- Label 1 when some `min_run` consecutive horizon samples are all present and below the threshold; a
  run that begins in the input counts only from the first horizon sample on; a missing sample breaks a run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaluator.vitaldb.definition import IohDefinition

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
LabelArray = npt.NDArray[np.int8]


@dataclass(frozen=True)
class CaseWindowSet:
    """The kept windows of one case: start sample k0 of each input and its label."""

    starts: IntArray
    labels: LabelArray


def analysed_samples(n_samples: int, span: tuple[float, float] | None, grid_seconds: int) -> tuple[int, int]:
    """[k_start, k_end) of the grid samples whose bins lie inside the span (all samples without a span)."""
    if span is None:
        return 0, n_samples
    start, end = span
    k_start = max(0, math.ceil(start / grid_seconds))
    k_end = min(n_samples, math.floor(end / grid_seconds))
    return k_start, max(k_start, k_end)


def window_starts(k_start: int, k_end: int, window_samples: int, stride: int) -> IntArray:
    """Every k0 = k_start + j*stride whose window (input + horizon) ends at or before k_end."""
    last = k_end - window_samples
    if last < k_start:
        return np.empty(0, dtype=np.int64)
    return np.arange(k_start, last + 1, stride, dtype=np.int64)


def _prefix_sum(flags: npt.NDArray[np.bool_]) -> IntArray:
    prefix = np.zeros(flags.size + 1, dtype=np.int64)
    np.cumsum(flags, out=prefix[1:])
    return prefix


def missing_counts(grid: FloatArray, starts: IntArray, length: int) -> IntArray:
    """Missing samples in grid[k : k+length] for each start k."""
    prefix = _prefix_sum(np.isnan(grid))
    return prefix[starts + length] - prefix[starts]


def complete_enough(grid: FloatArray, starts: IntArray, definition: IohDefinition) -> npt.NDArray[np.bool_]:
    """True for windows with few enough missing samples in both the input and the horizon."""
    prefix = _prefix_sum(np.isnan(grid))
    horizon_starts = starts + definition.input_samples
    missing_input = prefix[horizon_starts] - prefix[starts]
    missing_horizon = prefix[horizon_starts + definition.horizon_samples] - prefix[horizon_starts]
    return (missing_input <= definition.max_missing_input) & (missing_horizon <= definition.max_missing_horizon)


def run_end_flags(grid: FloatArray, threshold: float, min_run: int) -> npt.NDArray[np.bool_]:
    """flags[i] is True when samples i-min_run+1 .. i are all present and below the threshold."""
    below = grid < threshold  # NaN compares False, so a missing sample breaks a run
    prefix = _prefix_sum(below)
    flags = np.zeros(grid.size, dtype=np.bool_)
    if grid.size >= min_run:
        flags[min_run - 1 :] = (prefix[min_run:] - prefix[:-min_run]) == min_run
    return flags


def horizon_labels(
    grid: FloatArray, horizon_starts: IntArray, horizon: int, threshold: float, min_run: int
) -> LabelArray:
    """1 where a run of `min_run` below-threshold samples lies wholly inside grid[h : h+horizon]."""
    if min_run > horizon:
        return np.zeros(horizon_starts.size, dtype=np.int8)
    prefix = _prefix_sum(run_end_flags(grid, threshold, min_run))
    # A run wholly inside the horizon ends at i in [h + min_run - 1, h + horizon - 1].
    runs = prefix[horizon_starts + horizon] - prefix[horizon_starts + min_run - 1]
    return (runs > 0).astype(np.int8)


def case_windows(grid: FloatArray, span: tuple[float, float] | None, definition: IohDefinition) -> CaseWindowSet:
    """The kept windows of one case's (range-masked) grid, with their labels."""
    k_start, k_end = analysed_samples(grid.size, span, definition.grid_seconds)
    starts = window_starts(k_start, k_end, definition.window_samples, definition.stride_samples)
    starts = starts[complete_enough(grid, starts, definition)]
    labels = horizon_labels(
        grid,
        starts + definition.input_samples,
        definition.horizon_samples,
        definition.threshold_mmhg,
        definition.min_run_samples,
    )
    return CaseWindowSet(starts=starts, labels=labels)


def input_windows(grid: FloatArray, starts: IntArray, input_samples: int) -> FloatArray:
    """The input samples of each window as an (n_windows, input_samples) array (a copy)."""
    if starts.size == 0:
        return np.empty((0, input_samples), dtype=np.float64)
    view = np.lib.stride_tricks.sliding_window_view(grid, input_samples)
    return np.ascontiguousarray(view[starts])


def instance_ids(caseid: int, starts: IntArray, grid_seconds: int) -> list[str]:
    """`"{caseid}:{t0}"` with t0 = k0 * grid_seconds, the input start in seconds since casestart."""
    return [f"{caseid}:{t0}" for t0 in (starts * grid_seconds).tolist()]
