"""Windows and labels: planted episodes with labels known by construction, and a slow reference."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.specs import load_task_files
from evaluator.vitaldb.definition import IohDefinition, allowed_missing, definition_from_spec
from evaluator.vitaldb.windows import analysed_samples, case_windows, input_windows, instance_ids

SPEC = next(f.spec for f in load_task_files() if f.spec.task == "vitaldb-ioh@0")
DEFINITION = definition_from_spec(SPEC)
NORMAL, LOW = 80.0, 55.0


def one_window(input_part: np.ndarray | None = None, horizon_part: np.ndarray | None = None) -> tuple[bool, int]:
    """(kept, label) of the single window of a 300-sample grid without a span."""
    grid = np.full(300, NORMAL)
    if input_part is not None:
        grid[:150] = input_part
    if horizon_part is not None:
        grid[150:] = horizon_part
    windows = case_windows(grid, None, DEFINITION)
    if windows.starts.size == 0:
        return False, -1
    assert windows.starts.tolist() == [0]
    return True, int(windows.labels[0])


def horizon_with(runs: list[tuple[int, int]], value: float = LOW) -> np.ndarray:
    """A 150-sample horizon at NORMAL with [start, end) runs set to `value`."""
    horizon = np.full(150, NORMAL)
    for start, end in runs:
        horizon[start:end] = value
    return horizon


def test_the_spec_holds_the_issue_numbers() -> None:
    assert (DEFINITION.input_samples, DEFINITION.horizon_samples, DEFINITION.stride_samples) == (150, 150, 15)
    assert (DEFINITION.max_missing_input, DEFINITION.max_missing_horizon) == (15, 15)
    assert (DEFINITION.threshold_mmhg, DEFINITION.min_run_samples, DEFINITION.grid_seconds) == (65.0, 30, 2)
    assert (DEFINITION.valid_min_mmhg, DEFINITION.valid_max_mmhg, DEFINITION.min_age) == (20.0, 200.0, 18.0)
    assert DEFINITION.track == "Solar8000/ART_MBP" and DEFINITION.split_salt == "vitaldb-ioh@0"


def test_ten_percent_of_150_allows_exactly_15_missing_samples() -> None:
    assert allowed_missing(150, 0.1) == 15 and allowed_missing(150, "0.1") == 15
    assert allowed_missing(100, 0.29) == 29 and int(0.29 * 100) == 28  # why the rule uses exact fractions


def test_a_run_of_29_samples_is_label_0_and_30_is_label_1() -> None:
    assert one_window(horizon_part=horizon_with([(40, 69)])) == (True, 0)
    assert one_window(horizon_part=horizon_with([(40, 70)])) == (True, 1)


def test_runs_at_the_first_and_last_horizon_samples_count() -> None:
    assert one_window(horizon_part=horizon_with([(0, 30)])) == (True, 1)
    assert one_window(horizon_part=horizon_with([(120, 150)])) == (True, 1)
    assert one_window(horizon_part=horizon_with([(121, 150)])) == (True, 0)


def test_one_missing_sample_breaks_a_run() -> None:
    horizon = horizon_with([(10, 50)])  # 40 low samples ...
    horizon[30] = np.nan  # ... split into 20 + 19
    assert one_window(horizon_part=horizon) == (True, 0)
    horizon = horizon_with([(10, 50)])
    horizon[40] = np.nan  # 30 + 9: the first piece is still a full run
    assert one_window(horizon_part=horizon) == (True, 1)


def test_a_value_of_exactly_65_is_not_hypotension_and_breaks_a_run() -> None:
    horizon = horizon_with([(10, 70)])
    horizon[39] = 65.0  # 29 + 30 ...
    assert one_window(horizon_part=horizon) == (True, 1)
    horizon[55] = 65.0  # ... now 29 + 15 + 14
    assert one_window(horizon_part=horizon) == (True, 0)
    assert one_window(horizon_part=horizon_with([(0, 150)], value=64.99)) == (True, 1)


def test_a_run_from_the_input_counts_only_from_the_first_horizon_sample() -> None:
    input_part = np.full(150, NORMAL)
    input_part[100:] = LOW  # 50 low samples at the end of the input
    assert one_window(input_part, horizon_with([(0, 29)])) == (True, 0)
    assert one_window(input_part, horizon_with([(0, 30)])) == (True, 1)
    assert one_window(input_part, horizon_with([])) == (True, 0)


def test_a_run_past_the_horizon_end_counts_only_its_horizon_part() -> None:
    grid = np.full(600, NORMAL)
    grid[271:400] = LOW  # window 0's horizon is 150..299: it holds 29 of these samples
    windows = case_windows(grid, None, DEFINITION)
    assert windows.starts[0] == 0 and windows.labels[0] == 0
    assert windows.starts[1] == 15 and windows.labels[1] == 1  # horizon 165..314 holds 44


@pytest.mark.parametrize("part", ["input", "horizon"])
def test_exactly_15_missing_samples_is_kept_and_16_is_dropped(part: str) -> None:
    for missing, kept in [(15, True), (16, False)]:
        values = np.full(150, NORMAL)
        values[np.linspace(0, 149, missing).astype(int)] = np.nan
        assert len(set(np.flatnonzero(np.isnan(values)))) == missing
        window = one_window(values, None) if part == "input" else one_window(None, values)
        assert window[0] is kept


def test_windows_start_every_15_samples_from_the_first_analysed_sample() -> None:
    grid = np.full(400, NORMAL)
    windows = case_windows(grid, None, DEFINITION)
    assert windows.starts.tolist() == [0, 15, 30, 45, 60, 75, 90]  # 90 + 300 <= 400 < 105 + 300
    assert instance_ids(42, windows.starts, 2) == [
        "42:0",
        "42:30",
        "42:60",
        "42:90",
        "42:120",
        "42:150",
        "42:180",
    ]


def test_windows_are_anchored_at_the_first_whole_bin_inside_the_span() -> None:
    grid = np.full(2000, NORMAL)
    assert analysed_samples(2000, (101.0, 700.0), 2) == (51, 350)  # bins [102, 104) .. [698, 700)
    assert analysed_samples(2000, (-552.0, 10848.0), 2) == (0, 2000)
    assert analysed_samples(2000, (500.0, 400.0), 2) == (250, 250)  # aneend <= anestart: no samples
    assert case_windows(grid, (101.0, 700.0), DEFINITION).starts.tolist() == []  # 51 + 300 > 350
    windows = case_windows(grid, (101.0, 702.0), DEFINITION)  # k_end = 351
    assert windows.starts.tolist() == [51]
    assert instance_ids(5, windows.starts, 2) == ["5:102"]  # t0 = 2 * k0 seconds since casestart
    assert case_windows(grid, (102.0, 702.0), DEFINITION).starts.tolist() == [51]
    assert case_windows(grid, (102.0, 701.9), DEFINITION).starts.tolist() == []


def test_input_windows_are_the_input_samples_of_each_kept_window() -> None:
    grid = np.arange(400, dtype=np.float64)
    starts = np.array([0, 15, 90])
    inputs = input_windows(grid, starts, 150)
    assert inputs.shape == (3, 150)
    np.testing.assert_array_equal(inputs[2], np.arange(90, 240))
    assert input_windows(grid, np.array([], dtype=np.int64), 150).shape == (0, 150)


# --- planted cohort: episodes and gaps placed by the generator, labels known from the placement ---


def planted_case(rng: np.random.Generator, n: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """A grid at 66-110 mmHg with low episodes (40-64.9) and missing samples placed at random; returns the
    grid and the maximal present low pieces, computed from the placements (episodes minus gaps)."""
    grid = rng.uniform(66, 110, n)
    episodes, position = [], int(rng.integers(0, 60))
    while position < n:
        length = int(rng.choice([1, 10, 28, 29, 30, 31, 45, 80]))
        episodes.append((position, min(n, position + length)))
        position += length + int(rng.integers(1, 200))
    for start, end in episodes:
        grid[start:end] = rng.uniform(40, 64.9, end - start)
    missing = np.zeros(n, dtype=bool)
    for _ in range(int(rng.integers(0, n // 40))):
        start = int(rng.integers(0, n))
        missing[start : start + int(rng.choice([1, 1, 1, 5, 16]))] = True
    grid[missing] = np.nan
    pieces = []
    for start, end in episodes:
        gaps = [start - 1, *np.flatnonzero(missing[start:end]) + start, end]
        pieces += [(a + 1, b) for a, b in itertools.pairwise(gaps) if b > a + 1]
    return grid, pieces


def test_planted_cohort_labels_and_drops_match_the_construction() -> None:
    rng = np.random.default_rng(7)
    n_windows = n_positive = 0
    for _ in range(40):
        grid, pieces = planted_case(rng, int(rng.integers(300, 2000)))
        windows = case_windows(grid, None, DEFINITION)
        missing = np.isnan(grid)
        expected_starts = [
            k0
            for k0 in range(0, grid.size - 299, 15)
            if missing[k0 : k0 + 150].sum() <= 15 and missing[k0 + 150 : k0 + 300].sum() <= 15
        ]
        assert windows.starts.tolist() == expected_starts
        for k0, label in zip(windows.starts.tolist(), windows.labels.tolist(), strict=True):
            h = k0 + 150
            expected = any(min(b, h + 150) - max(a, h) >= 30 for a, b in pieces)
            assert label == int(expected), (k0, pieces)
        n_windows += windows.starts.size
        n_positive += int(windows.labels.sum())
    assert n_windows > 500 and 0 < n_positive < n_windows  # both classes were exercised


# --- property tests against a slow, obviously correct reference ---


def reference_windows(
    grid: np.ndarray, span: tuple[float, float] | None, rules: IohDefinition
) -> list[tuple[int, int]]:
    """(k0, label) of every kept window, by loops over samples."""
    g, n = rules.grid_seconds, grid.size
    inside = [span is None or (g * k >= span[0] and g * k + g <= span[1]) for k in range(n)]
    analysed = [k for k in range(n) if inside[k]]
    if not analysed:
        return []
    first, stop = analysed[0], analysed[-1] + 1
    result, k0 = [], first
    while k0 + rules.input_samples + rules.horizon_samples <= stop:
        inputs = grid[k0 : k0 + rules.input_samples]
        horizon = grid[k0 + rules.input_samples : k0 + rules.input_samples + rules.horizon_samples]
        n_missing_input = sum(1 for v in inputs if math.isnan(v))
        n_missing_horizon = sum(1 for v in horizon if math.isnan(v))
        if n_missing_input <= rules.max_missing_input and n_missing_horizon <= rules.max_missing_horizon:
            run = best = 0
            for value in horizon:
                run = run + 1 if (not math.isnan(value) and value < rules.threshold_mmhg) else 0
                best = max(best, run)
            result.append((k0, int(best >= rules.min_run_samples)))
        k0 += rules.stride_samples
    return result


SMALL = dataclasses.replace(
    DEFINITION,
    input_samples=10,
    horizon_samples=12,
    stride_samples=3,
    max_missing_input=1,
    max_missing_horizon=2,
    min_run_samples=4,
)
VALUES = st.sampled_from([50.0, 64.9, 65.0, 70.0, float("nan")])
SPANS = st.one_of(
    st.none(),
    st.tuples(st.integers(-50, 80).map(float), st.integers(0, 250).map(float)),  # odd and even seconds
    st.tuples(st.floats(-50, 80), st.floats(0, 250)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, min_size=22, max_size=120), SPANS)
def test_vectorised_windows_equal_the_reference_on_random_series(values: list[float], span: object) -> None:
    grid = np.array(values, dtype=np.float64)
    windows = case_windows(grid, span, SMALL)  # type: ignore[arg-type]
    got = list(zip(windows.starts.tolist(), windows.labels.tolist(), strict=True))
    assert got == reference_windows(grid, span, SMALL)  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(300, 900))
def test_vectorised_windows_equal_the_reference_at_the_real_sizes(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    grid = np.where(rng.random(n) < 0.5, 60.0, 70.0)
    grid[rng.random(n) < rng.uniform(0, 0.15)] = np.nan
    # long runs appear often enough when values come in blocks
    blocks = np.repeat(rng.choice([58.0, 72.0, np.nan], size=n // 20 + 1, p=[0.45, 0.5, 0.05]), 20)[:n]
    grid = np.where(rng.random(n) < 0.8, blocks, grid)
    windows = case_windows(grid, None, DEFINITION)
    got = list(zip(windows.starts.tolist(), windows.labels.tolist(), strict=True))
    assert got == reference_windows(grid, None, DEFINITION)
