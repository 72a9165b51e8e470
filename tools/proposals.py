"""The evaluator agent's proposals: from a paper's record, the models to register and the runs to compute.

The rules, applied to each model the text releases (role `subject`):

- No weights ("not released", or no link at all): nothing is proposed; the evaluator runs released weights.
- Released weights: the model is proposed (slug = the Hugging Face repo id, provider = its organisation,
  version = the weights revision when the link names one, else empty), unless a registered model already
  answers to that slug, repo id or name ("already registered — reuse").
- Runs: a released LLM is proposed for a run on the latest published version of every multiple-choice task,
  because every LLM can be run there with the standard prompt: where a claim of the text maps to the task
  the run checks that claim; where none does, the proposal says so and why each claim does not map (a
  different dataset such as KorMedMCQA or the KMLE, a different hypotension definition, ...). Demo tasks are
  included and marked. Each run is tagged `agent` (released weights run by the evaluator).
- `lookup` is called first for every run: a result already evaluated, in review or withdrawn is shown as
  "already evaluated — reuse" and never queued again; a run key already computed or being computed likewise.
- Other model types (time series, tabular) need a command adapter a maintainer writes: their mapped claims are
  listed as not proposed, with the reason. Comparators (models a text only compares against) are not proposed.
- Proposals are unique by key ('model:<slug>', 'run:<run key>'): a paper read twice proposes nothing new,
  and a rejected proposal stays rejected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import Field

from evaluator.canonical import canonical_json
from evaluator.papers import NOT_RELEASED, Claim, ModelInfo, PaperRecord
from evaluator.runkey import run_id, run_key, run_key_inputs
from store import proposals as proposal_store
from store import results as result_store
from store import runs as run_store
from store import tasks as task_store
from store.models import Model
from store.proposals import NewProposal
from store.tasks import Task
from tools.errors import BadRequest, ModelNotFound
from tools.eval_plan import EvalRequest, chat_config, data_location, default_model_id, spec_of
from tools.lookup import LookupQuery, lookup
from tools.proposal_subjects import Subject, claims_of, subject_of
from tools.registry import Registry
from tools.schemas import Shape
from tools.usage import Visitor, korea_day

Action = Literal["proposed", "already_proposed", "reuse", "not_proposed"]
AGENT = "agent"
MAX_REASON = 1500


class ProposedItem(Shape):
    """One thing the evaluator agent considered: what it did about it and why, with the text behind it."""

    action: Action = Field(
        description="proposed (new, waiting for review) | already_proposed | reuse (already evaluated or "
        "registered: nothing to run) | not_proposed (with the reason)"
    )
    kind: Literal["model", "run"]
    model: str = Field(description="The model's BenchToward slug, or its name when it has none.")
    task: str | None = Field(default=None, description="slug@version for a run.")
    run_key: str | None = None
    run_id: str | None = Field(default=None, description="The existing result (reuse) or the run's future id.")
    tier: str | None = None
    proposal_id: int | None = Field(default=None, description="The review item, when one exists.")
    proposal_status: str | None = None
    reason: str
    excerpt: str = Field(description="The sentence, line or table row that justified the item.")


@dataclass(frozen=True)
class Candidate:
    """An item before it is stored: what it says, and the proposal to store when it is new."""

    item: ProposedItem
    new: NewProposal | None = None


def published_chat_tasks(registry: Registry) -> list[Task]:
    """The latest published version of every task whose kind a chat model answers (multiple choice today)."""
    latest: dict[str, Task] = {}
    for task in task_store.list_tasks(registry.store):
        newer = task.slug not in latest or task.version > latest[task.slug].version
        kind = registry.kinds.get(task.kind)
        if task.status == "published" and kind is not None and kind.answers_chat and newer:
            latest[task.slug] = task
    return sorted(latest.values(), key=lambda t: (t.demo, t.slug))


def excerpt_of(info: ModelInfo) -> str:
    lines = [info.evidence or info.name]
    if info.weights and info.weights not in lines[0]:
        lines.append(f"weights: {info.weights}")
    return "\n".join(lines)[:2000]


def model_candidate(registry: Registry, subject: Subject) -> Candidate:
    info = subject.info
    if subject.registered is not None:
        item = ProposedItem(
            action="reuse",
            kind="model",
            model=subject.registered.slug,
            excerpt=excerpt_of(info),
            reason=f"already registered as {subject.registered.slug} (version {subject.registered.version!r})",
        )
        return Candidate(item)
    existing = proposal_store.get_by_key(registry.store, f"model:{subject.slug}")
    facts = [f"weights {info.weights}"]
    facts += [f"base model {info.base_model}"] if info.base_model else []
    facts += [f"licence {info.license}"] if info.license else []
    facts += [f"provider {info.provider}"] if info.provider else []
    reason = f"released model not registered here: {'; '.join(facts)}; type {subject.type or 'unknown'}"
    reason += f", version {subject.version!r}" if subject.version else ", version: no weights revision named"
    item = ProposedItem(
        action="proposed", kind="model", model=subject.slug, reason=reason[:MAX_REASON], excerpt=excerpt_of(info)
    )
    if existing is not None:
        return Candidate(already(item, existing))
    payload = {
        "slug": subject.slug,
        "name": subject.name,
        "type": subject.type or "llm",
        "provider": subject.slug.split("/", 1)[0],
        "provider_model_id": subject.provider_model_id,
        "version": subject.version,
        "aliases": sorted({subject.provider_model_id} - {subject.slug}),
    }
    new = NewProposal(
        f"model:{subject.slug}",
        "model",
        subject.slug,
        None,
        None,
        None,
        canonical_json(payload).decode(),
        item.reason,
        item.excerpt,
    )
    return Candidate(item, new)


def already(item: ProposedItem, existing: proposal_store.Proposal) -> ProposedItem:
    return item.model_copy(
        update={
            "action": "already_proposed",
            "proposal_id": existing.id,
            "proposal_status": existing.status,
            "reason": f"already proposed as item {existing.id} ({existing.status}): {item.reason}"[:MAX_REASON],
        }
    )


def claim_summary(claim: Claim) -> str:
    subset = f" ({claim.task_variant})" if claim.task_variant else ""
    value = f" {claim.metric or 'result'} {claim.raw_value}" if claim.raw_value else ""
    return f"{claim.dataset or 'an unnamed dataset'}{subset}{value}"


def run_reason(
    subject: Subject, task: Task, claims: list[Claim], data_note: str, claimant: str = "the text"
) -> tuple[str, str]:
    """Why this run is proposed, and the excerpt behind it (`claimant`: where the claims come from)."""
    mapped = [c for c in claims if c.mapping.task == task.ref]
    demo = " (a demo task: its numbers are not scores on a real dataset)" if task.demo else ""
    if mapped:
        claim = mapped[0]
        reason = (
            f"{claimant} claims{' ' + claim.setting if claim.setting else ''} {claim_summary(claim)}, which "
            f"maps to {task.ref}: {claim.mapping.reason}; this run checks it under the task's fixed definition"
        )
        return (reason + demo + data_note)[:MAX_REASON], claim.evidence
    unmapped: dict[str, str] = {}
    for claim in claims:
        unmapped.setdefault(claim.dataset or "an unnamed dataset", claim.mapping.reason)
    why_not = "; ".join(f"{name}: {why}" for name, why in list(unmapped.items())[:3]) or "the text reports no claims"
    reason = (
        f"no published claim maps to {task.ref} ({why_not}); proposed because {subject.slug} is a released "
        f"LLM, and every LLM can be run on {task.ref} with the standard prompt{demo}"
    )
    return (reason + data_note)[:MAX_REASON], excerpt_of(subject.info)


def chat_run_key(slug: str, version: str, task: Task, model_id: str) -> tuple[dict[str, Any], str]:
    """The run-key inputs and run key of a standard chat run of a model on a task version (what a proposal or a
    request queues, so `lookup` finds it once it runs)."""
    inputs = run_key_inputs(
        model_slug=slug,
        model_version=version,
        task_slug=task.slug,
        task_version=task.version,
        spec_hash=task.spec_hash,
        config=chat_config(model_id),
    )
    return inputs, run_key(inputs)


def data_note(registry: Registry, task: Task, data: Path | None) -> str:
    try:
        data_location(registry, EvalRequest(model="-", task=task.ref, data=data), spec_of(task))
    except BadRequest:
        return f"; note: the data of {task.ref} is not on this server yet (set BENCHTOWARD_DATA before approving)"
    return ""


async def existing_result(registry: Registry, model: Model | None, task: Task, key: str) -> tuple[str, str] | None:
    """(run_id, why) when the run need not be computed: lookup finds a result, or the key is taken."""
    if model is not None:
        try:  # our own agent's lookups are not reuses by a visitor
            found = await lookup(
                registry, LookupQuery(model=model.slug, task=task.ref), Visitor(hash=None, day=korea_day(), bot=True)
            )
        except ModelNotFound:
            found = None
        if found is not None and found.result is not None:
            return found.result.run_id, f"already evaluated — reuse ({found.status.replace('_', ' ')})"
    stored = result_store.get_result_by_key(registry.store, key)
    if stored is not None:
        return stored.run_id, f"already evaluated — reuse (this run key is stored, {stored.status})"
    claim = run_store.get_run(registry.store, key)
    if claim is not None:
        return claim.run_id, f"already being computed — reuse (run claim {claim.status})"
    return None


async def run_candidate(
    registry: Registry,
    subject: Subject,
    task: Task,
    claims: list[Claim],
    data: Path | None,
    *,
    claimant: str = "the text",
) -> Candidate:
    model = subject.registered
    version = model.version if model is not None else subject.version
    model_id = default_model_id(model) if model is not None else subject.provider_model_id
    slug = model.slug if model is not None else subject.slug
    inputs, key = chat_run_key(slug, version, task, model_id)
    reason, excerpt = run_reason(subject, task, claims, data_note(registry, task, data), claimant)
    item = ProposedItem(
        action="proposed",
        kind="run",
        model=slug,
        task=task.ref,
        run_key=key,
        run_id=run_id(key),
        tier=AGENT,
        reason=reason,
        excerpt=excerpt[:2000],
    )
    reuse = await existing_result(registry, model, task, key)
    if reuse is not None:
        return Candidate(item.model_copy(update={"action": "reuse", "run_id": reuse[0], "reason": reuse[1]}))
    existing = proposal_store.get_by_key(registry.store, f"run:{key}")
    if existing is not None:
        return Candidate(already(item, existing))
    new = NewProposal(
        f"run:{key}", "run", slug, task.ref, key, AGENT, canonical_json(inputs).decode(), reason, item.excerpt
    )
    return Candidate(item, new)


def not_proposed(
    kind: Literal["model", "run"], model: str, reason: str, excerpt: str, task: str | None = None
) -> Candidate:
    return Candidate(
        ProposedItem(
            action="not_proposed",
            kind=kind,
            model=model,
            task=task,
            reason=reason[:MAX_REASON],
            excerpt=excerpt[:2000] or model,
        )
    )


def other_runs(subject: Subject, claims: list[Claim]) -> list[Candidate]:
    """Mapped claims of a model the evaluator cannot run unattended (not an LLM)."""
    kind = subject.type or "of unknown type"
    return [
        not_proposed(
            "run",
            subject.slug,
            f"the text's claim maps to {claim.mapping.task}, but {subject.slug} is "
            f"{'a ' + kind if subject.type else kind} model: the evaluator runs LLMs behind an "
            "OpenAI-compatible endpoint unattended; a maintainer runs this one with "
            "`benchtoward eval --command`",
            claim.evidence,
            claim.mapping.task,
        )
        for claim in claims
        if claim.mapping.task
    ]


async def candidates(registry: Registry, record: PaperRecord, data: Path | None) -> list[Candidate]:
    """Every item the agent considers for one record, in order: per model, the model then its runs."""
    found: list[Candidate] = []
    for info in record.models:
        if info.role != "subject":
            found.append(
                not_proposed(
                    "model",
                    info.name,
                    "a comparator in the text: the evaluator proposes the models a text releases",
                    info.evidence or info.name,
                )
            )
            continue
        if info.weights in (None, NOT_RELEASED):
            why = "weights not released" if info.weights == NOT_RELEASED else "the text points to no weights"
            found.append(
                not_proposed(
                    "model", info.name, f"{why}: the evaluator runs released weights only", info.evidence or info.name
                )
            )
            continue
        subject = subject_of(registry, record, info)
        if subject is None:
            found.append(
                not_proposed(
                    "model",
                    info.name,
                    f"weights at {info.weights} are not a Hugging Face "
                    "repository the evaluator can set up; a maintainer registers it by hand",
                    excerpt_of(info),
                )
            )
            continue
        found.append(model_candidate(registry, subject))
        claims = claims_of(record, info)
        if subject.type == "llm":
            for task in published_chat_tasks(registry):
                found.append(await run_candidate(registry, subject, task, claims, data))
        else:
            found.extend(other_runs(subject, claims))
    return found


def outcome_json(items: list[ProposedItem]) -> str:
    return orjson.dumps([item.model_dump(mode="json") for item in items]).decode()
