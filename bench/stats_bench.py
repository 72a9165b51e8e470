"""Benchmark of evaluator.stats / evaluator.ranks against scipy.stats.bootstrap, side by side, one core.

    .venv/bin/python bench/stats_bench.py [--repeats 3] [--scipy-auroc-resamples 100]

1. Rank ranges, 50 models x 1,045 questions x 2,000 replicates (target <= 1 s), against
   scipy.stats.bootstrap in two forms: resampling question indices with a vectorized statistic that scores
   and ranks all 50 models per resample (the fastest form we found), and the textbook paired form (the 50
   models' vectors as samples, `paired=True`).
2. AUROC interval, 200,000 windows in 3,000 patients x 2,000 replicates (target <= 5 s, peak <= 2 GiB),
   against scipy.stats.bootstrap resampling *patient* indices (the only way to express the cluster
   structure in scipy) with a statistic that gathers the drawn patients' windows and calls
   sklearn.metrics.roc_auc_score. That takes ~0.1 s per resample here, so by default it is timed on a
   subset of resamples and extrapolated linearly to 2,000 (labelled as such in the output).

Peak memory of the AUROC interval is measured twice: the tracemalloc peak during the call (numpy reports
its allocations to tracemalloc), and the peak RSS (VmHWM in /proc/self/status, i.e. the kernel's
high-water mark of resident memory) of a fresh subprocess that only builds the data and computes the
interval; its peak before the call, interpreter, numpy, scipy and scikit-learn included, is printed beside
it.

BLAS and OpenMP are limited to one thread below, before numpy is imported. Times are wall-clock
(time.perf_counter); the CPU time of the process (time.process_time) is printed beside them because the
machine is shared and wall time includes waiting for a core.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import scipy.stats  # type: ignore[import-untyped]  # noqa: E402
from sklearn.metrics import roc_auc_score  # type: ignore[import-untyped]  # noqa: E402

from evaluator import ranks, stats  # noqa: E402

REPLICATES = 2000


@dataclass(frozen=True)
class Timing:
    """Wall and CPU seconds of the fastest of several runs, and the median wall time."""

    wall: float
    cpu: float
    median_wall: float
    runs: int

    def __str__(self) -> str:
        return f"{self.wall:7.3f} s wall (best of {self.runs}; median {self.median_wall:.3f} s), {self.cpu:.3f} s CPU"


def timed(function: Callable[[], Any], repeats: int) -> tuple[Timing, Any]:
    runs: list[tuple[float, float]] = []
    result: Any = None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = function()
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    best = min(runs)
    return Timing(best[0], best[1], statistics.median(wall for wall, _ in runs), repeats), result


def question_data() -> np.ndarray:
    """50 models x 1,045 questions, accuracies spread from 0.45 to 0.80 (some close, some far apart)."""
    rng = np.random.default_rng(20)
    skill = np.linspace(0.45, 0.80, 50)
    return rng.random((50, 1045)) < skill[:, None]


def window_data() -> dict[str, np.ndarray]:
    """200,000 windows in 3,000 patients of unequal size, 15% positives, with a patient effect on scores."""
    rng = np.random.default_rng(21)
    sizes = rng.multinomial(200_000 - 3000, rng.dirichlet(np.full(3000, 2.0))) + 1
    units = np.repeat(np.arange(3000), sizes)
    prevalence = rng.beta(0.15 * 4, 0.85 * 4, 3000)[units]
    labels = rng.random(units.size) < prevalence
    scores = 1.2 * labels + rng.normal(0, 0.7, 3000)[units] + rng.normal(0, 0.7, units.size)
    return {"units": units, "labels": labels, "scores": scores}


def our_rank_ranges(correct: np.ndarray) -> ranks.RankRanges:
    return ranks.rank_ranges(
        "accuracy",
        units=np.arange(correct.shape[1]),
        replicates=REPLICATES,
        rng=stats.rng_from_key("bench-ranks"),
        correct=correct,
    )


def scipy_rank_ranges(correct: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    def rank_statistic(questions: np.ndarray, axis: int = -1) -> np.ndarray:
        accuracy = correct[:, questions].mean(axis=-1)  # models x resamples
        ranked: np.ndarray = scipy.stats.rankdata(-accuracy, method="min", axis=0).astype(np.float64)
        return ranked

    result = scipy.stats.bootstrap(
        (np.arange(correct.shape[1]),),
        rank_statistic,
        n_resamples=REPLICATES,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(22),
    )
    return np.floor(result.confidence_interval.low), np.ceil(result.confidence_interval.high)


def scipy_paired_rank_ranges(correct: np.ndarray) -> Any:
    """The textbook scipy form: the 50 models' vectors as paired samples, resampled with shared indices."""

    def rank_statistic(*models: np.ndarray, axis: int = -1) -> np.ndarray:
        accuracy = np.stack([model.mean(axis=axis) for model in models])
        ranked: np.ndarray = scipy.stats.rankdata(-accuracy, method="min", axis=0).astype(np.float64)
        return ranked

    return scipy.stats.bootstrap(
        tuple(correct.astype(np.float64)),
        rank_statistic,
        n_resamples=REPLICATES,
        method="percentile",
        vectorized=True,
        paired=True,
        rng=np.random.default_rng(24),
    )


