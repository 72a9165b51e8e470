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


class AppError(Exception):
    code: ClassVar[str] = "internal"
    status: ClassVar[int] = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def body(self) -> ErrorBody:
        return ErrorBody(error=self.code, message=self.message)


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


class PayloadTooLarge(AppError):
    code = "payload_too_large"
    status = 413


class BenchmarkNotFound(NotFound):
    code = "benchmark_not_found"


class MethodNotAllowed(AppError):
    code = "method_not_allowed"
    status = 405


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
