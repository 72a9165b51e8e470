"""The evaluator agent reads imported evidence like a paper: each metric another harness reported is a claim.

A claim names the model, the dataset and the harness's task, the metric and its value with the standard error or
interval, the setting (shots) and the sentence it stands for (harness, version, file). It is mapped to one of our
tasks as a paper's claim is, with one better signal first: when the file carries per-item outcomes and at least half
of its items are items one of our runs scored (matched by item id), the claim is on that run's task whatever the
harness called it. Otherwise the paper reader's deterministic mapping decides (evaluator.papers.mapping), and a
claim that maps to none of our tasks names the catalog entry of its benchmark when the catalog knows it.

From the claims the agent proposes what a paper's claims would make it propose (tools.proposals): a registered LLM
gets a run on every published multiple-choice task that `lookup` finds no result for, each citing the claim that maps
to it, so the runs wait in the maintainers' review queue and nothing runs before approval. The evidence stays
evidence: it is no result, takes no run key and enters no leaderboard.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from evaluator.papers import Claim, ExtractedClaim, ModelInfo, PaperRecord, TaskMapping
from evaluator.papers.mapping import default_catalog, map_claim
from evaluator.papers.vocabulary import BOUNDED_METRICS, canonical_metric
from store import results as result_store
from store import tasks as task_store
from store.evidence import Evidence
from store.models import Model
from store.results import Result, ResultFilter
from tools.catalog import catalog_entry_for
from tools.proposal_subjects import Subject
from tools.proposals import Candidate, model_candidate, not_proposed, published_chat_tasks, run_candidate
from tools.registry import Registry

EXTRACTOR = "evidence"
CLAIMANT = "the imported evidence"  # how a run proposal's reason names where its claim came from
SEPARATORS = re.compile(r"[_\s]+")
FRACTION_METRICS = frozenset({"acc_norm", "mc1", "mc2"})  # lm-eval's normalised and TruthfulQA accuracies
POSITIONAL = re.compile(r"^\d+$")  # lm-eval's doc_id when a document has no id of its own: a row number, not an item


def outcomes_of(registry: Registry, result: Result) -> Mapping[str, bool]:
    """Per-item correctness of one of our results (multiple-choice results carry it; others give none), read once
    per predictions file: the file is pinned by its sha256, so the read cache may keep it until the store changes."""
    key = ("evidence_outcomes", result.run_id, result.predictions_sha256)
    return registry.remember(key, lambda: read_outcomes(registry, result))


def read_outcomes(registry: Registry, result: Result) -> Mapping[str, bool]:
    """None known when the file is not in this server's artifacts folder or unreadable: nothing to compare."""
    path = registry.predictions_path(result.predictions_path)
    try:
        if "correct" not in pq.read_schema(path).names:
            return MappingProxyType({})
        table = pq.read_table(path, columns=["instance_id", "correct"])
    except (OSError, pa.ArrowException):
        return MappingProxyType({})
    pairs = zip(table.column("instance_id").to_pylist(), table.column("correct").to_pylist(), strict=True)
    return MappingProxyType({str(item): bool(correct) for item, correct in pairs})


async def read_outcomes_off_loop(registry: Registry, results: Iterable[Result]) -> list[Mapping[str, bool]]:
    """The outcomes of several results, the files not in the read cache read in a worker thread."""
    wanted = list(results)
    return await asyncio.to_thread(lambda: [outcomes_of(registry, result) for result in wanted])


def run_of_task(registry: Registry, slug: str, version: int) -> Result | None:
    """The newest complete run of a task version (every complete run scores the same items), else its newest
    partial one."""
    for partial in (False, True):
        where = ResultFilter(task_slug=slug, task_version=version, status=None, include_partial=partial)
        found = result_store.search_results(registry.store, where, limit=1)
        if found:
            return found[0]
    return None


async def scored_items(registry: Registry) -> dict[str, tuple[str, frozenset[str]]]:
    """Per task version with a run, that run and the ids of the items it scored (for mapping by item id)."""
    runs = [run_of_task(registry, task.slug, task.version) for task in task_store.list_tasks(registry.store)]
    chosen = [run for run in runs if run is not None]
    outcomes = await read_outcomes_off_loop(registry, chosen)
    return {run.task_ref: (run.run_id, frozenset(ids)) for run, ids in zip(chosen, outcomes, strict=True) if ids}


def spaced(name: str) -> str:
    """A harness's task identifier as words ("kormedmcqa_doctor" → "kormedmcqa doctor"), so dataset names match."""
    return SEPARATORS.sub(" ", name).strip()


def value_text(row: Evidence) -> str:
    text = f"{row.value:.4g}"
    if row.stderr is not None:
        text += f" ± {row.stderr:.3g} (stderr)"
    if row.ci_low is not None and row.ci_high is not None:
        text += f" [{row.ci_low:.4g}, {row.ci_high:.4g}]"
    return text[:100]


def setting_of(row: Evidence) -> str | None:
    if row.n_shot is None:
        return None
    return "zero-shot" if row.n_shot == 0 else f"{row.n_shot}-shot"


def sentence_of(row: Evidence) -> str:
    """The claim's evidence: what the file says, as a maintainer would read it."""
    version = f" v{row.task_version}" if row.task_version else ""
    scored = f" ({row.filter})" if row.filter and row.filter != "none" else ""
    facts = [f"n = {row.n_samples}"] if row.n_samples is not None else []
    facts += [setting] if (setting := setting_of(row)) else []
    facts += [f"dataset {row.dataset}"] if row.dataset else []
    return (
        f"{row.harness} {row.harness_version} reported {row.task_name}{version} {row.metric}{scored} = "
        f"{value_text(row)} for {row.external_model}; {', '.join(facts) + '; ' if facts else ''}"
        f"file {row.source}, evaluated {row.evaluated_at or 'at an unstated time'}"
    )[:2000]


