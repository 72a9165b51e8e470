"""What maintainers publish and withdraw: results (leaving review, or leaving the leaderboard), task versions
(building → in review → published, with a change note), and authors' withdrawal requests.

A withdrawn result keeps its row, page, JSON, predictions and run key: it only leaves leaderboards and rank
ranges, at once (the ranges are recomputed in the same request). Nothing here deletes anything.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import orjson
from pydantic import Field, ValidationError

from evaluator.specs import TaskFile
from store import datasets as dataset_store
from store import models as model_store
from store import results as result_store
from store import tasks as task_store
from store import withdrawals as withdrawal_store
from store.tasks import Task
from store.withdrawals import WithdrawalRequest
from tools.audit import append
from tools.errors import BadRequest, Conflict, WithdrawalNotFound
from tools.maintainers import Actor
from tools.predictions import stored_result
from tools.ranking import refresh_rank_ranges
from tools.ratelimit import Limiters
from tools.refs import parse_task_ref, resolve_task
from tools.registry import Registry
from tools.results import RUN_ID_PATTERN, detail
from tools.schemas import ROW_ID_MAX, ResultDetail, Shape
from tools.seed import task_row
from tools.tasks import GetTaskQuery, TaskDetail, get_task

TASK_MOVES = {
    ("building", "in_review"),
    ("building", "published"),
    ("in_review", "published"),
    ("in_review", "building"),
}


def unpublished_tasks(registry: Registry) -> list[Task]:
    """Task versions still building or in review, for the maintainers' queue."""
    return [task for task in task_store.list_tasks(registry.store) if task.status != "published"]


class RequestIdPath(Shape):
    request_id: int = Field(ge=1, le=ROW_ID_MAX, description="The withdrawal request's id.")


class DecisionRequest(Shape):
    why: str = Field(default="", max_length=2000, description="Why, for the audit log.")


class WithdrawRequest(Shape):
    why: str = Field(min_length=1, max_length=2000, description="The reason, shown on the result's page.")


class InReviewQuery(Shape):
    limit: int = Field(default=100, ge=1, le=1000)


class ResultsInReview(Shape):
    results: list[ResultDetail]


async def results_in_review(registry: Registry, query: InReviewQuery) -> ResultsInReview:
    """Results computed and waiting for a maintainer to publish (or withdraw) them."""
    where = result_store.ResultFilter(status="in_review", include_partial=True)
    found = result_store.search_results(registry.store, where, limit=query.limit)
    return ResultsInReview(results=[detail(registry, r) for r in found])


async def publish_result(registry: Registry, actor: Actor, run_id: str, request: DecisionRequest) -> ResultDetail:
    """In review (or withdrawn, to reinstate it) → published: it enters its leaderboard and rank ranges now."""
    result = stored_result(registry, run_id)
    if result.tier == "official":
        raise Conflict("the official tag is reserved for results authors submit themselves; submissions are not open")
    async with registry.store.transaction() as db:
        moved = await result_store.write_result_status(db, run_id, "published", "", ("in_review", "withdrawn"))
        if not moved:
            raise Conflict(f"result {run_id} is {result.status}; only a result in review or withdrawn is published")
        await model_store.write_model_status(db, result.model_slug, "published")
        await append(
            db,
            actor,
            "publish",
            f"result:{run_id}",
            request.why,
            {"from": result.status, "task": result.task_ref, "model": result.model_slug},
        )
    await refresh_rank_ranges(registry, result.task_slug, result.task_version)
    return detail(registry, stored_result(registry, run_id))


