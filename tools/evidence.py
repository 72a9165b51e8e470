"""Capability: external evidence — results another harness computed (lm-eval, Inspect), attached to a model.

Evidence is read from the files those tools write (lm-eval's `results_*.json`, with its `samples_*.jsonl` when
given; Inspect's JSON eval log), one row per reported metric, with the harness and its version, the task name and
version, filter, value, standard error or interval and the sample count. It is shown on the model's page and beside
BenchToward's own result on the same items, and the evaluator agent may cite it like a paper's claim. It never enters
a leaderboard and never takes a run key: BenchToward did not compute it, so it is not a result.

Where per-item outcomes come with the file and share item ids with one of our runs of that model, `agreement`
counts the shared items on which both say right, only ours, only theirs, or both wrong. On import the evaluator
agent reads the metrics as claims (tools.evidence_claims) and proposes the missing runs for review; each listed row
says which of our tasks it maps to, as a paper's claim would.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

from pydantic import ConfigDict, Field, dataclasses

from evaluator.papers import TaskMapping
from store import evidence as evidence_store
from store import proposals as proposal_store
from store import results as result_store
from store import tasks as task_store
from store.evidence import Evidence, ReportedMetric
from store.results import Result, ResultFilter
from tools.errors import BadRequest
from tools.evidence_claims import EXTRACTOR, evidence_candidates, read_outcomes_off_loop, record_of
from tools.evidence_formats import EvidenceFile, read_evidence_file
from tools.maintainers import Actor
from tools.reading import store_reading
from tools.refs import MODEL_HELP, MODEL_NAME_SCHEMA, resolve_model
from tools.registry import Registry
from tools.schemas import Shape

MAX_EVIDENCE_BYTES = 64 * 1024 * 1024  # an eval log with every sample of a large run fits; a bigger file is refused
IMPORTER = Actor("evidence-import")  # the audit log's actor when no maintainer or operator is named


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
    maps_to: str | None = Field(default=None, description="Our task it is a claim on, as a paper's claim maps.")
    maps_why: str = Field(default="", description="Why it maps, or why not.")


class ImportedEvidence(Shape):
    model: str
    stored: list[EvidenceRow]
    already_stored: int = Field(description="Metrics of this file stored by an earlier import (unchanged).")
    reading_id: int | None = Field(default=None, description="The evaluator agent's reading of the file.")
    proposed: int = Field(default=0, description="New review items the reading created.")


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


def to_row(
    evidence: Evidence,
    items: int,
    agreements: list[EvidenceAgreement] | None = None,
    mapping: TaskMapping | None = None,
) -> EvidenceRow:
    values = {field.name: getattr(evidence, field.name) for field in fields(ReportedMetric)}
    maps_to, maps_why = (mapping.task, mapping.reason) if mapping is not None else (None, "")
    return EvidenceRow(**values, items=items, agreement=agreements or [], maps_to=maps_to, maps_why=maps_why)


def agreements(items: Mapping[str, bool], results: list[tuple[Result, Mapping[str, bool]]]) -> list[EvidenceAgreement]:
    found = []
    for result, ours in results:
        counts = agreement(ours, items)
        if counts["shared"]:
            found.append(EvidenceAgreement(run_id=result.run_id, task=result.task_ref, **counts))
    return found


async def import_evidence(
    registry: Registry,
    path: Path,
    model: str,
    samples: Path | None = None,
    *,
    actor: Actor = IMPORTER,
    data: Path | None = None,
) -> ImportedEvidence:
    """Attach the metrics of an lm-eval results file (with its samples file when given) or an Inspect log to
    `model` as external evidence, and let the evaluator agent read them as claims (tools.evidence_claims): its
    proposals go to the review queue, in the same transaction. A second import of the same file stores nothing."""
    found = resolve_model(registry.store, model.strip())
    content = read_file(path)
    parsed: EvidenceFile = read_evidence_file(path.name, content, read_file(samples) if samples else None)
    sha256 = hashlib.sha256(content).hexdigest()
    template = evidence_template(found.slug, path.name, sha256, parsed)
    rows = [replace(template, **metric.fields()) for metric in parsed.metrics]
    known = evidence_store.stored_metrics(registry.store, sha256)
    fresh = [row for row in rows if (row.task_name, row.filter, row.metric) not in known]
    stored: list[tuple[Evidence, int]] = []
    reading_id, proposed = None, 0
    if fresh:
        outcomes = {row.task_name: dict(parsed.items.get(row.task_name, [])) for row in rows}
        record = await record_of(registry, path.name, found, [(row, outcomes[row.task_name]) for row in rows])
        considered = await evidence_candidates(registry, record, found, data)
        async with registry.store.transaction() as db:
            for row in fresh:
                items = parsed.items.get(row.task_name, [])
                if await evidence_store.insert_evidence(db, row, items):
                    stored.append((row, len(items)))
            if stored:  # else an import of the same file won the race meanwhile and made the reading
                reading_id, proposed = await store_reading(db, actor, "read_evidence", sha256, record, considered)
    if reading_id is None:
        earlier = proposal_store.reading_of_document(registry.store, sha256, EXTRACTOR)
        reading_id = earlier.id if earlier else None
    by_key = {
        (e.task_name, e.filter, e.metric): e for e in evidence_store.evidence_of_model(registry.store, found.slug)
    }
    return ImportedEvidence(
        model=found.slug,
        stored=[to_row(by_key[(e.task_name, e.filter, e.metric)], n) for e, n in stored],
        already_stored=len(rows) - len(stored),
        reading_id=reading_id,
        proposed=proposed,
    )


def evidence_template(slug: str, source: str, sha256: str, parsed: EvidenceFile) -> Evidence:
    """The fields every metric of one file shares; each metric fills in its own."""
    return Evidence(
        id=0,
        model_slug=slug,
        source=source,
        file_sha256=sha256,
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
    """Use to see what other harnesses (lm-eval, Inspect) reported for a model, and which of our tasks each maps
    to: evidence, never a BenchToward result, never ranked."""
    found = resolve_model(registry.store, query.model.strip())
    key = ("evidence", found.slug)
    cached: EvidenceList | None = registry.cache.peek(registry.store, key)
    if cached is not None:  # answers are dropped when the store changes; predictions files are read once
        return cached
    rows = evidence_store.evidence_of_model(registry.store, found.slug)
    items = {row.id: evidence_store.evidence_items(registry.store, row.id) for row in rows}
    results: list[tuple[Result, Mapping[str, bool]]] = []
    if any(items.values()):  # read our predictions only when there is something to compare
        mine = result_store.search_results(registry.store, ResultFilter(model_slugs=(found.slug,), status=None))
        results = list(zip(mine, await read_outcomes_off_loop(registry, mine), strict=True))
    record = await record_of(registry, "", found, [(row, items[row.id]) for row in rows])
    answer = EvidenceList(
        model=found.slug,
        evidence=[
            to_row(row, len(items[row.id]), agreements(items[row.id], results), claim.mapping)
            for row, claim in zip(rows, record.claims, strict=True)
        ],
    )
    registry.cache.put(registry.store, key, answer)
    return answer


async def evidence_beside(registry: Registry, result: Result) -> list[EvidenceRow]:
    """The model's evidence on the dataset of one of our results, shown beside it: a row that shares items with the
    run, or that maps to a task on the same dataset (a task's other version included)."""
    found = await list_evidence(registry, ListEvidenceQuery(model=result.model_slug))
    dataset = dataset_of(registry, result.task_ref)
    return [
        row
        for row in found.evidence
        if any(shared.run_id == result.run_id for shared in row.agreement)
        or (row.maps_to is not None and dataset is not None and dataset_of(registry, row.maps_to) == dataset)
    ]


def dataset_of(registry: Registry, task_ref: str) -> str | None:
    slug, _, version = task_ref.partition("@")
    task = task_store.get_task(registry.store, slug, int(version)) if version.isdigit() else None
    return task.dataset_slug if task is not None else None


def agreement(ours: Mapping[str, bool], theirs: Mapping[str, bool]) -> dict[str, int]:
    """Shared items counted by outcome: both right, only ours right, only theirs right, both wrong."""
    shared = ours.keys() & theirs.keys()
    counts = {"shared": len(shared), "both_right": 0, "only_ours": 0, "only_theirs": 0, "both_wrong": 0}
    for item in shared:
        key = {(True, True): "both_right", (True, False): "only_ours", (False, True): "only_theirs"}.get(
            (ours[item], theirs[item]), "both_wrong"
        )
        counts[key] += 1
    return counts
