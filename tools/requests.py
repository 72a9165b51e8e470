"""Capability: ask for a model to be evaluated on a task version (POST /v1/requests, MCP request_evaluation).

A request enters the maintainers' review queue as the evaluator agent's proposals (the run, and the model when it
is not registered), read like a paper: when the server fetches documents, the agent reads `source_url` (weights,
licence, claims) and the proposal says what it found, or why it could not read it. Nothing runs until a
maintainer approves. One request per model (any case) and task version: asking again answers the first one.
A request stores what its requester typed and nothing about them (the rate limit is kept in memory, by the
daily visitor hash).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pydantic import Field, field_validator

from evaluator.canonical import canonical_json
from evaluator.papers import LLMConfig, ModelInfo, PaperRecord
from store import proposals as proposal_store
from store import requests as request_store
from store.models import Model
from store.proposals import NewProposal
from store.requests import EvaluationRequest, NewRequest
from store.tasks import Task
from tools.audit import append
from tools.errors import AppError
from tools.eval_plan import default_model_id
from tools.lookup import LookupQuery, LookupStatus, lookup
from tools.maintainers import Actor
from tools.proposal_subjects import repo_parts
from tools.proposals import AGENT, chat_run_key
from tools.ratelimit import EVALUATION_REQUESTS, RateLimiter
from tools.reading import fetch_document, read_record
from tools.refs import (
    MODEL_HELP,
    MODEL_NAME_SCHEMA,
    TASK_HELP,
    TASK_REF_SCHEMA,
    find_model,
    is_model_slug,
    model_name,
    resolve_task,
)
from tools.registry import Registry
from tools.schemas import Shape
from tools.usage import Visitor

REQUESTER = Actor("request")  # the audit log's actor for a request: nobody in particular
READ_SECONDS = 15.0
SourceReader = Callable[[str], Awaitable[PaperRecord]]
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class EvaluationRequestBody(Shape):
    """What to evaluate, and where the evaluator can learn about the model."""

    model: str = Field(
        min_length=1,
        max_length=200,
        description=MODEL_HELP,
        json_schema_extra=MODEL_NAME_SCHEMA,
    )
    task: str = Field(
        min_length=1,
        max_length=80,
        description=TASK_HELP,
        json_schema_extra=TASK_REF_SCHEMA,
    )
    source_url: str | None = Field(
        default=None,
        max_length=2000,
        pattern=r"^https?://[^\s/?#]+([/?#]\S*)?$",
        description="Weights, model card or paper (the evaluator agent reads it).",
    )
    note: str = Field(default="", max_length=4000, description="Anything the maintainers should know.")

    @field_validator("model", "task", "source_url", "note", mode="before")
    @classmethod
    def strip_spaces(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value


class RequestReceipt(Shape):
    """The request, and where the run stands now (the same status `lookup` answers)."""

    request_id: int | None = Field(description="null when nothing needed requesting.")
    created: bool = Field(description="false: an earlier request, or none was needed.")
    status: LookupStatus = Field(description="As lookup says.")
    model: str = Field(description="The model as first requested.")
    task: str = Field(description="slug@version.")
    source_url: str | None
    note: str
    source_read: str = Field(description="What was read at source_url, or why not.")
    created_at: str | None
    hint: str | None = Field(description="What happens next.")


@dataclass(frozen=True)
class Plan:
    """The proposals a request makes: the model to register (when it is not), and the run."""

    slug: str
    model: NewProposal | None
    run: NewProposal


def source_reader(llm: LLMConfig | None) -> SourceReader:
    """Fetch a public http(s) document and read it as the paper reader does."""

    async def read(url: str) -> PaperRecord:
        content, name = await fetch_document(url)
        return await read_record(content, name, llm)

    return read


async def read_source(registry: Registry, url: str | None) -> tuple[PaperRecord | None, str]:
    """The record of the source URL, and a line saying what was read or why nothing was."""
    if url is None:
        return None, "no source_url given"
    if registry.source_reader is None:
        return None, "not read: this server does not fetch documents (offline); a maintainer reads the link"
    try:
        record: PaperRecord = await asyncio.wait_for(registry.source_reader(url), READ_SECONDS)
    except AppError as error:
        return None, f"not read: {error.code}: {error.message[:300]}"
    except TimeoutError:
        return None, f"not read: no answer within {READ_SECONDS:.0f} s"
    subjects = [m for m in record.models if m.role == "subject"]
    found = "; ".join(f"{m.name} (weights {m.weights or 'not stated'})" for m in subjects[:3]) or "no model named"
    return record, f"read ({record.extractor}): {found}; {len(record.claims)} claims"[:600]


def weights_of(record: PaperRecord | None, url: str | None) -> tuple[str, str, str] | None:
    """(org, name, revision) of the weights the source links to: the URL itself, or the record's subject."""
    parts = repo_parts(url) if url and ("huggingface.co" in url or "hf.co" in url) else None
    if parts is None and record is not None:
        weights = [m.weights for m in record.models if m.role == "subject" and m.weights]
        parts = repo_parts(weights[0]) if len(weights) == 1 else None
    return parts


