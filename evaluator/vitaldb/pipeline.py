"""What the harness calls: stream a data directory's windows case by case, under a task spec.

    iter_case_instances(data_dir, spec, *, include_inputs=False) -> Iterator[CaseInstances]
        Reads `cases.csv`, then each included case's file in caseid order, one case in memory at a time.
        Included: age >= min_age and a case file that holds the track (a `.vital` file without the track
        or a CSV without its column is skipped, as VitalDB cases without an arterial line are). A case
        without any file is skipped (run `check.check_data_dir` first to learn how many); an unreadable
        file, a CSV without the Time column or two files for one case raises `CaseFileError`. A case with
        no kept window is still yielded, with empty arrays.

    collect_windows(data_dir, spec) -> SplitWindows
        All windows' ids, units, labels, features and test flags in one set of arrays; unlike the stream,
        its memory grows with the number of windows (two id strings and 4 float64 features each).

    baseline_predictions(model_name, windows) -> dict[str, list]
        Trains `model_name` on the non-test windows, scores the test windows, and returns the columns of
        `evaluator.kinds.binary_timeseries.BINARY_SCHEMA` (instance_id, unit_id, label, score) for the test windows.

Per case, `CaseInstances` holds: caseid, subjectid (the unit), test (the subject's split), t0 (input
start, seconds since casestart), labels (int8), features (n x 4: last, mean, min, slope) and, when asked,
inputs (n x input_samples MAP values, NaN = missing). instance_ids and unit_ids are derived properties.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evaluator.specs import TaskSpec
from evaluator.vitaldb.baselines import score_windows
from evaluator.vitaldb.cases import Case, analysed_span, is_adult, is_test_subject, read_case_table
from evaluator.vitaldb.definition import IohDefinition, definition_from_spec
from evaluator.vitaldb.features import FEATURE_NAMES, window_features
from evaluator.vitaldb.signals import TrackNotFound, index_case_files, read_case_grid, single_case_file
from evaluator.vitaldb.windows import case_windows, input_windows

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
LabelArray = npt.NDArray[np.int8]


@dataclass(frozen=True)
class CaseInstances:
    """The kept windows of one included case."""

    caseid: int
    subjectid: str
    test: bool
    t0: IntArray
    labels: LabelArray
    features: FloatArray
    inputs: FloatArray | None

    @property
    def instance_ids(self) -> list[str]:
        return [f"{self.caseid}:{t0}" for t0 in self.t0.tolist()]

    @property
    def unit_ids(self) -> list[str]:
        return [self.subjectid] * int(self.t0.size)


@dataclass(frozen=True)
class SplitWindows:
    """Every window of a data directory, in caseid then t0 order."""

    instance_ids: list[str]
    unit_ids: list[str]
    labels: LabelArray
    features: FloatArray
    test: npt.NDArray[np.bool_]


def case_instances(case: Case, grid: FloatArray, definition: IohDefinition, include_inputs: bool) -> CaseInstances:
    """Windows, labels, features and split flag of one case from its range-masked grid."""
    windows = case_windows(grid, analysed_span(case), definition)
    inputs = input_windows(grid, windows.starts, definition.input_samples)
    return CaseInstances(
        caseid=case.caseid,
        subjectid=case.subjectid,
        test=is_test_subject(
            case.subjectid, definition.split_salt, definition.split_modulus, definition.split_test_below
        ),
        t0=windows.starts * definition.grid_seconds,
        labels=windows.labels,
        features=window_features(inputs, definition.grid_seconds),
        inputs=inputs if include_inputs else None,
    )


def iter_case_instances(data_dir: Path, spec: TaskSpec, *, include_inputs: bool = False) -> Iterator[CaseInstances]:
    """Stream the included cases of `data_dir` under `spec` (see the module docstring)."""
    definition = definition_from_spec(spec)
    cases = read_case_table(data_dir / definition.case_table_file)
    files = index_case_files(data_dir)
    for case in cases:
        if not is_adult(case, definition.min_age) or case.caseid not in files:
            continue
        case_file = single_case_file(case.caseid, files[case.caseid])
        try:
            grid = read_case_grid(
                case_file,
                definition.track,
                definition.grid_seconds,
                definition.valid_min_mmhg,
                definition.valid_max_mmhg,
            )
        except TrackNotFound:
            continue
        yield case_instances(case, grid, definition, include_inputs)


def collect_windows(data_dir: Path, spec: TaskSpec) -> SplitWindows:
    """Every window of `data_dir` with its features and split flag (features only, no inputs)."""
    instance_ids: list[str] = []
    unit_ids: list[str] = []
    labels: list[LabelArray] = [np.empty(0, dtype=np.int8)]
    features: list[FloatArray] = [np.empty((0, len(FEATURE_NAMES)), dtype=np.float64)]
    test: list[npt.NDArray[np.bool_]] = [np.empty(0, dtype=np.bool_)]
    for case in iter_case_instances(data_dir, spec):
        instance_ids += case.instance_ids
        unit_ids += case.unit_ids
        labels.append(case.labels)
        features.append(case.features)
        test.append(np.full(case.t0.size, case.test, dtype=np.bool_))
    return SplitWindows(instance_ids, unit_ids, np.concatenate(labels), np.concatenate(features), np.concatenate(test))


def baseline_predictions(model_name: str, windows: SplitWindows) -> dict[str, list[Any]]:
    """BINARY_SCHEMA columns for the test windows, scored by a baseline trained on the other windows."""
    train = ~windows.test
    scores = score_windows(model_name, windows.features[train], windows.labels[train], windows.features[windows.test])
    test_rows = np.flatnonzero(windows.test).tolist()
    return {
        "instance_id": [windows.instance_ids[row] for row in test_rows],
        "unit_id": [windows.unit_ids[row] for row in test_rows],
        "label": windows.labels[windows.test].tolist(),
        "score": scores.tolist(),
    }
