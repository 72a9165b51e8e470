"""Capability: has a model been evaluated on a task? Call it before running an evaluation yourself.

The answer follows a run through every stage, so an agent is never told `not_evaluated` while someone asked
for the run, a maintainer queued it, a worker computes it or its result awaits review:
not_evaluated → requested → queued → evaluating → in_review → evaluated (or withdrawn).
Everything but a run's progress comes from the read cache; a running claim's progress is read inline on each
call (claims heart-beat several times a second and do not move the cache's generation).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field, PrivateAttr

from store import jobs as job_store
from store import leases
from store import proposals as proposal_store
from store import requests as request_store
from store import results as result_store
from store import runs as run_store
from store.db import Store
from store.models import Model
from store.requests import EvaluationRequest
from store.results import ResultFilter
from store.tasks import Task
from tools.refs import (
    MODEL_NAME_SCHEMA,
    TASK_HELP,
    TASK_REF_SCHEMA,
    find_model,
    is_model_slug,
    model_name,
    resolve_task,
)
from tools.registry import Registry
from tools.results import detail
from tools.schemas import ResultDetail, Shape
from tools.usage import Visitor

LookupStatus = Literal["not_evaluated", "requested", "queued", "evaluating", "in_review", "evaluated", "withdrawn"]
IN_PROGRESS = ("not_evaluated", "requested", "queued", "evaluating")  # where a live run claim may move the answer
REQUEST_HINT = "ask for a run with POST /v1/requests (MCP tool request_evaluation)"


class LookupQuery(Shape):
    model: str = Field(
        min_length=1,
        max_length=200,
        description="Slug (kgpu/medgemma-27b), Hugging Face repo id or provider model id (medgemma-27b); any case.",
        json_schema_extra=MODEL_NAME_SCHEMA,
    )
    task: str = Field(
        min_length=1,
        max_length=80,
        description=TASK_HELP,
        json_schema_extra=TASK_REF_SCHEMA,
    )


class Progress(Shape):
    """A running evaluation."""

    items_done: int = Field(description="Items answered so far.")
    items_total: int | None = Field(description="Items in the run; null until loaded.")
    started_at: str = Field(description="UTC, ISO 8601.")
    heartbeat_at: str = Field(description="Last sign of life.")
    stale: bool = Field(description="No sign of life for a while; a maintainer resumes it.")


class LookupResponse(Shape):
    """Where a model stands on a task version, in order of progress: `not_evaluated` (nobody asked; also for a
    model not registered here, with `model_known` false), `requested` (awaits a maintainer's approval),
    `queued`, `evaluating` (see `progress`), `in_review` (a result awaits a maintainer's check), `evaluated`
    (the published result), `withdrawn` (see `result.status_reason`). Only `not_evaluated` means: run it yourself
    or request it."""

    status: LookupStatus = Field(description=" | ".join(get_args(LookupStatus)))
    model_known: bool = Field(description="false: no model here has this name.")
    result: ResultDetail | None
    request_id: int | None = Field(default=None, description="The request for this model and task.")
    progress: Progress | None = Field(default=None, description="While evaluating.")
    hint: str | None = Field(default=None, description="What to do next.")
    _slugs: tuple[str, ...] = PrivateAttr(default=())  # the models whose run claims may move this answer
    _task_ref: str = PrivateAttr(default="")


async def lookup(registry: Registry, query: LookupQuery, visitor: Visitor | None = None) -> LookupResponse:
    """Call this before you run an evaluation yourself: has `model` been evaluated on `task` already?

    `evaluated`: cite the published result and reuse its predictions, do not recompute it; `requested`, `queued`,
    `evaluating`, `in_review`: it is on its way here, do not run it yourself; `withdrawn`: see
    `result.status_reason`, do not rerun it; `not_evaluated`: nobody ran or asked for it: ask with
    `request_evaluation`. A lookup that finds a published result counts as a reuse.
    """
    response = registry.remember(("lookup", query.model, query.task), lambda: find(registry, query))
    if response.status == "evaluated" and response.result is not None:
        registry.usage.count_lookup(visitor or Visitor.anonymous(), response.result.run_id)
    if response.status in IN_PROGRESS:
        return with_live_run(registry.store, response)
    return response


def find(registry: Registry, query: LookupQuery) -> LookupResponse:
    store = registry.store
    task = resolve_task(store, query.task)
    model = find_model(store, query.model)
    if model is not None:
        stored = stored_result(registry, model, task)
        if stored is not None:
            return stored
    name = model_name(query.model)
    slugs = (model.slug,) if model is not None else (name,) if is_model_slug(name) else ()
    request = request_store.find_request(store, name, slugs, task.slug, task.version)
    if request is not None and request.model_slug.lower() not in {slug.lower() for slug in slugs}:
        slugs = (*slugs, request.model_slug)
    response = pipeline_status(store, slugs, task, request, model is not None)
    response._slugs, response._task_ref = slugs, task.ref
    return response


def stored_result(registry: Registry, model: Model, task: Task) -> LookupResponse | None:
    """The model's published result on the task version (newest), else one in review, else a withdrawn one."""
    where = ResultFilter(task_slug=task.slug, task_version=task.version, model_slugs=(model.slug,))
    for status in ("published", "in_review", "withdrawn"):
        found = result_store.search_results(registry.store, ResultFilter(**{**vars(where), "status": status}), 1)
        if found:
            answer: LookupStatus = "evaluated" if status == "published" else status  # type: ignore[assignment]
            return LookupResponse(status=answer, model_known=True, result=detail(registry, found[0]))
    return None


def pipeline_status(
    store: Store, slugs: tuple[str, ...], task: Task, request: EvaluationRequest | None, known: bool
) -> LookupResponse:
    """requested / queued / evaluating from the review queue and its jobs; not_evaluated when nothing is on the way."""
    request_id = request.id if request is not None else None
    for slug in slugs:
        job = next(iter(job_store.jobs_for(store, slug, task.ref)), None)
        if job is not None and job.status in ("queued", "running"):
            status: LookupStatus = "queued" if job.status == "queued" else "evaluating"
            return LookupResponse(status=status, model_known=known, result=None, request_id=request_id)
        if job is not None and job.status == "failed":
            hint = f"the last attempt failed ({job.message[:200]}); a maintainer may queue it again"
            return LookupResponse(status="requested", model_known=known, result=None, request_id=request_id, hint=hint)
        proposals = proposal_store.run_proposals_for(store, slug, task.ref)
        if any(proposal.status == "pending" for proposal in proposals):
            hint = "awaiting a maintainer's approval; do not run it yourself"
            return LookupResponse(status="requested", model_known=known, result=None, request_id=request_id, hint=hint)
    proposal = proposal_store.get_proposal(store, request.proposal_id) if request is not None else None
    if request is not None and proposal is not None and proposal.status == "rejected":
        why = f": {proposal.decision_why[:200]}" if proposal.decision_why else ""
        hint = f"request {request.id} was declined by the maintainers{why}"
        return LookupResponse(status="not_evaluated", model_known=known, result=None, request_id=request_id, hint=hint)
    hint = REQUEST_HINT if known else f"no model here answers to this name; {REQUEST_HINT}"
    return LookupResponse(status="not_evaluated", model_known=known, result=None, request_id=request_id, hint=hint)


def with_live_run(store: Store, response: LookupResponse) -> LookupResponse:
    """The answer moved to `evaluating` with its progress when one of its models has a running claim."""
    for slug in response._slugs:
        run = run_store.live_run(store, slug, response._task_ref)
        if run is None:
            continue
        stale = leases.is_stale(run)
        progress = Progress(
            items_done=run.items_done,
            items_total=run.items_total,
            started_at=run.started_at,
            heartbeat_at=run.heartbeat_at,
            stale=stale,
        )
        hint = "computing here now; do not run it yourself" if not stale else "the run stopped; a maintainer resumes it"
        return response.model_copy(update={"status": "evaluating", "progress": progress, "hint": hint})
    return response
