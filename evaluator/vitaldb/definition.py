"""The numbers of a VitalDB hypotension task, read once from its spec into one frozen value.

Every other module of this package takes an `IohDefinition` rather than the raw spec dictionary, so a
field name is spelled in exactly one place and a spec that lacks a field fails when it is loaded, not
half-way through a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from evaluator.specs import TaskSpec


@dataclass(frozen=True)
class IohDefinition:
    """Signal, case, window, label and split rules of one `vitaldb-ioh*` task version."""

    task: str
    track: str
    grid_seconds: int
    valid_min_mmhg: float
    valid_max_mmhg: float
    min_age: float
    input_samples: int
    horizon_samples: int
    stride_samples: int
    max_missing_input: int
    max_missing_horizon: int
    threshold_mmhg: float
    min_run_samples: int
    split_salt: str
    split_modulus: int
    split_test_below: int
    case_table_file: str

    @property
    def window_samples(self) -> int:
        """Input plus horizon: the grid samples one window covers."""
        return self.input_samples + self.horizon_samples


def allowed_missing(samples: int, fraction: float | str) -> int:
    """Largest count of missing samples that is not "more than `fraction`" of `samples`.

    Exact rational arithmetic: 10% of 150 is 15, so 15 missing samples are kept and 16 are dropped.
    Binary floating point can land just below the integer (0.29 * 100 is 28.999999999999996), which
    would silently allow one sample fewer.
    """
    return int(Fraction(str(fraction)) * samples)


def _positive_int(section: dict[str, Any], key: str) -> int:
    value = section[key]
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"spec field {key!r} must be a positive integer, got {value!r}")
    return value


def definition_from_spec(spec: TaskSpec) -> IohDefinition:
    """Read the rules of a `binary_timeseries` VitalDB spec; raise ValueError when a field is missing."""
    raw = spec.as_dict()
    try:
        signal, cases, windows = raw["signal"], raw["cases"], raw["windows"]
        label, split, table = raw["label"], raw["split"], raw["dataset"]["case_table"]
    except KeyError as error:
        raise ValueError(f"{spec.task}: spec has no section {error}") from error
    if label["comparison"] != "<" or not label["missing_breaks_run"]:
        raise ValueError(f"{spec.task}: only 'MAP < threshold, missing breaks a run' labels are implemented")
    input_samples = _positive_int(windows, "input_samples")
    horizon_samples = _positive_int(windows, "horizon_samples")
    return IohDefinition(
        task=spec.task,
        track=str(signal["track"]),
        grid_seconds=_positive_int(signal, "grid_seconds"),
        valid_min_mmhg=float(signal["valid_min_mmhg"]),
        valid_max_mmhg=float(signal["valid_max_mmhg"]),
        min_age=float(cases["min_age"]),
        input_samples=input_samples,
        horizon_samples=horizon_samples,
        stride_samples=_positive_int(windows, "stride_samples"),
        max_missing_input=allowed_missing(input_samples, windows["max_missing_fraction_input"]),
        max_missing_horizon=allowed_missing(horizon_samples, windows["max_missing_fraction_horizon"]),
        threshold_mmhg=float(label["threshold_mmhg"]),
        min_run_samples=_positive_int(label, "min_run_samples"),
        split_salt=str(split["salt"]),
        split_modulus=_positive_int(split, "modulus"),
        split_test_below=int(split["test_below"]),
        case_table_file=str(table["file"]),
    )
