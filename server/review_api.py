"""The review presenter: /v1/review/* for maintainers (Authorization: Bearer TOKEN) and the public
POST /v1/withdrawals. Thin adapters over tools/ (review, publishing, reading); the route table below also feeds
the OpenAPI document. These routes are not MCP tools: review needs authentication, which MCP here does not have.

Bearer tokens only: these routes never read the session cookie, so a browser cannot be tricked into calling
them (no ambient credential, no CSRF). A wrong token counts towards the login rate limit; while a caller is
over it, every token it sends is refused unread with `rate_limited`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from server.api import json_response, query_values
from server.runtime import Runtime
from tools import audit, inputs, publishing, reading, review
from tools.errors import (
    AppError,
    BadDocument,
    BadRequest,
    Conflict,
    ExtractorFailed,
    FetchFailed,
    PayloadTooLarge,
    ProposalNotFound,
    RateLimited,
    RunNotFound,
    TaskNotFound,
    Unauthorized,
    WithdrawalNotFound,
)
from tools.maintainers import Actor, actor_of, authenticate_token
from tools.refs import TASK_VERSION_SCHEMA
from tools.results import RUN_ID_PATTERN
from tools.schemas import ResultDetail, Shape
from tools.tasks import TaskDetail
from web.bodies import (
    FORM_LIMIT,
    JSON_LIMIT,
    json_body,
    parse_json,
    read_body,
    read_upload,
    read_upload_form,
    validate,
)


class RunIdPath(Shape):
    run_id: str = Field(pattern=RUN_ID_PATTERN, description="The result's 12-hex-character run id.")


class TaskPath(Shape):
    task: str = Field(
        max_length=80, description="slug@version, e.g. clinicalqa@1.", json_schema_extra=TASK_VERSION_SCHEMA
    )


class PaperUpload(Shape):
    """multipart/form-data with the field `file` (PDF, HTML, Markdown, CSV or text, at most 20 MB); to have the
    server fetch a document instead, send JSON {"url": ...}."""

    file: bytes = Field(description="The document.")


@dataclass(frozen=True)
class Call:
    runtime: Runtime
    request: Request
    actor: Actor | None
    query: Any
    body: Any


Handler = Callable[[Call], Awaitable[BaseModel]]


@dataclass(frozen=True)
class ReviewRoute:
    name: str
    method: str
    path: str
    summary: str
    handler: Handler
    response: type[BaseModel]
    query: type[BaseModel] | None = None
    body: type[BaseModel] | None = None
    errors: tuple[type[AppError], ...] = ()
    maintainers: bool = True
    status: int = 200
    body_limit: int = JSON_LIMIT


def bearer_token(request: Request) -> str | None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


async def authenticate(runtime: Runtime, request: Request) -> Actor:
    """The maintainer of a valid bearer token, or unauthorized. The token is checked first: a valid one always
    gets in, a wrong one counts towards the failed-login limits (and is answered `rate_limited` past them)."""
    token = bearer_token(request)
    if token is None:
        raise Unauthorized("a maintainer token is required (Authorization: Bearer TOKEN)")
    try:
        return actor_of(authenticate_token(runtime.registry, runtime.keys, token))
    except Unauthorized:
        await runtime.limiters.login_failed(runtime.visitor(request).hash, token)
        raise


async def paper_source(call: Call) -> tuple[bytes, str]:
    """The uploaded document, or the document at the given URL (fetched only when online)."""
    request = call.request
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        form = await read_upload_form(request)
        try:
            upload = form.get("file")
            if isinstance(upload, UploadFile):
                return await read_upload(upload)
        finally:
            await form.close()  # spooled upload files are closed (and deleted) at once
        raise BadRequest('give the document as the multipart field `file`, or send JSON {"url": ...}')
    url = validate(reading.PaperUrl, parse_json(await read_body(request, JSON_LIMIT))).url
    return await reading.fetch_paper(url, offline=call.runtime.offline)


async def read_paper(call: Call) -> BaseModel:
    assert call.actor is not None
    content, name = await paper_source(call)
    result = await reading.read_and_propose(
        call.runtime.registry, call.actor, content, name, llm=call.runtime.paper_llm, data=call.runtime.data
    )
    return result


async def approve_item(call: Call) -> BaseModel:
    assert call.actor is not None
    item = await review.approve(call.runtime.registry, call.actor, call.query.item_id, call.body)
    call.runtime.wake_worker()
    return item


def maintainer(function: Callable[..., Awaitable[BaseModel]], *fields: str) -> Handler:
    """An adapter for `function(registry, actor, *path values, body)`."""

    async def handle(call: Call) -> BaseModel:
        values = [getattr(call.query, name) for name in fields]
        return await function(call.runtime.registry, call.actor, *values, call.body)

    return handle


def reader(function: Callable[..., Awaitable[BaseModel]]) -> Handler:
    """An adapter for `function(registry, query)`."""

    async def handle(call: Call) -> BaseModel:
        return await function(call.runtime.registry, call.query)

    return handle


async def request_withdrawal(call: Call) -> BaseModel:
    visitor = call.runtime.visitor(call.request).hash
    return await publishing.request_withdrawal(call.runtime.registry, call.body, call.runtime.limiters, visitor)


ROUTES: tuple[ReviewRoute, ...] = (
    ReviewRoute(
        "read_paper",
        "POST",
        "/v1/review/papers",
        "Read a paper or model card and propose the missing models and runs",
        read_paper,
        reading.PaperReading,
        body=PaperUpload,
        status=201,
        errors=(BadDocument, PayloadTooLarge, FetchFailed, ExtractorFailed, Conflict),
    ),
    ReviewRoute(
        "review_queue",
        "GET",
        "/v1/review/queue",
        "The evaluator agent's proposals (pending by default)",
        reader(review.review_queue),
        review.ReviewQueue,
        query=review.QueueQuery,
    ),
    ReviewRoute(
        "review_item",
        "GET",
        "/v1/review/items/{item_id}",
        "One proposal with its reasons, excerpt and job",
        reader(review.get_item),
        review.ReviewItem,
        query=review.ItemQuery,
        errors=(ProposalNotFound,),
    ),
    ReviewRoute(
        "approve_item",
        "POST",
        "/v1/review/items/{item_id}/approve",
        "Approve a proposal: register the model, or queue the run for the evaluator",
        approve_item,
        review.ReviewItem,
        query=review.ItemQuery,
        body=review.ApproveRequest,
        errors=(ProposalNotFound, Conflict),
    ),
    ReviewRoute(
        "reject_item",
        "POST",
        "/v1/review/items/{item_id}/reject",
        "Reject a proposal with a reason",
        maintainer(review.reject, "item_id"),
        review.ReviewItem,
        query=review.ItemQuery,
        body=review.RejectRequest,
        errors=(ProposalNotFound, Conflict),
    ),
    ReviewRoute(
        "review_jobs",
        "GET",
        "/v1/review/jobs",
        "Evaluation jobs of approved runs",
        reader(review.list_jobs),
        review.JobList,
        query=review.JobsQuery,
    ),
    ReviewRoute(
        "results_in_review",
        "GET",
        "/v1/review/results",
        "Results computed and waiting to be published",
        reader(publishing.results_in_review),
        publishing.ResultsInReview,
        query=publishing.InReviewQuery,
    ),
    ReviewRoute(
        "publish_result",
        "POST",
        "/v1/review/results/{run_id}/publish",
        "Publish a result: it enters its leaderboard and rank ranges",
        maintainer(publishing.publish_result, "run_id"),
        ResultDetail,
        query=RunIdPath,
        body=publishing.DecisionRequest,
        errors=(RunNotFound, Conflict),
    ),
    ReviewRoute(
        "withdraw_result",
        "POST",
        "/v1/review/results/{run_id}/withdraw",
        "Withdraw a result: it leaves leaderboards and rank ranges; its page stays with the reason",
        maintainer(publishing.withdraw_result, "run_id"),
        ResultDetail,
        query=RunIdPath,
        body=publishing.WithdrawRequest,
        errors=(RunNotFound, Conflict),
    ),
    ReviewRoute(
        "withdrawal_requests",
        "GET",
        "/v1/review/withdrawals",
        "Authors' withdrawal requests",
        reader(publishing.withdrawal_requests),
        publishing.WithdrawalList,
        query=publishing.WithdrawalsQuery,
    ),
    ReviewRoute(
        "decline_withdrawal",
        "POST",
        "/v1/review/withdrawals/{request_id}/decline",
        "Close a withdrawal request without withdrawing",
        maintainer(publishing.decline_withdrawal, "request_id"),
        publishing.WithdrawalInfo,
        query=publishing.RequestIdPath,
        body=publishing.WithdrawRequest,
        errors=(WithdrawalNotFound, Conflict),
    ),
    ReviewRoute(
        "add_task_version",
        "POST",
        "/v1/review/tasks",
        "Record an accepted change as a new task version (building) with its change note",
        maintainer(publishing.add_task_version),
        TaskDetail,
        body=publishing.NewTaskVersion,
        status=201,
        errors=(Conflict,),
    ),
    ReviewRoute(
        "set_task_status",
        "POST",
        "/v1/review/tasks/{task}/status",
        "Move a task version building → in review → published (publishing needs a change note)",
        maintainer(publishing.set_task_status, "task"),
        TaskDetail,
        query=TaskPath,
        body=publishing.TaskStatusRequest,
        errors=(TaskNotFound, Conflict),
    ),
    ReviewRoute(
        "audit_log",
        "GET",
        "/v1/review/log",
        "The audit log of every maintainer action, newest first",
        reader(audit.audit_log),
        audit.AuditLog,
        query=audit.AuditQuery,
    ),
    ReviewRoute(
        "request_withdrawal",
        "POST",
        "/v1/withdrawals",
        "Ask the maintainers to withdraw a result while it is checked (no account; rate-limited)",
        request_withdrawal,
        publishing.WithdrawalReceipt,
        body=publishing.NewWithdrawalRequest,
        maintainers=False,
        status=202,
        body_limit=FORM_LIMIT,
        errors=(RunNotFound, Conflict, PayloadTooLarge, RateLimited),
    ),
)


def endpoint(route: ReviewRoute, runtime: Runtime) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        actor = await authenticate(runtime, request) if route.maintainers else None  # before any body is read
        query = inputs.parse(route.query, query_values(request.scope)) if route.query else None
        body = None
        if route.body is not None and route.body is not PaperUpload:
            body = await json_body(request, route.body, route.body_limit)
        result = await route.handler(Call(runtime, request, actor, query, body))
        return json_response(result, status=route.status)

    handle.__name__ = route.name
    return handle


def review_routes(runtime: Runtime) -> list[BaseRoute]:
    return [Route(route.path, endpoint(route, runtime), methods=[route.method], name=route.name) for route in ROUTES]
