"""Yes-or-no prediction from a time series (`binary_timeseries`): windows of a VitalDB cohort scored by a
baseline (trained on the other windows) or a command; AUROC and AUPRC with cluster-bootstrap intervals over the
spec's unit (patients), plus prevalence. A chat endpoint cannot answer it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pyarrow as pa

from evaluator import stats
from evaluator.adapters import AdapterError, ItemOutput
from evaluator.kinds.base import DataProblem, DataReport, Display, Source, TaskKind
from evaluator.predictions import instance_set_hash
from evaluator.runner import Computation, bootstrap
from evaluator.specs import TaskSpec
from evaluator.vitaldb import pipeline
from evaluator.vitaldb.cases import CaseTableError
from evaluator.vitaldb.check import check_data_dir
from evaluator.vitaldb.signals import CaseFileError
from evaluator.vitaldb.synthetic import CohortConfig, write_synthetic_cohort

BINARY_SCHEMA = pa.schema(
    [
        pa.field("instance_id", pa.string(), nullable=False),
        pa.field("unit_id", pa.string(), nullable=False),
        pa.field("label", pa.int8(), nullable=False),
        pa.field("score", pa.float64(), nullable=False),
    ]
)
DATA_ERRORS = (CaseFileError, CaseTableError, OSError, EOFError, UnicodeDecodeError)


def unreadable(data: Path, error: Exception) -> DataProblem:
    """A case table or case file that cannot be read, said in one line (never a traceback)."""
    return DataProblem(f"cannot read the data at {data}: {error}"[:2000])


@dataclass(frozen=True)
class TestWindows:
    """The scored (test) windows of a time-series task, in caseid then t0 order."""

    instance_ids: list[str]
    unit_ids: list[str]
    labels: list[int]
    windows: pipeline.SplitWindows


def load_windows(data: Path, spec: TaskSpec, limit: int | None) -> TestWindows:
    try:
        windows = pipeline.collect_windows(data, spec)
    except DATA_ERRORS as error:
        raise unreadable(data, error) from None
    rows = [row for row, test in enumerate(windows.test.tolist()) if test][:limit]
    return TestWindows(
        [windows.instance_ids[r] for r in rows],
        [windows.unit_ids[r] for r in rows],
        [int(windows.labels[r]) for r in rows],
        windows,
    )


@dataclass
class Cohort:
    """A checked cohort folder; its windows are cut once, when first asked for (that takes seconds)."""

    data: Path
    spec: TaskSpec
    limit: int | None
    complete: bool
    loaded: list[TestWindows] = field(default_factory=list)

    def test_windows(self) -> TestWindows:
        if not self.loaded:
            self.loaded.append(load_windows(self.data, self.spec, self.limit))
        return self.loaded[0]

    def instance_ids(self) -> list[str]:
        return self.test_windows().instance_ids


def cohort(source: Source) -> Cohort:
    assert isinstance(source, Cohort)
    return source


def generate_if_missing(directory: Path, spec: TaskSpec) -> None:
    """A demo cohort the spec describes by its generator is written on first use (deterministically)."""
    generator = spec.dataset.get("generator")
    if generator is None or (directory / "cases.csv").is_file():
        return
    hours = generator.get("hours", [1.5, 4.5])
    config = CohortConfig(
        seed=int(generator["seed"]),
        n_patients=int(generator["n_patients"]),
        min_hours=float(hours[0]),
        max_hours=float(hours[1]),
    )
    write_synthetic_cohort(directory, config)


class BinaryTimeseries(TaskKind):
    name = "binary_timeseries"
    display = Display("time series, yes or no", frozenset({"roc"}))
    schema = BINARY_SCHEMA
    output_field = "score"
    compared_column = "score"
    model_type = "timeseries"
    baselines = MappingProxyType(
        {
            "baseline/prevalence": "Constant training prevalence",
            "baseline/last-map": "Last MAP of the input window (score = −MAP)",
            "baseline/logistic": "Logistic regression on last, mean, min and slope of MAP",
        }
    )

    def open(self, data: Path, spec: TaskSpec, *, limit: int | None, allow_partial: bool) -> Cohort:
        """Generate a demo cohort if needed and check the data (windows are cut later, see `Cohort`)."""
        generate_if_missing(data, spec)
        report = check_data_dir(data, spec)
        if not report.ok and not allow_partial:
            differences = "; ".join(report.differences)
            raise DataProblem(
                f"the data at {data} differs from {spec.task} (use --allow-partial to run it anyway): {differences}"[
                    :4000
                ]
            )
        return Cohort(data, spec, limit, bool(report.ok))

    def check(self, data: Path, spec: TaskSpec, *, deep: bool) -> DataReport:
        cases = check_data_dir(data, spec, deep=deep)
        return DataReport(cases.ok, list(cases.differences), list(cases.notes))

    def baseline_outputs(self, slug: str, source: Source, spec: TaskSpec, run_key: str) -> dict[str, ItemOutput]:
        """Scores of a baseline trained on the cohort's other windows."""
        test = cohort(source).test_windows()
        predicted = pipeline.baseline_predictions(slug.split("/", 1)[1], test.windows)
        scores = dict(zip(predicted["instance_id"], predicted["score"], strict=True))
        return {i: ItemOutput(score=float(scores[i])) for i in test.instance_ids}

    def command_inputs(self, source: Source, spec: TaskSpec, wanted: set[str]) -> list[dict[str, Any]]:
        """The input window (MAP every 2 s, null = missing) of each wanted test window."""
        data = cohort(source).data
        instances: list[dict[str, Any]] = []
        try:
            for case in pipeline.iter_case_instances(data, spec, include_inputs=True):
                if not case.test or case.inputs is None:
                    continue
                for row, instance_id in enumerate(case.instance_ids):
                    if instance_id in wanted:
                        instances.append(
                            {"instance_id": instance_id, "unit_id": case.subjectid, "map": case.inputs[row].tolist()}
                        )
        except DATA_ERRORS as error:
            raise unreadable(data, error) from None
        return instances

    def score(self, source: Source, outputs: Mapping[str, ItemOutput], spec: TaskSpec, run_key: str) -> Computation:
        """AUROC and AUPRC with patient-level intervals, plus prevalence (no interval) over the scored windows."""
        test = cohort(source).test_windows()
        columns: dict[str, list[Any]] = {
            "instance_id": test.instance_ids,
            "unit_id": test.unit_ids,
            "label": test.labels,
            "score": [outputs[i].score for i in test.instance_ids],
        }
        labels = np.asarray(columns["label"], dtype=np.int8)
        scores = np.asarray(columns["score"], dtype=np.float64)
        if labels.size == 0 or labels.min() == labels.max():
            raise AdapterError("the scored windows hold only one class: AUROC and AUPRC are undefined")
        metrics = bootstrap(spec, run_key, columns["unit_id"], labels=labels, scores=scores)
        n_units = len(set(columns["unit_id"]))
        prevalence = stats.Estimate("prevalence", float(labels.mean()), None, None, int(labels.size), n_units, 0, 0)
        return Computation(
            columns=columns,
            metrics=[*metrics, prevalence],
            n=int(labels.size),
            n_units=n_units,
            parse_rate=None,
            prompt_tokens=0,
            completion_tokens=0,
            instance_set_hash=instance_set_hash(columns["instance_id"]),
        )

    def point_metrics(self, table: pa.Table) -> dict[str, float | None]:
        labels = table.column("label").to_numpy().astype(np.int8)
        scores = table.column("score").to_numpy()
        if labels.min() == labels.max():  # one class only: AUROC and AUPRC are undefined
            return {"auroc": None, "auprc": None}
        return {"auroc": stats.auroc(labels, scores), "auprc": stats.auprc(labels, scores)}

    def paired_arrays(self, labels: pa.ChunkedArray, values: np.ndarray) -> dict[str, np.ndarray]:
        return {"labels": labels.to_numpy().astype(bool), "scores": values.astype(np.float64)}