def claim_of(row: Evidence, model: Model) -> ExtractedClaim:
    metric = canonical_metric(row.metric)
    bounded = metric.replace("_", " ") in BOUNDED_METRICS or metric in FRACTION_METRICS
    fraction = bounded and 0.0 <= row.value <= 1.0
    both = row.ci_low is not None and row.ci_high is not None
    return ExtractedClaim(
        model=model.slug,
        dataset=(row.dataset or row.task_name)[:300],
        task_variant=f"{row.harness} task {row.task_name}"[:500],
        metric=metric[:100],
        value=row.value,
        raw_value=value_text(row),
        unit="fraction" if fraction else "score",
        setting=setting_of(row),
        ci=[row.ci_low, row.ci_high] if both else None,  # type: ignore[list-item]
        evidence=sentence_of(row),
        notes=[f"computed by {row.harness}, not by BenchToward: evidence to check, never a result"],
    )


def mapping_by_items(
    registry: Registry, claim: ExtractedClaim, items: Mapping[str, bool], scored: dict[str, tuple[str, frozenset[str]]]
) -> TaskMapping | None:
    """The task whose items are at least half of the file's items, by item id; None when no task is."""
    ids = {item for item in items if not POSITIONAL.match(item)}
    if not ids or not scored:
        return None
    ref, (run_id, ours) = max(scored.items(), key=lambda entry: len(ids & entry[1][1]))
    shared = len(ids & ours)
    if 2 * shared < len(items):
        return None
    reason = f"{shared} of the file's {len(items)} items are items of {ref} (matched by item id with run {run_id})"
    slug, version = ref.split("@")
    task = task_store.get_task(registry.store, slug, int(version))
    metrics = [str(m["name"]) for m in orjson.loads(task.spec_json)["metrics"]] if task else []
    if claim.metric and metrics and claim.metric not in metrics:
        reason += f"; the task scores {', '.join(metrics)}, the file reports {claim.metric}"
    return TaskMapping(task=ref, reason=reason)


def catalog_entry_of(registry: Registry, row: Evidence) -> str | None:
    """The catalog entry of the benchmark: by the dataset's repository name, the task name, or its first word
    (harnesses name tasks after the benchmark with a subset suffix: kormedmcqa_doctor, medqa_4options)."""
    repository = row.dataset.split(":", 1)[0].split(" (", 1)[0].rsplit("/", 1)[-1]
    names = [repository, row.task_name, spaced(row.task_name).split(" ", 1)[0]]
    return next((entry for name in names if name and (entry := catalog_entry_for(registry.store, name))), None)


def map_evidence(
    registry: Registry,
    row: Evidence,
    model: Model,
    items: Mapping[str, bool],
    scored: dict[str, tuple[str, frozenset[str]]],
) -> Claim:
    """One metric of the evidence as a claim mapped to one of our tasks, or not, with the reason."""
    claim = claim_of(row, model)
    mapping = mapping_by_items(registry, claim, items, scored)
    if mapping is None:
        words = claim.model_copy(update={"task_variant": spaced(row.task_name)})
        mapping = map_claim(words, None, default_catalog())
        if mapping.task is None:
            mapping = mapping.model_copy(update={"catalog_id": catalog_entry_of(registry, row)})
    return Claim(**claim.model_dump(), mapping=mapping)


async def record_of(
    registry: Registry, source: str, model: Model, rows: Iterable[tuple[Evidence, Mapping[str, bool]]]
) -> PaperRecord:
    """The record a paper reading would give, built from the evidence instead of read from a text."""
    rows = list(rows)
    scored = await scored_items(registry) if any(items for _, items in rows) else {}
    external = sorted({row.external_model for row, _ in rows})
    info = ModelInfo(
        name=model.slug,
        role="subject",
        provider=model.provider or None,
        weights=model.provider_model_id,
        evidence=f"{source} names the model {', '.join(external)}; imported as evidence for {model.slug}"[:2000],
    )
    claims = [map_evidence(registry, row, model, items, scored) for row, items in rows]
    return PaperRecord(source=source, extractor=EXTRACTOR, models=[info], claims=claims)


async def evidence_candidates(
    registry: Registry, record: PaperRecord, model: Model, data: Path | None = None
) -> list[Candidate]:
    """What the agent does with evidence for a registered model: the model is reused; an LLM is proposed for a run on
    every published multiple-choice task it has no result on (the claims say why); other kinds are not run unattended
    (a maintainer runs them), and a mapped claim says so."""
    info = record.models[0]
    subject = Subject(
        info, model.slug, model.name, model.provider_model_id or model.slug, model.version, model.type, model
    )
    found = [model_candidate(registry, subject)]
    if model.type == "llm":
        for task in published_chat_tasks(registry):
            found.append(await run_candidate(registry, subject, task, record.claims, data, claimant=CLAIMANT))
        return found
    for claim in record.claims:
        if claim.mapping.task is not None:
            why = (
                f"the evidence maps to {claim.mapping.task}, but {model.slug} is a {model.type} model: the evaluator "
                "runs LLMs behind an OpenAI-compatible endpoint unattended; a maintainer runs this one by hand"
            )
            found.append(not_proposed("run", model.slug, why, claim.evidence, claim.mapping.task))
    return found