def new_model(name: str, record: PaperRecord | None, url: str | None) -> tuple[dict[str, object], str]:
    """The model proposal's payload for an unregistered name, and its slug: the name when it is a slug or
    Hugging Face repo id, else the repo the source links to, else requested/<name>."""
    parts = weights_of(record, url)
    revision = parts[2] if parts else ""
    if is_model_slug(name):
        slug = name
    elif parts is not None and is_model_slug(f"{parts[0]}/{parts[1]}"):
        slug = f"{parts[0]}/{parts[1]}"
    else:
        slug = f"requested/{UNSAFE.sub('-', name).strip('-.')[:180] or 'model'}"
    provider_model_id = name if not is_model_slug(name) else slug
    payload: dict[str, object] = {
        "slug": slug,
        "name": slug.split("/", 1)[1] if name == slug else name,
        "type": "llm",
        "provider": slug.split("/", 1)[0],
        "provider_model_id": provider_model_id,
        "version": revision,
        "aliases": sorted({name, provider_model_id} - {slug}),
    }
    return payload, slug


def reason_of(registry: Registry, body: EvaluationRequestBody, task: Task, source_read: str) -> str:
    kind = registry.kinds.get(task.kind)
    command = f"; {task.ref} is not answered by a chat model: a maintainer runs it with --command"
    how = "" if kind is not None and kind.answers_chat else command
    note = f"; note: {body.note[:600]}" if body.note else ""
    return f"requested by a visitor (POST /v1/requests); source: {body.source_url or 'none'} ({source_read}){how}{note}"


def plan(registry: Registry, body: EvaluationRequestBody, task: Task, record: PaperRecord | None, read: str) -> Plan:
    """The proposals of a request, unless a model or run proposal with the same key exists (then it is reused)."""
    name = model_name(body.model)
    model: Model | None = find_model(registry.store, name)
    model_proposal = None
    if model is not None:
        slug, version, model_id = model.slug, model.version, default_model_id(model)
    else:
        payload, slug = new_model(name, record, body.source_url)
        version, model_id = str(payload["version"]), str(payload["provider_model_id"])
        reason = f"a requested model not registered here; {read}"[:1500]
        model_proposal = NewProposal(
            f"model:{slug}", "model", slug, None, None, None, canonical_json(payload).decode(), reason, excerpt(body)
        )
    inputs, key = chat_run_key(slug, version, task, model_id)
    run = NewProposal(
        f"run:{key}",
        "run",
        slug,
        task.ref,
        key,
        AGENT,
        canonical_json(inputs).decode(),
        reason_of(registry, body, task, read)[:1500],
        excerpt(body),
    )
    return Plan(slug, model_proposal, run)


def excerpt(body: EvaluationRequestBody) -> str:
    lines = [f"model: {body.model}", f"task: {body.task}"]
    lines += [f"source_url: {body.source_url}"] if body.source_url else []
    lines += [f"note: {body.note}"] if body.note else []
    return "\n".join(lines)[:2000]


class Duplicate(Exception):
    """Another request for the same model and task was stored first (by another process)."""


