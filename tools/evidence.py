"""Capability: external evidence — results another harness computed (lm-eval, Inspect), attached to a model.

Evidence is read from the files those tools write (lm-eval's `results_*.json`, with its `samples_*.jsonl` when
given; Inspect's JSON eval log), one row per reported metric, with the harness and its version, the task name and
version, filter, value, standard error or interval and the sample count. It is shown on the model's page and beside
BenchToward's own result on the same items, and the evaluator agent may cite it like a paper's claim. It never enters
a leaderboard and never takes a run key: BenchToward did not compute it, so it is not a result.

Where per-item outcomes come with the file and share item ids with one of our runs of that model, `agreement`
counts the shared items on which both say right, only ours, only theirs, or both wrong.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import pyarrow.parquet as pq
from pydantic import ConfigDict, Field, dataclasses

from store import evidence as evidence_store
from store import results as result_store
from store.evidence import Evidence, ReportedMetric
from store.results import Result, ResultFilter
from tools.errors import BadRequest
from tools.evidence_formats import EvidenceFile, read_evidence_file
from tools.refs import MODEL_HELP, MODEL_NAME_SCHEMA, resolve_model
from tools.registry import Registry
from tools.schemas import Shape

MAX_EVIDENCE_BYTES = 64 * 1024 * 1024  # an eval log with every sample of a large run fits; a bigger file is refused


class EvidenceAgreement(Shape):
    """Agreement with one BenchToward result on shared item ids."""

    run_id: str
    task: str
    shared: int = Field(description="Items both have.")
    both_right: int
    only_ours: int = Field(description="Right in ours, wrong in theirs.")
    only_theirs: int
    both_wrong: int


@dataclasses.dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class EvidenceRow(ReportedMetric):
    """One metric another harness reported."""

    # the stored metric's fields (store.evidence.ReportedMetric), three of them described here
    source: Annotated[str, Field(description="Imported file name.")]
    harness: Annotated[str, Field(description="lm-eval | inspect")]
    external_model: Annotated[str, Field(description="The model as the file names it.")]
    items: int = Field(description="Per-item outcomes stored (0 without samples).")
    agreement: list[EvidenceAgreement] = Field(
        default_factory=list, description="One per BenchToward result sharing item ids."
    )


class ImportedEvidence(Shape):
    model: str
    stored: list[EvidenceRow]
    already_stored: int = Field(description="Metrics of this file stored by an earlier import (unchanged).")


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_file(path: Path) -> bytes:
    try:
        size = path.stat().st_size
    except OSError as error:
        raise BadRequest(f"cannot read {path.name}: {error.strerror}") from None
    if size > MAX_EVIDENCE_BYTES:
        raise BadRequest(f"{path.name} is {size} bytes; evidence files are read up to {MAX_EVIDENCE_BYTES}")
    return path.read_bytes()


def to_row(evidence: Evidence, items: int, agreements: list[EvidenceAgreement] | None = None) -> EvidenceRow:
    values = {field.name: getattr(evidence, field.name) for field in fields(ReportedMetric)}
    return EvidenceRow(**values, items=items, agreement=agreements or [])


def our_outcomes(registry: Registry, result: Result) -> dict[str, bool]:
    """Per-item correctness of one of our results (multiple-choice results carry it; others give none)."""
    path = registry.predictions_path(result.predictions_path)
    if "correct" not in pq.read_schema(path).names:
        return {}
    table = pq.read_table(path, columns=["instance_id", "correct"])
    return dict(zip(table.column("instance_id").to_pylist(), table.column("correct").to_pylist(), strict=True))


def agreements(
    registry: Registry, items: dict[str, bool], results: list[tuple[Result, dict[str, bool]]]
) -> list[EvidenceAgreement]:
    found = []
    for result, ours in results:
        counts = agreement(ours, items)
        if counts["shared"]:
            found.append(EvidenceAgreement(run_id=result.run_id, task=result.task_ref, **counts))
    return found


async def import_evidence(registry: Registry, path: Path, model: str, samples: Path | None = None) -> ImportedEvidence:
    """Attach the metrics of an lm-eval results file (with its samples file when given) or an Inspect JSON log to
    `model` as external evidence. A second import of the same file stores nothing new."""
    found = resolve_model(registry.store, model.strip())
    content = read_file(path)
    parsed: EvidenceFile = read_evidence_file(path.name, content, read_file(samples) if samples else None)
    template = Evidence(
        id=0,
        model_slug=found.slug,
        source=path.name,
        file_sha256=hashlib.sha256(content).hexdigest(),
        harness=parsed.harness,
        harness_version=parsed.harness_version,
        external_model=parsed.model,
        task_name="",
        task_version="",
        dataset="",
        filter="",
        metric="",
        value=0.0,
        stderr=None,
        ci_low=None,
        ci_high=None,
        n_samples=None,
        n_shot=None,
        evaluated_at=parsed.evaluated_at,
        imported_at=now(),
    )
    stored, repeated = [], 0
    async with registry.store.transaction() as db:
        for metric in parsed.metrics:
            evidence = replace(template, **metric.fields())
            items = parsed.items.get(metric.task_name, [])
            if await evidence_store.insert_evidence(db, evidence, items):
                stored.append((evidence, len(items)))
            else:
                repeated += 1
    rows = {(e.task_name, e.filter, e.metric): e for e in evidence_store.evidence_of_model(registry.store, found.slug)}
    return ImportedEvidence(
        model=found.slug,
        stored=[to_row(rows[(e.task_name, e.filter, e.metric)], n) for e, n in stored],
        already_stored=repeated,
    )


class ListEvidenceQuery(Shape):
    model: str = Field(
        min_length=1,
        max_length=200,
        description=MODEL_HELP,
        json_schema_extra=MODEL_NAME_SCHEMA,
    )


class EvidenceList(Shape):
    """Metrics other harnesses reported for a model (evidence, not BenchToward results)."""

    model: str
    evidence: list[EvidenceRow]


async def list_evidence(registry: Registry, query: ListEvidenceQuery) -> EvidenceList:
    """Use to see what other harnesses (lm-eval, Inspect) reported for a model: evidence, never a BenchToward
    result, never ranked."""
    found = resolve_model(registry.store, query.model.strip())
    rows = evidence_store.evidence_of_model(registry.store, found.slug)
    items = {row.id: evidence_store.evidence_items(registry.store, row.id) for row in rows}
    results = []
    if any(items.values()):  # read our predictions only when there is something to compare
        mine = result_store.search_results(registry.store, ResultFilter(model_slugs=(found.slug,), status=None))
        results = [(result, await asyncio.to_thread(our_outcomes, registry, result)) for result in mine]
    return EvidenceList(
        model=found.slug,
        evidence=[to_row(row, len(items[row.id]), agreements(registry, items[row.id], results)) for row in rows],
    )


def agreement(ours: dict[str, bool], theirs: dict[str, bool]) -> dict[str, int]:
    """Shared items counted by outcome: both right, only ours right, only theirs right, both wrong."""
    shared = ours.keys() & theirs.keys()
    counts = {"shared": len(shared), "both_right": 0, "only_ours": 0, "only_theirs": 0, "both_wrong": 0}
    for item in shared:
        key = {(True, True): "both_right", (True, False): "only_ours", (False, True): "only_theirs"}.get(
            (ours[item], theirs[item]), "both_wrong"
        )
        counts[key] += 1
    return counts