async def withdraw_result(registry: Registry, actor: Actor, run_id: str, request: WithdrawRequest) -> ResultDetail:
    """Published or in review → withdrawn, with the reason: it leaves leaderboards and rank ranges at once; its
    page and JSON stay (with the notice and reason), its run key stays taken. Open requests on it are closed."""
    result = stored_result(registry, run_id)
    async with registry.store.transaction() as db:
        moved = await result_store.write_result_status(db, run_id, "withdrawn", request.why, ("in_review", "published"))
        if not moved:
            raise Conflict(f"result {run_id} is {result.status}; it cannot be withdrawn again")
        closed = await withdrawal_store.close_requests(db, run_id, "withdrawn", actor.name, request.why)
        await append(
            db,
            actor,
            "withdraw",
            f"result:{run_id}",
            request.why,
            {"from": result.status, "task": result.task_ref, "requests_closed": closed},
        )
    await refresh_rank_ranges(registry, result.task_slug, result.task_version)
    return detail(registry, stored_result(registry, run_id))


# Authors' withdrawal requests ------------------------------------------------------------------------------------


class NewWithdrawalRequest(Shape):
    """A request to withdraw a result while it is checked. No account; nothing identifies the sender unless
    they leave a contact."""

    run_id: str = Field(pattern=RUN_ID_PATTERN, description="The result's 12-hex-character run id.")
    reason: str = Field(min_length=10, max_length=4000, description="What you think is wrong (10-4000 characters).")
    contact: str = Field(default="", max_length=200, description="Optional: how we can reach you (maintainers only).")


class WithdrawalInfo(Shape):
    id: int
    run_id: str
    reason: str
    contact: str
    status: Literal["open", "withdrawn", "declined"]
    created_at: str
    decided_by: str | None
    decided_at: str | None
    decision_why: str


class WithdrawalReceipt(Shape):
    id: int
    run_id: str
    status: Literal["open"]
    message: str


class WithdrawalList(Shape):
    requests: list[WithdrawalInfo]


class WithdrawalsQuery(Shape):
    status: Literal["open", "withdrawn", "declined"] | None = Field(default="open", description="Only these.")
    limit: int = Field(default=100, ge=1, le=1000)


def withdrawal_info(request: WithdrawalRequest) -> WithdrawalInfo:
    return WithdrawalInfo(**{**vars(request)})


RECEIVED = "Received. A maintainer takes the result down first and looks into it afterwards."
ALREADY_OPEN = (
    "A request to withdraw this result is already open; a maintainer takes the result down first and looks into "
    "it afterwards. Nothing new was added."
)


async def request_withdrawal(
    registry: Registry, request: NewWithdrawalRequest, limiters: Limiters, visitor: str | None
) -> WithdrawalReceipt:
    """Ask the maintainers to withdraw a result while it is checked. Every request counts towards its visitor's
    limit; one for a result that already has an open request is folded into it (same receipt, nothing stored),
    and only a new entry in the queue counts towards the limit all visitors share."""
    await limiters.withdrawals.hit(visitor)
    result = stored_result(registry, request.run_id)
    if result.status == "withdrawn":
        raise Conflict(f"result {result.run_id} is withdrawn already")
    stored = withdrawal_store.open_request(registry.store, result.run_id)
    if stored is not None:
        return WithdrawalReceipt(id=stored.id, run_id=stored.run_id, status="open", message=ALREADY_OPEN)
    await limiters.new_withdrawals.hit(visitor)
    stored = await withdrawal_store.insert_request(registry.store, result.run_id, request.reason, request.contact)
    return WithdrawalReceipt(id=stored.id, run_id=stored.run_id, status="open", message=RECEIVED)


async def withdrawal_requests(registry: Registry, query: WithdrawalsQuery) -> WithdrawalList:
    found = withdrawal_store.list_requests(registry.store, query.status, query.limit)
    return WithdrawalList(requests=[withdrawal_info(r) for r in found])


async def decline_withdrawal(
    registry: Registry, actor: Actor, request_id: int, request: WithdrawRequest
) -> WithdrawalInfo:
    """Close a request without withdrawing its result, with the reason."""
    stored = withdrawal_store.get_request(registry.store, request_id)
    if stored is None:
        raise WithdrawalNotFound(f"no withdrawal request {request_id}")
    async with registry.store.transaction() as db:
        closed = await withdrawal_store.close_requests(
            db, stored.run_id, "declined", actor.name, request.why, request_id
        )
        if closed != 1:
            raise Conflict(f"withdrawal request {request_id} is {stored.status}, not open")
        await append(
            db, actor, "decline_withdrawal", f"withdrawal:{request_id}", request.why, {"run_id": stored.run_id}
        )
    updated = withdrawal_store.get_request(registry.store, request_id)
    assert updated is not None
    return withdrawal_info(updated)


