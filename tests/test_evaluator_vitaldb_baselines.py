"""Window features and the three VitalDB baselines."""

from __future__ import annotations

import numpy as np
import pytest

from evaluator.vitaldb.baselines import MODEL_NAMES, score_windows
from evaluator.vitaldb.features import FEATURE_NAMES, window_features


def test_features_of_a_straight_line_are_its_last_mean_min_and_slope_per_minute() -> None:
    inputs = np.array([80.0 - 0.5 * np.arange(150)])  # -0.5 mmHg per 2-s sample = -15 mmHg/min
    last, mean, minimum, slope = window_features(inputs, grid_seconds=2)[0]
    assert last == 80.0 - 0.5 * 149 and minimum == last
    assert mean == pytest.approx(80.0 - 0.5 * 74.5)
    assert slope == pytest.approx(-15.0)


def test_features_ignore_missing_samples_and_take_the_last_present_one() -> None:
    row = np.full(150, 70.0)
    row[::2] = 90.0
    row[140:] = np.nan
    row[10] = 40.0
    last, mean, minimum, slope = window_features(row[None, :], grid_seconds=2)[0]
    present = row[~np.isnan(row)]
    assert last == row[139] == 70.0
    assert mean == pytest.approx(present.mean()) and minimum == 40.0
    times = np.arange(150)[~np.isnan(row)] * 2 / 60
    assert slope == pytest.approx(np.polyfit(times, present, 1)[0])


def test_features_of_windows_with_no_or_one_present_sample_are_nan_without_warnings() -> None:
    inputs = np.full((2, 150), np.nan)
    inputs[1, 30] = 66.0
    features = window_features(inputs)  # filterwarnings=error: any numpy warning would fail here
    assert np.isnan(features[0]).all()
    np.testing.assert_array_equal(features[1, :3], [66.0, 66.0, 66.0])
    assert np.isnan(features[1, 3])
    assert features.shape == (2, len(FEATURE_NAMES))


def separable_training_set(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = (rng.random(400) < 0.2).astype(np.int8)
    last = np.where(labels == 1, rng.normal(62, 4, 400), rng.normal(85, 8, 400))
    features = np.column_stack([last, last + rng.normal(0, 2, 400), last - 5, rng.normal(0, 1, 400)])
    return features, labels


def test_prevalence_scores_every_window_with_the_training_prevalence() -> None:
    features, labels = separable_training_set()
    scores = score_windows("prevalence", features, labels, features[:7])
    np.testing.assert_array_equal(scores, np.full(7, labels.mean()))


def test_last_map_scores_are_minus_the_last_present_map() -> None:
    features, labels = separable_training_set()
    np.testing.assert_array_equal(score_windows("last-map", features, labels, features[:5]), -features[:5, 0])


def test_logistic_ranks_low_pressure_windows_higher_and_is_deterministic() -> None:
    features, labels = separable_training_set()
    test_features = np.array([[55.0, 56.0, 50.0, -3.0], [95.0, 94.0, 90.0, 1.0]])
    first = score_windows("logistic", features, labels, test_features)
    again = score_windows("logistic", features.copy(), labels.copy(), test_features.copy())
    assert first.tobytes() == again.tobytes()
    assert first[0] > 0.5 > first[1]
    assert first.dtype == np.float64 and first.shape == (2,)


def test_logistic_replaces_non_finite_test_features_by_the_training_mean() -> None:
    features, labels = separable_training_set()
    with_nan = np.array([[np.nan, np.nan, np.nan, np.nan]])
    at_mean = features.mean(axis=0, keepdims=True)
    np.testing.assert_allclose(
        score_windows("logistic", features, labels, with_nan),
        score_windows("logistic", features, labels, at_mean),
    )


def test_logistic_with_a_single_training_class_is_refused() -> None:
    features, _ = separable_training_set()
    with pytest.raises(ValueError, match="single class"):
        score_windows("logistic", features, np.zeros(400, dtype=np.int8), features[:3])


def test_unknown_model_and_mismatched_shapes_are_refused() -> None:
    features, labels = separable_training_set()
    with pytest.raises(ValueError, match="unknown VitalDB baseline"):
        score_windows("gpt", features, labels, features)
    with pytest.raises(ValueError, match="training labels"):
        score_windows("prevalence", features, labels[:10], features)
    with pytest.raises(ValueError, match=r"\(n, 4\)"):
        score_windows("prevalence", features[:, :3], labels, features)
    with pytest.raises(ValueError, match="no training windows"):
        score_windows("prevalence", features[:0], labels[:0], features)
    assert MODEL_NAMES == ("prevalence", "last-map", "logistic")
