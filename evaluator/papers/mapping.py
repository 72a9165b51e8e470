"""Claim -> BenchToward task, with the reason a maintainer can check. Deterministic, and applied to the
claims of every extractor (an LLM's mapping is never trusted).

The targets come from the task spec files: the ClinicalQA task (an `mcq` task on the `clinicalqa` dataset)
and the VitalDB hypotension task (a `binary_timeseries` task on `vitaldb`, whose label rule gives threshold,
comparison, duration and horizon).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from evaluator.papers.hypotension import HypotensionDefinition, read_definition
from evaluator.papers.record import Claim, ExtractedClaim, Extraction, PaperRecord, TaskMapping
from evaluator.papers.vocabulary import IOH_PATTERN, canonical_metric, resolve_dataset
from evaluator.specs import TaskFile, load_task_files

_IOH_METRICS = frozenset({"auroc", "auprc", "auc", "sensitivity", "specificity", "f1", "accuracy"})
CLINICALQA_IS = "ClinicalQA (SNUH's Korean five-option clinical questions)"


@dataclass(frozen=True)
class IohTarget:
    """What a hypotension claim must match to be a claim on the VitalDB IOH task."""

    task: str
    threshold_mmhg: int
    comparison: str
    min_duration_s: int
    horizon_min: float
    metrics: tuple[str, ...]

    def describe(self) -> str:
        horizon = f"{self.horizon_min:g}"
        return (
            f"VitalDB, MAP {self.comparison} {self.threshold_mmhg} mmHg sustained ≥ {self.min_duration_s} s "
            f"within a {horizon}-minute horizon"
        )


@dataclass(frozen=True)
class TaskCatalog:
    """The tasks claims can map to (the newest version of each)."""

    clinicalqa: str | None
    clinicalqa_metrics: tuple[str, ...]
    ioh: IohTarget | None


def catalog_from(tasks: Sequence[TaskFile]) -> TaskCatalog:
    """Build the mapping targets from task files (the newest version per slug)."""
    newest: dict[str, TaskFile] = {}
    for task_file in tasks:
        current = newest.get(task_file.spec.slug)
        if current is None or task_file.spec.version > current.spec.version:
            newest[task_file.spec.slug] = task_file
    clinicalqa: str | None = None
    ioh: IohTarget | None = None
    clinicalqa_metrics: tuple[str, ...] = ()
    for task_file in newest.values():
        spec = task_file.spec.as_dict()
        metrics = tuple(str(metric["name"]) for metric in spec["metrics"])
        if spec["kind"] == "mcq" and spec["dataset"].get("slug") == "clinicalqa":
            clinicalqa, clinicalqa_metrics = task_file.spec.task, metrics
        elif spec["kind"] == "binary_timeseries" and spec["dataset"].get("slug") == "vitaldb":
            ioh = _ioh_target(task_file.spec.task, spec, metrics)
    return TaskCatalog(clinicalqa=clinicalqa, clinicalqa_metrics=clinicalqa_metrics, ioh=ioh)


def _ioh_target(task: str, spec: dict[str, Any], metrics: tuple[str, ...]) -> IohTarget:
    grid = float(spec["signal"]["grid_seconds"])
    label = spec["label"]
    return IohTarget(
        task=task,
        threshold_mmhg=int(label["threshold_mmhg"]),
        comparison=str(label["comparison"]),
        min_duration_s=round(int(label["min_run_samples"]) * grid),
        horizon_min=int(spec["windows"]["horizon_samples"]) * grid / 60,
        metrics=metrics,
    )


@cache
def default_catalog() -> TaskCatalog:
    """The targets from the task files shipped in `evaluator/specs/tasks` (read once, on first use)."""
    return catalog_from(load_task_files())


def apply_mapping(
    extraction: Extraction, text: str, *, source: str, extractor: str, catalog: TaskCatalog | None = None
) -> PaperRecord:
    """The record: the extraction with every claim mapped to a task or not, with the reason."""
    catalog = catalog or default_catalog()
    document_definition = read_definition(text) if IOH_PATTERN.search(text) else None
    claims = [
        Claim(**claim.model_dump(), mapping=map_claim(claim, document_definition, catalog))
        for claim in extraction.claims
    ]
    return PaperRecord(
        source=source,
        extractor=extractor,
        models=extraction.models,
        claims=claims,
        identifiers=extraction.identifiers,
        datasets=extraction.datasets,
    )


def map_claim(claim: ExtractedClaim, document: HypotensionDefinition | None, catalog: TaskCatalog) -> TaskMapping:
    """The task one claim maps to, or None, with the reason. `document` is the hypotension definition the
    whole text states when it is about intraoperative hypotension, else None."""
    dataset = resolve_dataset(claim.dataset) or resolve_dataset(claim.task_variant)
    metric = canonical_metric(claim.metric) if claim.metric else None
    about_ioh = any(IOH_PATTERN.search(part or "") for part in (claim.dataset, claim.task_variant, claim.evidence)) or (
        document is not None and metric in _IOH_METRICS
    )
    if (dataset is not None and dataset.key == "vitaldb") or (dataset is None and about_ioh):
        return _map_ioh(claim, document or HypotensionDefinition(), catalog)
    if dataset is None:
        if claim.dataset:
            return TaskMapping(task=None, reason=f"{claim.dataset!r} is not the dataset of any BenchToward task")
        return TaskMapping(task=None, reason="no dataset is named for this claim, so it cannot be mapped")
    if dataset.key == "clinicalqa":
        return _map_clinicalqa(claim, catalog)
    return TaskMapping(task=None, reason=_OTHER_DATASETS[dataset.key](claim, catalog))


def _map_clinicalqa(claim: ExtractedClaim, catalog: TaskCatalog) -> TaskMapping:
    if catalog.clinicalqa is None:
        return TaskMapping(task=None, reason="ClinicalQA has no task version in this catalogue")
    reason = f"the claim is on ClinicalQA, the dataset of {catalog.clinicalqa}"
    metric = canonical_metric(claim.metric) if claim.metric else None
    if metric and metric not in catalog.clinicalqa_metrics:
        reason += f"; the task scores {', '.join(catalog.clinicalqa_metrics)}, the claim reports {metric}"
    if claim.setting and claim.setting != "zero-shot":
        reason += f"; the claim's setting ({claim.setting}) differs from the task's fixed prompt: values may differ"
    return TaskMapping(task=catalog.clinicalqa, reason=reason)


def _kormedmcqa_reason(claim: ExtractedClaim, catalog: TaskCatalog) -> str:
    subset = f" ({claim.task_variant} subset)" if claim.task_variant else ""
    return (
        f"not mapped to {catalog.clinicalqa or 'a ClinicalQA task'}: KorMedMCQA{subset} is a different "
        "dataset (Korean licensing-exam questions for doctors, nurses, pharmacists and dentists), "
        f"not {CLINICALQA_IS}"
    )


def _kmle_reason(claim: ExtractedClaim, catalog: TaskCatalog) -> str:
    return (
        f"not mapped to {catalog.clinicalqa or 'a ClinicalQA task'}: a score on the KMLE (the Korean Medical "
        f"Licensing Examination itself) is a different dataset from {CLINICALQA_IS}, even though "
        "ClinicalQA's questions are KMLE-level"
    )


def _medqa_reason(claim: ExtractedClaim, catalog: TaskCatalog) -> str:
    return "not mapped: MedQA (US licensing-exam questions) is not the dataset of any BenchToward task"


_OTHER_DATASETS = {"kormedmcqa": _kormedmcqa_reason, "kmle": _kmle_reason, "medqa": _medqa_reason}


def _map_ioh(claim: ExtractedClaim, document: HypotensionDefinition, catalog: TaskCatalog) -> TaskMapping:
    target = catalog.ioh
    if target is None:
        return TaskMapping(task=None, reason="no intraoperative hypotension task in this catalogue")
    stated = _merge(read_definition(f"{claim.task_variant or ''}. {claim.evidence}"), document)
    named = resolve_dataset(claim.dataset)
    if named is not None:
        stated = replace(stated, data=named.display)
    differences = _ioh_differences(claim, stated, target)
    split_note = f"; split: {stated.split} (the task uses a fixed patient-level split)" if stated.split else ""
    if differences:
        return TaskMapping(
            task=None,
            reason=f"not mapped to {target.task} ({target.describe()}): " + "; ".join(differences) + split_note,
        )
    return TaskMapping(task=target.task, reason=f"same definition as {target.task}: {target.describe()}{split_note}")


def _merge(claim_level: HypotensionDefinition, document: HypotensionDefinition) -> HypotensionDefinition:
    """The claim's own statement, completed by what the document says elsewhere."""
    return HypotensionDefinition(
        threshold_mmhg=claim_level.threshold_mmhg
        if claim_level.threshold_mmhg is not None
        else document.threshold_mmhg,
        comparison=claim_level.comparison or document.comparison,
        min_duration_s=claim_level.min_duration_s
        if claim_level.min_duration_s is not None
        else document.min_duration_s,
        horizon_min=claim_level.horizon_min if claim_level.horizon_min is not None else document.horizon_min,
        data=claim_level.data or document.data,
        split=claim_level.split or document.split,
    )