# Task versions ---------------------------------------------------------------------------------------------------


class TaskStatusRequest(Shape):
    status: Literal["building", "in_review", "published"]
    note: str | None = Field(default=None, max_length=4000, description="The change note (required to publish).")
    why: str = Field(default="", max_length=2000, description="Why, for the audit log.")


class NewTaskVersion(Shape):
    """An accepted change recorded as a new task version (status building), with its change note."""

    task_file: dict[str, Any] = Field(
        description="A task file: {meta, spec}, as in evaluator/specs/tasks/ (checked against the datasets stored).",
        json_schema_extra={
            "required": ["meta", "spec"],
            "additionalProperties": False,
            "properties": {"meta": {"type": "object"}, "spec": {"type": "object"}},
        },
    )
    note: str = Field(min_length=1, max_length=4000, description="What changed, shown with the version.")
    why: str = Field(default="", max_length=2000)


async def set_task_status(registry: Registry, actor: Actor, ref: str, request: TaskStatusRequest) -> TaskDetail:
    """Move a task version building → in review → published (a published version stays published: changes
    are new versions, and earlier versions and their results stay visible). Publishing needs a change note."""
    if parse_task_ref(ref)[1] is None:
        raise BadRequest(f"give the task version as slug@version, not {ref[:80]!r}")
    task = resolve_task(registry.store, ref)
    if (task.status, request.status) not in TASK_MOVES:
        raise Conflict(f"{task.ref} is {task.status}; it cannot move to {request.status} (publish a new version)")
    note = request.note.strip() if request.note and request.note.strip() else None
    if request.status == "published" and note is None:
        raise BadRequest(f"publishing {task.ref} needs a change note (note): what changed from the previous version")
    async with registry.store.transaction() as db:
        if not await task_store.write_task_status(
            db, task.slug, task.version, request.status, task.status, note, actor.name
        ):
            raise Conflict(f"{task.ref} changed meanwhile")
        await append(
            db,
            actor,
            "task_status",
            f"task:{task.ref}",
            request.why,
            {"from": task.status, "to": request.status, "note": note},
        )
    return await get_task(registry, GetTaskQuery(slug=task.slug, version=task.version))


async def add_task_version(registry: Registry, actor: Actor, request: NewTaskVersion) -> TaskDetail:
    """Record an accepted change as a new task version (status building) with its change note."""
    try:
        task_file = TaskFile.model_validate(request.task_file)
    except ValidationError as error:
        raise BadRequest(f"not a task file: {str(error)[:400]}") from None
    row = task_row(task_file)
    registry.kind(row.kind)  # a kind this server does not implement could never be run or shown: refused
    if task_store.get_task(registry.store, row.slug, row.version) is not None:
        raise Conflict(f"{row.ref} exists; a changed definition is a new version number")
    if dataset_store.get_dataset(registry.store, row.dataset_slug) is None:
        raise BadRequest(f"{row.ref} names an unknown dataset {row.dataset_slug!r}")
    row = replace(row, status="building", change_note=request.note.strip())
    async with registry.store.transaction() as db:
        if not await task_store.insert_task(db, row, actor.name):
            raise Conflict(f"{row.ref} was added meanwhile")
        await append(
            db, actor, "task_add", f"task:{row.ref}", request.why, {"spec_hash": row.spec_hash, "note": row.change_note}
        )
    return await get_task(registry, GetTaskQuery(slug=row.slug, version=row.version))


def task_file_json(text: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise BadRequest(f"the task file is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise BadRequest("the task file must be a JSON object")
    return value
