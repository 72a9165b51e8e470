"""Benchmark: VitalDB windowing and labelling of 1,000 synthetic 4-hour cases on one core, streaming.

    .venv/bin/python bench/vitaldb_windows_bench.py [--cases 1000] [--hours 4] [--file-cases 200]

Each case's 2-s MAP grid (7,200 samples for 4 h, artefacts and missing samples included) is generated
from the synthetic cohort's signal model outside the timed part, then windowed and labelled under the
vitaldb-ioh@0 spec (timed), then dropped: one case is in memory at a time. The peak RSS is read after
the first tenth of the cases and at the end; equal figures show that memory does not grow with the
number of cases. A second, smaller pass times the whole per-case pipeline from `.csv.gz` files written
to a temporary directory (read + grid + windows + labels + features), for scale.
Target (issue 3): windowing and labelling of 1,000 four-hour cases <= 10 s on one core.
"""

from __future__ import annotations

import os

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"  # before numpy is imported

import argparse  # noqa: E402
import resource  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from evaluator.specs import load_task_files  # noqa: E402
from evaluator.vitaldb.definition import definition_from_spec  # noqa: E402
from evaluator.vitaldb.features import window_features  # noqa: E402
from evaluator.vitaldb.pipeline import iter_case_instances  # noqa: E402
from evaluator.vitaldb.signals import mask_out_of_range  # noqa: E402
from evaluator.vitaldb.synthetic import (  # noqa: E402
    EMPTY,
    NO_RECORD,
    CohortConfig,
    add_artefacts,
    write_synthetic_cohort,
)
from evaluator.vitaldb.synthetic import simulate_map as simulate_clean_map  # noqa: E402
from evaluator.vitaldb.windows import case_windows, input_windows  # noqa: E402

TARGET_SECONDS = 10.0


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def synthetic_grid(rng: np.random.Generator, n_samples: int) -> np.ndarray:
    """A case's range-masked 2-s grid from the demo cohort's signal and artefact model."""
    induction = int(rng.integers(0, 300))
    samples = np.clip(np.rint(simulate_clean_map(rng, n_samples, induction)), 0, 399).astype(np.int64)
    samples = add_artefacts(rng, samples, induction + int(rng.integers(0, 600)))
    grid = samples.astype(np.float64)
    grid[(samples == NO_RECORD) | (samples == EMPTY)] = np.nan
    return mask_out_of_range(grid, 20, 200)


def bench_windows(n_cases: int, hours: float) -> None:
    definition = definition_from_spec(next(f.spec for f in load_task_files() if f.spec.task == "vitaldb-ioh@0"))
    n_samples = int(hours * 3600 / definition.grid_seconds)
    rng = np.random.default_rng(20260101)
    case_windows(synthetic_grid(rng, n_samples), None, definition)  # warm-up: imports, first allocations
    rss_start = peak_rss_mib()
    timed = featured = 0.0
    n_windows = n_positive = 0
    rss_tenth = rss_start
    for index in range(n_cases):
        grid = synthetic_grid(rng, n_samples)  # untimed
        started = time.perf_counter()
        windows = case_windows(grid, None, definition)
        timed += time.perf_counter() - started
        started = time.perf_counter()
        window_features(input_windows(grid, windows.starts, definition.input_samples))
        featured += time.perf_counter() - started
        n_windows += windows.starts.size
        n_positive += int(windows.labels.sum())
        if index + 1 == max(1, n_cases // 10):
            rss_tenth = peak_rss_mib()
    rss_end = peak_rss_mib()
    print(f"windowing + labelling: {n_cases:,} cases x {hours:g} h ({n_samples:,} samples each), one core")
    print(f"  windows kept: {n_windows:,}   positive: {n_positive:,} ({n_positive / max(n_windows, 1):.1%})")
    print(f"  time: {timed:.2f} s   target: <= {TARGET_SECONDS:.0f} s   ({1000 * timed / n_cases:.2f} ms per case)")
    print(f"  input windows + features (last, mean, min, slope), not in the target: {featured:.2f} s")
    print(
        f"  peak RSS growth: {rss_tenth - rss_start:.1f} MiB after {max(1, n_cases // 10):,} cases, "
        f"{rss_end - rss_start:.1f} MiB after {n_cases:,} (streams: bounded, not growing with cases)"
    )


def bench_files(n_cases: int) -> None:
    spec = next(f.spec for f in load_task_files() if f.spec.task == "vitaldb-ioh-synthetic@0")
    with tempfile.TemporaryDirectory() as directory:
        patients = max(1, round(n_cases / 1.24))  # the demo cohort has ~1.24 cases per patient
        summary = write_synthetic_cohort(Path(directory), CohortConfig(n_patients=patients, min_hours=4, max_hours=4))
        rss_start = rss_tenth = peak_rss_mib()
        started = time.perf_counter()
        n_read = n_windows = 0
        for case in iter_case_instances(Path(directory), spec):
            n_read += 1
            n_windows += case.t0.size
            if n_read == 20:
                rss_tenth = peak_rss_mib()
        elapsed = time.perf_counter() - started
    print(f"from files (.csv.gz: read + grid + windows + labels + features): {summary.n_cases:,} cases of 4 h")
    print(f"  adult cases with a file: {n_read:,}   windows: {n_windows:,}")
    print(f"  time: {elapsed:.2f} s ({1000 * elapsed / max(n_read, 1):.1f} ms per case)")
    print(
        f"  peak RSS growth: {rss_tenth - rss_start:.1f} MiB after 20 cases, "
        f"{peak_rss_mib() - rss_start:.1f} MiB after {n_read:,} "
        "(the first cases load pyarrow's CSV reader and its memory pool)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--hours", type=float, default=4.0)
    parser.add_argument("--file-cases", type=int, default=200, help="cases for the from-files pass (0: skip)")
    arguments = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    bench_windows(arguments.cases, arguments.hours)
    if arguments.file_cases > 0:
        bench_files(arguments.file_cases)


if __name__ == "__main__":
    main()