def our_auroc(data: dict[str, np.ndarray]) -> stats.Estimate:
    return stats.bootstrap_metric(
        "auroc",
        units=data["units"],
        replicates=REPLICATES,
        rng=stats.rng_from_key("bench-auroc"),
        labels=data["labels"],
        scores=data["scores"],
    )


def scipy_auroc(data: dict[str, np.ndarray], resamples: int) -> Any:
    order = np.argsort(data["units"], kind="stable")
    windows_of = np.split(order, np.cumsum(np.bincount(data["units"]))[:-1])

    def patient_statistic(patients: np.ndarray) -> float:
        windows = np.concatenate([windows_of[patient] for patient in patients])
        return float(roc_auc_score(data["labels"][windows], data["scores"][windows]))

    return scipy.stats.bootstrap(
        (np.arange(len(windows_of)),),
        patient_statistic,
        n_resamples=resamples,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(23),
    )


def peak_rss_bytes() -> int:
    """This process's peak RSS: VmHWM from /proc/self/status (reset by exec, unlike ru_maxrss, which a
    child inherits from the process it was forked from), else getrusage's ru_maxrss."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def probe_memory() -> None:
    """In a fresh process: peak RSS before the AUROC interval and after it, in bytes."""
    data = window_data()
    before = peak_rss_bytes()
    our_auroc(data)
    print(before, peak_rss_bytes())


def peak_rss_of_fresh_process() -> tuple[int, int]:
    """Peak RSS of a separate process that only builds the data and computes our AUROC interval."""
    probe = subprocess.run([sys.executable, __file__, "--probe-memory"], check=True, capture_output=True, text=True)
    before, after = probe.stdout.split()
    return int(before), int(after)


def peak_traced_bytes(function: Callable[[], Any]) -> int:
    """Peak bytes allocated through Python's allocator and numpy (tracemalloc) while `function` runs."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def verdict(value: float, target: float, unit: str, higher_is_better: bool = False) -> str:
    met = value >= target if higher_is_better else value <= target
    return f"[{'meets' if met else 'MISSES'} target {'>=' if higher_is_better else '<='} {target:g}{unit}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of our functions; the fastest is reported")
    parser.add_argument(
        "--scipy-auroc-resamples",
        type=int,
        default=100,
        help="resamples timed for scipy's AUROC bootstrap, extrapolated linearly to 2,000 (2000 = full run)",
    )
    parser.add_argument("--probe-memory", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.probe_memory:
        probe_memory()
        return
    print("single-threaded BLAS/OpenMP: OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1 (before numpy)")
    print(f"numpy {np.__version__}, scipy {scipy.__version__}; {os.cpu_count()} CPUs shared with other work")
    print(f"load average before: {' '.join(f'{load:.2f}' for load in os.getloadavg())}\n")

    correct = question_data()
    ours_ranks, ranges = timed(lambda: our_rank_ranges(correct), arguments.repeats)
    scipy_ranks, (scipy_best, scipy_worst) = timed(lambda: scipy_rank_ranges(correct), arguments.repeats)
    scipy_paired, _ = timed(lambda: scipy_paired_rank_ranges(correct), 1)
    agree = int(((np.abs(ranges.best - scipy_best) <= 1) & (np.abs(ranges.worst - scipy_worst) <= 1)).sum())
    print("1. rank ranges, 50 models x 1,045 questions x 2,000 replicates")
    print(f"   evaluator.ranks.rank_ranges            : {ours_ranks}   {verdict(ours_ranks.wall, 1, ' s')}")
    print(f"   scipy.stats.bootstrap, question indices: {scipy_ranks}")
    print(f"   scipy.stats.bootstrap, paired=True     : {scipy_paired}")
    for name, theirs in (("question indices", scipy_ranks), ("paired=True", scipy_paired)):
        wall, cpu = theirs.wall / ours_ranks.wall, theirs.cpu / ours_ranks.cpu
        print(
            f"   speed ratio vs {name:<16}: {wall:.1f}x wall, {cpu:.1f}x CPU   {verdict(min(wall, cpu), 10, 'x', True)}"
        )
    print(f"   ranges within 1 rank of scipy's (question indices) on both ends: {agree} of 50 models\n")

    data = window_data()
    ours_auroc, estimate = timed(lambda: our_auroc(data), arguments.repeats)
    rss_before, rss_peak = peak_rss_of_fresh_process()
    traced = peak_traced_bytes(lambda: our_auroc(data))
    subset = arguments.scipy_auroc_resamples
    scipy_part, scipy_result = timed(lambda: scipy_auroc(data, subset), 1)
    scale = REPLICATES / subset
    scipy_wall = scipy_part.wall * scale
    print("2. AUROC interval, 200,000 windows in 3,000 patients x 2,000 replicates")
    print(f"   evaluator.stats.bootstrap_metric: {ours_auroc}   {verdict(ours_auroc.wall, 5, ' s')}")
    print(f"     AUROC {estimate.value:.4f}, 95% CI [{estimate.ci_low:.4f}, {estimate.ci_high:.4f}]")
    print(
        f"   peak memory: {traced / 2**20:.0f} MiB allocated during the call (tracemalloc peak); peak RSS "
        f"{rss_peak / 2**20:.0f} MiB of a fresh process running only this ({rss_before / 2**20:.0f} MiB "
        f"before the call; /proc VmHWM)   {verdict(max(traced, rss_peak) / 2**30, 2, ' GiB')}"
    )
    label = "full run" if subset == REPLICATES else f"{subset} resamples timed, x{scale:g} extrapolated linearly"
    print(
        f"   scipy.stats.bootstrap + roc_auc_score: {scipy_wall:8.1f} s wall ({label}; "
        f"measured {scipy_part.wall:.2f} s wall, {scipy_part.cpu:.2f} s CPU)"
    )
    ci = scipy_result.confidence_interval
    print(f"     its CI from those {subset} resamples: [{ci.low:.4f}, {ci.high:.4f}]")
    wall, cpu = scipy_wall / ours_auroc.wall, scipy_part.cpu * scale / ours_auroc.cpu
    print(
        f"   speed ratio                     : {wall:.0f}x wall, {cpu:.0f}x CPU   "
        f"{verdict(min(wall, cpu), 10, 'x', True)}"
    )
    print(f"\nload average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
