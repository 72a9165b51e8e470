"""Coverage study: how often do 95% bootstrap intervals contain the true accuracy and AUROC?

Synthetic populations with a known truth, with and without within-unit correlation; for each simulated
dataset, a cluster bootstrap (units resampled) and a naive item bootstrap (every item its own unit) both give
a 95% percentile interval, and we count how often each contains the truth.

    .venv/bin/python bench/coverage_study.py [--datasets 1000] [--replicates 1000]

Populations (fixed here, printed with the table):
- accuracy: units of `items_per_unit` items. Clustered: each unit's chance of a correct answer is drawn from
  Beta(mean 0.7005, intra-unit correlation 0.3); unclustered: every item is correct with probability
  0.7005. True accuracy = 0.7005, halfway between two attainable accuracies of 1,000 items, so that an
  interval edge landing exactly on the truth cannot inflate coverage.
- AUROC: patients with `items_per_unit` windows. Clustered: each patient's prevalence is drawn from
  Beta(mean 0.3, correlation 0.3) and a patient effect b ~ N(0, 0.5) shifts all of their scores;
  unclustered: prevalence 0.3 for every window and no patient effect. A window's score is
  1.19 * label + b + e, with e ~ N(0, 1 - var(b)), so a positive and a negative window from different
  patients differ by N(1.19, 2): true AUROC = Phi(1.19 / sqrt 2) = 0.800. (Pairs inside one patient, a
  share of about 1 / units of all pairs, are easier; their pull on the estimate is below 0.001 here.)
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evaluator import stats

TRUE_ACCURACY = 0.7005  # halfway between attainable accuracies (steps of 1/1000)
SCORE_SHIFT = 1.19
TRUE_AUROC = 0.5 * (1.0 + math.erf(SCORE_SHIFT / math.sqrt(2.0) / math.sqrt(2.0)))
PREVALENCE = 0.3
INTRA_UNIT_CORRELATION = 0.3
PATIENT_EFFECT_VARIANCE = 0.5


@dataclass(frozen=True)
class Scenario:
    """One synthetic population and the sample drawn from it for every dataset."""

    metric: stats.Metric
    clustered: bool
    n_units: int
    items_per_unit: int

    @property
    def name(self) -> str:
        return f"{self.metric}, {'clustered' if self.clustered else 'unclustered'}"

    @property
    def truth(self) -> float:
        return TRUE_ACCURACY if self.metric == "accuracy" else TRUE_AUROC


@dataclass(frozen=True)
class Coverage:
    """Share of intervals containing the truth, per procedure, over `datasets` simulated datasets."""

    scenario: Scenario
    datasets: int
    cluster: float
    naive: float
    cluster_width: float
    naive_width: float

    @property
    def standard_error(self) -> float:
        """Monte Carlo standard error of a coverage share near 95%."""
        return math.sqrt(0.95 * 0.05 / self.datasets)


SCENARIOS = (
    Scenario("accuracy", True, 100, 10),
    Scenario("accuracy", False, 100, 10),
    Scenario("auroc", True, 200, 20),
    Scenario("auroc", False, 200, 20),
)


def beta_with_correlation(rng: np.random.Generator, mean: float, correlation: float, size: int) -> np.ndarray:
    """Per-unit probabilities with the given mean; items sharing one have this intra-unit correlation."""
    concentration = 1.0 / correlation - 1.0
    return rng.beta(mean * concentration, (1.0 - mean) * concentration, size=size)


def simulate_accuracy(rng: np.random.Generator, scenario: Scenario) -> dict[str, np.ndarray]:
    units = np.repeat(np.arange(scenario.n_units), scenario.items_per_unit)
    if scenario.clustered:
        chance = beta_with_correlation(rng, TRUE_ACCURACY, INTRA_UNIT_CORRELATION, scenario.n_units)[units]
    else:
        chance = np.full(units.size, TRUE_ACCURACY)
    return {"units": units, "correct": rng.random(units.size) < chance}


def simulate_auroc(rng: np.random.Generator, scenario: Scenario) -> dict[str, np.ndarray]:
    units = np.repeat(np.arange(scenario.n_units), scenario.items_per_unit)
    effect_variance = PATIENT_EFFECT_VARIANCE if scenario.clustered else 0.0
    if scenario.clustered:
        prevalence = beta_with_correlation(rng, PREVALENCE, INTRA_UNIT_CORRELATION, scenario.n_units)[units]
    else:
        prevalence = np.full(units.size, PREVALENCE)
    labels = rng.random(units.size) < prevalence
    patient_effect = rng.normal(0.0, math.sqrt(effect_variance), scenario.n_units)[units]
    noise = rng.normal(0.0, math.sqrt(1.0 - effect_variance), units.size)
    return {"units": units, "labels": labels, "scores": SCORE_SHIFT * labels + patient_effect + noise}


SIMULATORS: dict[str, Callable[[np.random.Generator, Scenario], dict[str, np.ndarray]]] = {
    "accuracy": simulate_accuracy,
    "auroc": simulate_auroc,
}


def interval(
    scenario: Scenario, data: dict[str, np.ndarray], naive: bool, replicates: int, key: str
) -> tuple[float, float]:
    """95% percentile interval from a cluster bootstrap, or from a naive item bootstrap when `naive`."""
    units = np.arange(data["units"].size) if naive else data["units"]
    estimate = stats.bootstrap_metric(
        scenario.metric,
        units=units,
        replicates=replicates,
        rng=stats.rng_from_key(key),
        correct=data.get("correct"),
        labels=data.get("labels"),
        scores=data.get("scores"),
    )
    if estimate.ci_low is None or estimate.ci_high is None:
        raise RuntimeError(f"no interval for {key}: {estimate}")
    return estimate.ci_low, estimate.ci_high


def study(scenario: Scenario, datasets: int, replicates: int, seed: int = 0) -> Coverage:
    """Coverage of both procedures over `datasets` datasets simulated with a generator seeded by `seed`."""
    rng = stats.rng_from_key(f"coverage-data:{scenario.name}:{scenario.n_units}:{seed}")
    hits = {False: 0, True: 0}
    widths = {False: 0.0, True: 0.0}
    for index in range(datasets):
        data = SIMULATORS[scenario.metric](rng, scenario)
        for naive in (False, True):
            low, high = interval(scenario, data, naive, replicates, f"coverage:{scenario.name}:{seed}:{index}")
            hits[naive] += low <= scenario.truth <= high
            widths[naive] += high - low
    return Coverage(
        scenario,
        datasets,
        hits[False] / datasets,
        hits[True] / datasets,
        widths[False] / datasets,
        widths[True] / datasets,
    )


def table(rows: list[Coverage]) -> str:
    """The coverage table in Markdown."""
    lines = [
        "| population | units x items | truth | cluster bootstrap | naive item bootstrap "
        "| mean width (cluster / naive) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        scenario = row.scenario
        lines.append(
            f"| {scenario.name} | {scenario.n_units} x {scenario.items_per_unit} | {scenario.truth:.4f} "
            f"| {row.cluster:.1%} | {row.naive:.1%} | {row.cluster_width:.3f} / {row.naive_width:.3f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=1000, help="simulated datasets per population")
    parser.add_argument("--replicates", type=int, default=1000, help="bootstrap replicates per interval")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    started = time.perf_counter()
    rows = [study(scenario, arguments.datasets, arguments.replicates, arguments.seed) for scenario in SCENARIOS]
    print(table(rows))
    print(
        f"\n{arguments.datasets} datasets per population, {arguments.replicates} replicates per interval, "
        f"seed {arguments.seed}; Monte Carlo standard error of a 95% coverage: "
        f"{rows[0].standard_error:.1%}; {time.perf_counter() - started:.0f} s wall on {os.cpu_count()} "
        "shared CPUs."
    )


if __name__ == "__main__":
    main()