async def store_request(
    registry: Registry, body: EvaluationRequestBody, task: Task, record: PaperRecord | None, read: str
) -> int:
    """The reading, the proposals, the request and the audit entry, in one transaction."""
    proposals = plan(registry, body, task, record, read)
    label = body.source_url or f"request: {body.model}"
    stored = record or PaperRecord(
        source=label[:200], extractor="request", models=[ModelInfo(name=body.model, weights=None)]
    )
    async with registry.store.transaction() as db:
        reading_id = await proposal_store.insert_reading(
            db, "", label[:2000], "request", stored.model_dump_json(), REQUESTER.name
        )
        if proposals.model is not None and proposal_store.get_by_key(registry.store, proposals.model.key) is None:
            await proposal_store.insert_proposal(db, reading_id, proposals.model)
        existing = proposal_store.get_by_key(registry.store, proposals.run.key)
        proposal_id = existing.id if existing else await proposal_store.insert_proposal(db, reading_id, proposals.run)
        assert proposal_id is not None
        new = NewRequest(body.model, proposals.slug, task.slug, task.version, body.source_url, body.note, read)
        request_id = await request_store.insert_request(db, new, proposal_id)
        if request_id is None:
            raise Duplicate
        await proposal_store.set_outcome(db, reading_id, "[]")
        details = {"model": body.model, "task": task.ref, "proposal": proposal_id, "source_read": read}
        await append(db, REQUESTER, "request_evaluation", f"request:{request_id}", "", details)
    return request_id


async def request_evaluation(
    registry: Registry, body: EvaluationRequestBody, visitor: Visitor | None = None
) -> RequestReceipt:
    """Use when `lookup` says `not_evaluated`: ask BenchToward to evaluate `model` on `task`. Nothing runs until a
    maintainer approves; `lookup` then follows it. Asking again answers the first request. Give `source_url` so
    the evaluator can set the model up."""
    task = resolve_task(registry.store, body.task)
    name = model_name(body.model)
    current = await lookup(registry, LookupQuery(model=name, task=task.ref), Visitor(None, "", bot=True))
    earlier = current.request_id
    if earlier is None and current.status != "not_evaluated":  # on its way already: nothing to request
        return receipt_of(None, body, task, current.status, "the run needs no request: call lookup for it")
    if earlier is None:  # counted before the source is read, so concurrent requests cannot pass the limit together
        limiter = RateLimiter(registry.store, "evaluation_requests", EVALUATION_REQUESTS, "evaluation requests")
        await limiter.hit((visitor or Visitor.anonymous()).hash)  # in the store: one limit for every worker
        record, read = await read_source(registry, body.source_url)
        try:
            await store_request(registry, body, task, record, read)
        except Duplicate:
            pass
        else:
            created = await lookup(registry, LookupQuery(model=name, task=task.ref), Visitor(None, "", bot=True))
            return answer(registry, name, task, created.status, created=True)
    again = await lookup(registry, LookupQuery(model=name, task=task.ref), Visitor(None, "", bot=True))
    return answer(registry, name, task, again.status, created=False)


def answer(registry: Registry, name: str, task: Task, status: LookupStatus, created: bool) -> RequestReceipt:
    found = request_store.find_request(registry.store, name, (), task.slug, task.version)
    if found is None:  # matched by the model's slug rather than the name typed
        model = find_model(registry.store, name)
        slugs = (model.slug,) if model is not None else ()
        found = request_store.find_request(registry.store, name, slugs, task.slug, task.version)
    hint = "awaiting a maintainer's approval; call lookup to follow it" if status == "requested" else None
    if found is None:  # stored under a form of the name no lookup here matches (another writer's, in between)
        return RequestReceipt(
            request_id=None,
            created=created,
            status=status,
            model=name,
            task=task.ref,
            source_url=None,
            note="",
            source_read="",
            created_at=None,
            hint="call lookup to follow it",
        )
    return stored_receipt(found, status, created, hint or "call lookup to follow it")


def stored_receipt(found: EvaluationRequest, status: LookupStatus, created: bool, hint: str) -> RequestReceipt:
    return RequestReceipt.from_row(
        found,
        request_id=found.id,
        created=created,
        status=status,
        task=found.task_ref,
        hint=hint,
    )


def receipt_of(
    request_id: int | None, body: EvaluationRequestBody, task: Task, status: LookupStatus, hint: str
) -> RequestReceipt:
    return RequestReceipt(
        request_id=request_id,
        created=False,
        status=status,
        model=body.model,
        task=task.ref,
        source_url=body.source_url,
        note=body.note,
        source_read="",
        created_at=None,
        hint=hint,
    )
