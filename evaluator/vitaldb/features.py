"""Window features for the baselines: last, mean, min and slope of the input's present samples.

`window_features(inputs, grid_seconds)` takes an (n_windows, input_samples) array with NaN for missing
samples and returns an (n_windows, 4) float64 array, columns in `FEATURE_NAMES` order:
- last: the last present sample (mmHg);
- mean, min: over present samples (mmHg);
- slope: the least-squares slope of present samples against their time, in mmHg per minute.
A window with no present sample has NaN features, and slope is NaN with fewer than two present samples;
no numpy warning is raised either way (kept windows have at least 90% of their samples present).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
FEATURE_NAMES = ("last", "mean", "min", "slope")
LAST, MEAN, MIN, SLOPE = range(4)


def _safe_divide(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    out = np.full(numerator.shape, np.nan, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def window_features(inputs: FloatArray, grid_seconds: float = 2.0) -> FloatArray:
    """Features of each window (rows); see the module docstring."""
    values = np.asarray(inputs, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"inputs must be 2-D (windows x samples), got shape {values.shape}")
    present = ~np.isnan(values)
    count = present.sum(axis=1).astype(np.float64)
    filled = np.where(present, values, 0.0)
    mean = _safe_divide(filled.sum(axis=1), count)
    minimum = np.where(present, values, np.inf).min(axis=1, initial=np.inf)
    minimum[count == 0] = np.nan
    last_index = values.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1)
    last = values[np.arange(values.shape[0]), last_index]  # NaN when the row has no present sample
    minutes = np.arange(values.shape[1], dtype=np.float64) * (grid_seconds / 60.0)
    mean_time = _safe_divide((present * minutes).sum(axis=1), count)
    time_deviation = np.where(present, minutes - mean_time[:, None], 0.0)
    value_deviation = np.where(present, values - mean[:, None], 0.0)
    slope = _safe_divide((time_deviation * value_deviation).sum(axis=1), (time_deviation**2).sum(axis=1))
    return np.column_stack([last, mean, minimum, slope])
