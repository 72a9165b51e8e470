"""The review queue: list and show the agent's proposals, approve or reject them. Approving a run queues a job
for the evaluator worker; nothing runs or publishes before a maintainer approves.

Every decision and its audit entry are written in one transaction (compare-and-set on the item's status), so
two maintainers deciding at once cannot both win, and a refused request changes nothing.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

import orjson
from pydantic import Field, field_validator

from evaluator.runkey import run_id as run_id_of
from store import jobs as job_store
from store import models as model_store
from store import proposals as proposal_store
from store import results as result_store
from store.jobs import Job
from store.models import Model
from store.proposals import Proposal
from tools.audit import append, record
from tools.errors import BadRequest, Conflict, ProposalNotFound
from tools.maintainers import Actor
from tools.refs import resolve_task
from tools.registry import Registry
from tools.schemas import ROW_ID_MAX, Shape

ENDPOINT = r"^https?://[^\s/?#]+[^\s]{0,480}$"
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]{0,99}$"


class JobInfo(Shape):
    """The evaluation job of an approved run."""

    id: int
    status: Literal["queued", "running", "done", "failed"]
    attempts: int
    endpoint: str
    api_key_env: str | None = Field(description="The name of the variable holding the API key (never the key).")
    run_id: str | None
    message: str
    created_at: str
    heartbeat_at: str | None
    finished_at: str | None


class ReviewItem(Shape):
    """A proposal of the evaluator agent: a model to register or a run to compute, with its reasons."""

    id: int
    kind: Literal["model", "run"]
    status: Literal["pending", "approved", "rejected"]
    model: str
    task: str | None
    run_key: str | None
    run_id: str | None = Field(description="The run's id (the first 12 characters of its run key).")
    tier: str | None
    reason: str
    excerpt: str = Field(description="The text that justified the proposal.")
    details: dict[str, Any] = Field(description="The model to register, or the run key's inputs.")
    reading_id: int
    created_at: str
    decided_by: str | None
    decided_at: str | None
    decision_why: str
    job: JobInfo | None


class ReviewQueue(Shape):
    items: list[ReviewItem]


class QueueQuery(Shape):
    status: Literal["pending", "approved", "rejected", "all"] = Field(
        default="pending", description="pending (default), approved, rejected or all."
    )
    limit: int = Field(default=100, ge=1, le=1000, description="At most this many items.")


class ItemQuery(Shape):
    item_id: int = Field(ge=1, le=ROW_ID_MAX, description="The review item's id.")


class ApproveRequest(Shape):
    """Approve an item. For a run, the OpenAI-compatible endpoint that serves the model must be explicit:
    given here, or already registered with the model."""

    why: str = Field(default="", max_length=2000, description="Why, for the audit log.")
    endpoint: str | None = Field(default=None, pattern=ENDPOINT, description="OpenAI-compatible base URL.")
    api_key_env: str | None = Field(
        default=None, pattern=ENV_NAME, description="Name of the environment variable holding the API key."
    )

    @field_validator("endpoint")
    @classmethod
    def no_credentials_in_the_url(cls, endpoint: str | None) -> str | None:
        """A key in the URL would be stored and audited: it belongs in the variable named by api_key_env."""
        if endpoint is not None and (urlsplit(endpoint).username or urlsplit(endpoint).password):
            raise ValueError("put no credentials in the endpoint URL; name the variable holding the key (api_key_env)")
        return endpoint


class RejectRequest(Shape):
    why: str = Field(min_length=1, max_length=2000, description="Why the item is rejected (required).")


def job_info(job: Job | None) -> JobInfo | None:
    if job is None:
        return None
    return JobInfo.from_row(job)


def review_item(registry: Registry, proposal: Proposal) -> ReviewItem:
    job = job_store.job_of_proposal(registry.store, proposal.id) if proposal.kind == "run" else None
    return ReviewItem.from_row(
        proposal,
        model=proposal.model_slug,
        task=proposal.task_ref,
        run_id=run_id_of(proposal.run_key) if proposal.run_key else None,
        details=orjson.loads(proposal.payload_json),
        job=job_info(job),
    )


def stored_proposal(registry: Registry, item_id: int) -> Proposal:
    proposal = proposal_store.get_proposal(registry.store, item_id)
    if proposal is None:
        raise ProposalNotFound(f"no review item {item_id}; GET /v1/review/queue lists them")
    return proposal


async def review_queue(registry: Registry, query: QueueQuery) -> ReviewQueue:
    """The agent's proposals with the given status (pending first by default), each with its job if any."""
    status = None if query.status == "all" else query.status
    proposals = proposal_store.list_proposals(registry.store, status, query.limit)
    return ReviewQueue(items=[review_item(registry, p) for p in proposals])


