"""Coverage of 95% intervals on synthetic populations with a known truth (bench/coverage_study.py).

The bounded tests run in CI on the clustered populations with fewer datasets; the slow test runs the full
study. Every simulation is seeded, so each test gives the same numbers on every run.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest


def load_study() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "bench" / "coverage_study.py"
    spec = importlib.util.spec_from_file_location("coverage_study", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


study = load_study()
CLUSTERED_ACCURACY, UNCLUSTERED_ACCURACY, CLUSTERED_AUROC, UNCLUSTERED_AUROC = study.SCENARIOS


def lowest_plausible(datasets: int, nominal: float = 0.95) -> float:
    """Coverage 3.5 Monte Carlo standard errors below `nominal`: a correct procedure stays above it."""
    return nominal - 3.5 * math.sqrt(nominal * (1 - nominal) / datasets)


def test_true_auroc_of_the_synthetic_population_is_0_8() -> None:
    assert abs(study.TRUE_AUROC - 0.8) < 5e-4


def test_cluster_bootstrap_covers_true_accuracy_under_within_unit_correlation() -> None:
    result = study.study(CLUSTERED_ACCURACY, datasets=150, replicates=500)
    assert result.cluster >= lowest_plausible(150)
    assert result.naive <= 0.85
    assert result.cluster - result.naive >= 0.10
    assert result.cluster_width > 1.5 * result.naive_width


def test_cluster_bootstrap_covers_true_auroc_under_within_patient_correlation() -> None:
    result = study.study(CLUSTERED_AUROC, datasets=100, replicates=400)
    assert result.cluster >= lowest_plausible(100)
    assert result.naive <= 0.85
    assert result.cluster - result.naive >= 0.10


@pytest.mark.slow
def test_full_coverage_study_meets_the_targets() -> None:
    # The study whose table docs/methods.md shows: 1,000 datasets per population, 1,000 replicates each.
    results = {scenario: study.study(scenario, datasets=1000, replicates=1000) for scenario in study.SCENARIOS}
    for scenario in (CLUSTERED_ACCURACY, CLUSTERED_AUROC):
        assert 0.93 <= results[scenario].cluster <= 0.97, results[scenario]
        assert results[scenario].naive < 0.90, results[scenario]
    for scenario in (UNCLUSTERED_ACCURACY, UNCLUSTERED_AUROC):
        assert results[scenario].cluster >= lowest_plausible(1000), results[scenario]
        assert results[scenario].naive >= lowest_plausible(1000), results[scenario]