def _ioh_differences(claim: ExtractedClaim, stated: HypotensionDefinition, target: IohTarget) -> list[str]:
    differences = []
    if stated.data != "VitalDB":
        differences.append("the data are not stated to be VitalDB")
    if stated.threshold_mmhg is None:
        differences.append("the hypotension definition is not stated")
    else:
        same_event = (
            stated.threshold_mmhg == target.threshold_mmhg
            and stated.comparison == target.comparison
            and stated.min_duration_s == target.min_duration_s
        )
        if not same_event:
            differences.append(f"different hypotension definition ({_event(stated)})")
    if stated.horizon_min is None:
        differences.append("the prediction horizon is not stated")
    elif stated.horizon_min != target.horizon_min:
        differences.append(f"different horizon ({stated.horizon_min} min)")
    metric = canonical_metric(claim.metric) if claim.metric else None
    if metric and metric not in target.metrics and not (metric == "auc" and "auroc" in target.metrics):
        differences.append(f"the task scores {', '.join(target.metrics)}, not {metric}")
    return differences


def _event(stated: HypotensionDefinition) -> str:
    event = f"MAP {stated.comparison} {stated.threshold_mmhg} mmHg"
    if stated.min_duration_s == 0:
        return f"any window with at least one {event}"
    if stated.min_duration_s is None:
        return f"{event}, duration not stated"
    return f"{event} for ≥ {stated.min_duration_s} s"