async def get_item(registry: Registry, query: ItemQuery) -> ReviewItem:
    """One review item with its reasons, excerpt and job."""
    return review_item(registry, stored_proposal(registry, query.item_id))


def model_of_payload(payload: dict[str, Any]) -> Model:
    """The model a model proposal registers; it starts as `evaluating` (the evaluator sets it up and runs it)."""
    return Model(
        slug=payload["slug"],
        name=payload["name"],
        type=payload["type"],
        provider=payload["provider"],
        provider_model_id=payload.get("provider_model_id"),
        version=payload.get("version", ""),
        status="evaluating",
        aliases=tuple(payload.get("aliases", ())),
    )


async def approve_model(registry: Registry, actor: Actor, proposal: Proposal, why: str) -> None:
    async with registry.store.transaction() as db:
        if not await proposal_store.decide(db, proposal.id, "approved", actor.name, why):
            raise Conflict(f"item {proposal.id} is {proposal.status}, not pending")
        if model_store.get_model(registry.store, proposal.model_slug) is None:
            await model_store.write_model(db, model_of_payload(orjson.loads(proposal.payload_json)))
        await append(
            db, actor, "approve", f"proposal:{proposal.id}", why, {"kind": "model", "model": proposal.model_slug}
        )


def run_endpoint(model: Model | None, request: ApproveRequest, proposal: Proposal) -> str:
    endpoint = request.endpoint or (model.endpoint if model is not None else None)
    if not endpoint:
        raise BadRequest(
            f"item {proposal.id} runs {proposal.model_slug}, which has no registered endpoint: give the "
            "OpenAI-compatible endpoint that serves it (endpoint, and api_key_env if it needs a key)"
        )
    return endpoint


def check_run_approvable(registry: Registry, proposal: Proposal) -> tuple[Model | None, Proposal | None]:
    """The registered model, or the model proposal to approve with the run; refuse what cannot be approved."""
    job = job_store.job_of_proposal(registry.store, proposal.id)
    if proposal.status == "rejected":
        raise Conflict(f"item {proposal.id} was rejected")
    if proposal.status == "approved" and (job is None or job.status != "failed"):
        state = job.status if job else "missing"
        raise Conflict(f"item {proposal.id} is approved already (job {state}); only a failed job is queued again")
    assert proposal.run_key is not None and proposal.task_ref is not None
    stored = result_store.get_result_by_key(registry.store, proposal.run_key)
    if stored is not None:
        raise Conflict(f"run key of item {proposal.id} is stored already as result {stored.run_id}: reject the item")
    resolve_task(registry.store, proposal.task_ref)
    model = model_store.get_model(registry.store, proposal.model_slug)
    if model is not None:
        return model, None
    model_proposal = proposal_store.get_by_key(registry.store, f"model:{proposal.model_slug}")
    if model_proposal is None or model_proposal.status == "rejected":
        raise Conflict(f"{proposal.model_slug} is not registered and no approvable proposal registers it")
    return None, model_proposal


async def check_endpoint(registry: Registry, actor: Actor, proposal: Proposal, endpoint: str, key: str | None) -> None:
    """Refuse (and audit) an endpoint or key variable the operator did not allow (tools/endpoints.py)."""
    reason = registry.endpoints.refusal(endpoint, key)
    if reason is not None:
        details = {"endpoint": endpoint, "api_key_env": key}
        await record(registry.store, actor, "refuse_endpoint", f"proposal:{proposal.id}", reason, details)
        raise BadRequest(reason)


