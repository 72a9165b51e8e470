"""The error hierarchy every presenter maps the same way: `{"error": CODE, "message": "..."}`.

Raise an `AppError` subclass from a capability; the /v1 routes turn it into JSON with its HTTP status,
pages into an HTML error page, MCP tools into an error result whose text starts with the code.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, Field


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: str = Field(description="A stable, machine-readable code, e.g. task_not_found.")
    message: str = Field(description="What went wrong, for a person.")
    suggestions: list[str] | None = Field(
        default=None, description="task_not_found, model_not_found: up to three known names close to the one given."
    )


class AppError(Exception):
    code: ClassVar[str] = "internal"
    status: ClassVar[int] = 500

    def __init__(self, message: str, suggestions: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.suggestions = suggestions or None

    def body(self) -> ErrorBody:
        return ErrorBody(error=self.code, message=self.message, suggestions=self.suggestions)

    def json_body(self) -> dict[str, object]:
        """The body as JSON: `suggestions` only when there are some."""
        return self.body().model_dump(exclude_none=True)

    def headers(self) -> dict[str, str]:
        """HTTP headers the error response carries besides its body (none by default)."""
        return {}


class BadRequest(AppError):
    code = "bad_request"
    status = 400


class NotFound(AppError):
    code = "not_found"
    status = 404


class TaskNotFound(NotFound):
    code = "task_not_found"


class RunNotFound(NotFound):
    code = "run_not_found"


class ModelNotFound(NotFound):
    code = "model_not_found"


class DatasetNotFound(NotFound):
    code = "dataset_not_found"


class BenchmarkNotFound(NotFound):
    code = "benchmark_not_found"


class MethodNotAllowed(AppError):
    code = "method_not_allowed"
    status = 405


class Unauthorized(AppError):
    """No valid maintainer token or session (the token is never echoed back)."""

    code = "unauthorized"
    status = 401

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": 'Bearer realm="benchtoward-review"'}


class Forbidden(AppError):
    """Authenticated, but the request is not allowed (a missing or wrong CSRF token, a foreign Origin)."""

    code = "forbidden"
    status = 403


class Conflict(AppError):
    """The request does not fit the current state (an item already decided, a result already published)."""

    code = "conflict"
    status = 409


class RunNotOnTask(BadRequest):
    """A run id names a result of another task version than the one asked about."""

    code = "run_not_on_task"


class RunNotPublished(Conflict):
    """The result is in review, withdrawn or partial: it is on no leaderboard, so it is not compared."""

    code = "run_not_published"


class NotComparable(Conflict):
    """Two results were scored on different instance sets, so no item-by-item (paired) comparison exists."""

    code = "not_comparable"


class PayloadTooLarge(AppError):
    code = "payload_too_large"
    status = 413


class RateLimited(AppError):
    code = "rate_limited"
    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class ProposalNotFound(NotFound):
    code = "proposal_not_found"


class WithdrawalNotFound(NotFound):
    code = "withdrawal_not_found"


class BadDocument(BadRequest):
    """An uploaded or fetched document is not what it claims to be, or cannot be read."""

    code = "bad_document"


class ExtractorFailed(AppError):
    """The paper reader's LLM extractor could not be reached or never produced a valid record."""

    code = "extractor_failed"
    status = 502


class FetchFailed(AppError):
    """A paper's URL could not be fetched (unreachable, or an HTTP error). An offline server refuses URLs with 409."""

    code = "fetch_failed"
    status = 502


class UriTooLong(AppError):
    """The request line is longer than the server reads (refused before the app sees it)."""

    code = "uri_too_long"
    status = 414


class HeadersTooLarge(AppError):
    """The request's headers are larger than the server reads (refused before the app sees them)."""

    code = "headers_too_large"
    status = 431


class RequestTimeout(AppError):
    """The request head did not arrive in time (refused before the app sees it, and the connection closed)."""

    code = "request_timeout"
    status = 408


class Unavailable(AppError):
    """The server process holds as many connections or requests as it takes (`--limit-concurrency`)."""

    code = "unavailable"
    status = 503


class Internal(AppError):
    code = "internal"
    status = 500


def all_error_codes() -> dict[str, int]:
    """Every error code a client can receive, with its HTTP status (documented in llms.txt)."""
    codes: dict[str, int] = {}
    pending: list[type[AppError]] = [AppError]
    while pending:
        cls = pending.pop()
        codes[cls.code] = cls.status
        pending.extend(cls.__subclasses__())
    return dict(sorted(codes.items()))
