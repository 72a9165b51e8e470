"""The three VitalDB baselines as pure, deterministic functions of training and test window features.

`score_windows(model_name, train_features, train_labels, test_features)` returns one float64 score per
test window (higher = hypotension more likely). Features are the columns of `features.window_features`
(last, mean, min, slope). The harness trains on the non-test windows only and scores the test windows.

- `prevalence`: every test window scores the training prevalence (AUROC 0.5 by construction).
- `last-map`: score = -(last present MAP of the input window); persistence, a hard baseline.
- `logistic`: scikit-learn `LogisticRegression` (lbfgs, C=1, random_state=0, max_iter=1000) on the four
  features, each standardised with the training mean and standard deviation (a constant feature is
  centred only). A non-finite feature is replaced by its training mean; training rows with one are dropped.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from evaluator.vitaldb.features import FEATURE_NAMES, LAST

FloatArray = npt.NDArray[np.float64]
MODEL_NAMES = ("prevalence", "last-map", "logistic")


def _check_shapes(train_features: FloatArray, train_labels: npt.NDArray[np.integer], test_features: FloatArray) -> None:
    width = len(FEATURE_NAMES)
    if (
        train_features.ndim != 2
        or train_features.shape[1] != width
        or test_features.ndim != 2
        or (test_features.shape[1] != width)
    ):
        raise ValueError(f"features must be (n, {width}) arrays; got {train_features.shape} and {test_features.shape}")
    if train_labels.shape != (train_features.shape[0],):
        raise ValueError(f"{train_labels.shape[0]} training labels for {train_features.shape[0]} training rows")
    if train_labels.size == 0:
        raise ValueError("no training windows: the baselines need the non-test split")


def prevalence_scores(
    train_features: FloatArray, train_labels: npt.NDArray[np.integer], test_features: FloatArray
) -> FloatArray:
    return np.full(test_features.shape[0], float(np.mean(train_labels)), dtype=np.float64)


def last_map_scores(
    train_features: FloatArray, train_labels: npt.NDArray[np.integer], test_features: FloatArray
) -> FloatArray:
    return -np.asarray(test_features[:, LAST], dtype=np.float64)


def logistic_scores(
    train_features: FloatArray, train_labels: npt.NDArray[np.integer], test_features: FloatArray
) -> FloatArray:
    # imported here: scikit-learn is slow to import
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped, unused-ignore]

    finite = np.isfinite(train_features).all(axis=1)
    features, labels = train_features[finite], train_labels[finite]
    if np.unique(labels).size < 2:
        raise ValueError("logistic baseline: the training windows hold a single class")
    centre = features.mean(axis=0)
    spread = features.std(axis=0)
    spread[spread == 0] = 1.0
    test = np.where(np.isfinite(test_features), test_features, centre)
    model = LogisticRegression(solver="lbfgs", C=1.0, random_state=0, max_iter=1000)
    model.fit((features - centre) / spread, labels)
    return np.asarray(model.predict_proba((test - centre) / spread)[:, 1], dtype=np.float64)


Baseline = Callable[[FloatArray, npt.NDArray[np.integer], FloatArray], FloatArray]
BASELINES: dict[str, Baseline] = {
    "prevalence": prevalence_scores,
    "last-map": last_map_scores,
    "logistic": logistic_scores,
}


def score_windows(
    model_name: str,
    train_features: FloatArray,
    train_labels: npt.NDArray[np.integer],
    test_features: FloatArray,
) -> FloatArray:
    """Scores of the test windows under baseline `model_name` (one of MODEL_NAMES)."""
    if model_name not in BASELINES:
        raise ValueError(f"unknown VitalDB baseline {model_name!r}; known: {', '.join(MODEL_NAMES)}")
    train = np.asarray(train_features, dtype=np.float64)
    test = np.asarray(test_features, dtype=np.float64)
    labels = np.asarray(train_labels)
    _check_shapes(train, labels, test)
    return BASELINES[model_name](train, labels, test)