async def approve_run(registry: Registry, actor: Actor, proposal: Proposal, request: ApproveRequest) -> None:
    model, model_proposal = check_run_approvable(registry, proposal)
    endpoint = run_endpoint(model, request, proposal)
    await check_endpoint(registry, actor, proposal, endpoint, request.api_key_env)
    assert proposal.run_key is not None and proposal.task_ref is not None and proposal.tier is not None
    async with registry.store.transaction() as db:
        if model_proposal is not None:
            if model_proposal.status == "pending":
                await proposal_store.decide(
                    db,
                    model_proposal.id,
                    "approved",
                    actor.name,
                    f"approved with run item {proposal.id}: {request.why}",
                )
                await append(
                    db,
                    actor,
                    "approve",
                    f"proposal:{model_proposal.id}",
                    request.why,
                    {"kind": "model", "model": proposal.model_slug, "with_run": proposal.id},
                )
            await model_store.write_model(db, model_of_payload(orjson.loads(model_proposal.payload_json)))
        elif model is not None and model.status != "published":
            await model_store.write_model_status(db, model.slug, "evaluating")
        retry = proposal.status == "approved"
        if not retry and not await proposal_store.decide(db, proposal.id, "approved", actor.name, request.why):
            raise Conflict(f"item {proposal.id} was decided meanwhile")
        try:
            job_id = await job_store.enqueue(
                db,
                proposal.id,
                proposal.model_slug,
                proposal.task_ref,
                proposal.run_key,
                proposal.tier,
                endpoint,
                request.api_key_env,
            )
        except ValueError as error:
            raise Conflict(str(error)) from None
        await append(
            db,
            actor,
            "retry" if retry else "approve",
            f"proposal:{proposal.id}",
            request.why,
            {
                "kind": "run",
                "model": proposal.model_slug,
                "task": proposal.task_ref,
                "run_key": proposal.run_key,
                "job": job_id,
                "endpoint": endpoint,
                "api_key_env": request.api_key_env,
            },
        )


async def approve(registry: Registry, actor: Actor, item_id: int, request: ApproveRequest) -> ReviewItem:
    """Approve a pending item: a model is registered (status evaluating); a run is queued for the evaluator
    (its model registered too if it was only proposed). An approved run whose job failed is queued again."""
    proposal = stored_proposal(registry, item_id)
    if proposal.kind == "model":
        if proposal.status != "pending":
            raise Conflict(f"item {proposal.id} is {proposal.status}, not pending")
        await approve_model(registry, actor, proposal, request.why)
    else:
        await approve_run(registry, actor, proposal, request)
    return review_item(registry, stored_proposal(registry, item_id))


async def reject(registry: Registry, actor: Actor, item_id: int, request: RejectRequest) -> ReviewItem:
    """Reject a pending item with a reason; the same proposal is never made again."""
    proposal = stored_proposal(registry, item_id)
    async with registry.store.transaction() as db:
        if not await proposal_store.decide(db, proposal.id, "rejected", actor.name, request.why):
            raise Conflict(f"item {proposal.id} is {proposal.status}, not pending")
        await append(
            db,
            actor,
            "reject",
            f"proposal:{proposal.id}",
            request.why,
            {"kind": proposal.kind, "model": proposal.model_slug, "task": proposal.task_ref},
        )
    return review_item(registry, stored_proposal(registry, item_id))


class JobList(Shape):
    jobs: list[JobInfo]


class JobsQuery(Shape):
    status: Literal["queued", "running", "done", "failed"] | None = Field(default=None, description="Only these.")
    limit: int = Field(default=100, ge=1, le=1000)


async def list_jobs(registry: Registry, query: JobsQuery) -> JobList:
    """Evaluation jobs of approved runs, newest first (or oldest first within one status)."""
    jobs = job_store.list_jobs(registry.store, query.status, query.limit)
    return JobList(jobs=[info for info in map(job_info, jobs) if info is not None])
