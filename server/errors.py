"""Exception handlers: every error under /v1 and /artifacts is `{"error": CODE, "message": ...}` JSON with
its HTTP status; pages get an HTML error page; anything unexpected is logged and answered as `internal`."""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from server.api import json_response
from tools.errors import AppError, BadRequest, Internal, MethodNotAllowed, NotFound
from web.pages import error_page

log = logging.getLogger("benchtoward")
JSON_PREFIXES = ("/v1/", "/artifacts/", "/mcp")


def wants_json(request: Request) -> bool:
    return request.url.path.startswith(JSON_PREFIXES) or request.url.path == "/v1"


def respond(request: Request, error: AppError) -> Response:
    if wants_json(request):
        response = json_response(error.json_body(), status=error.status)
    else:
        response = error_page(request, error.status, error.code, error.message)
    response.headers.update(error.headers())
    return response


async def app_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, AppError)
    return respond(request, exc)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        error: AppError = NotFound(f"no route {request.url.path[:200]!r}; see /llms.txt or /v1/openapi.json")
    elif exc.status_code == 405:
        error = MethodNotAllowed(f"{request.method} is not allowed on {request.url.path[:200]!r}")
    elif 400 <= exc.status_code < 500:
        error = BadRequest(str(exc.detail)[:300])
    else:
        error = AppError(str(exc.detail)[:300])
    response = respond(request, error)
    response.status_code = exc.status_code
    response.headers.update(exc.headers or {})  # e.g. Allow on a 405 (RFC 9110)
    return response


async def unexpected_error(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return respond(request, Internal("an internal error occurred; it has been logged"))


HANDLERS = {AppError: app_error, HTTPException: http_error, Exception: unexpected_error}
