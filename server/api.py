"""The /v1 presenter: thin adapters from HTTP requests to the capabilities, plus the CSV and file routes."""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from pydantic import BaseModel
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from server import http_cache
from server.capabilities import OPERATIONS, Operation, parse_query
from server.runtime import Runtime
from tools import leaderboard, predictions, visits
from tools.errors import NotFound
from tools.registry import Registry

JSON = "application/json"
SMALL_FILE_BYTES = 1024 * 1024  # predictions files up to this size are read whole
PARQUET = "application/vnd.apache.parquet"


def json_response(model: BaseModel | dict[str, Any], status: int = 200) -> Response:
    body = model.model_dump(mode="json") if isinstance(model, BaseModel) else model
    return Response(orjson.dumps(body), status_code=status, media_type=JSON)


def encoded(registry: Registry, model: BaseModel) -> bytes:
    """The JSON of a capability's answer; answers served from the read cache are encoded once (an answer built
    for one request only is encoded and not kept). The cache holds the answer itself beside its bytes, so its
    id cannot be reused while the entry lives."""
    if not registry.cache.holds(model):
        return orjson.dumps(model.model_dump(mode="json"))
    entry = registry.remember(("json", id(model)), lambda: (model, orjson.dumps(model.model_dump(mode="json"))))
    if entry[0] is model:
        return entry[1]
    return orjson.dumps(model.model_dump(mode="json"))


def query_values(query_string: bytes) -> dict[str, str]:
    """The query string as Starlette's `dict(request.query_params)` gives it (the last of a repeated name wins,
    blank values kept); one that needs no unquoting is split directly, without parse_qsl's per-field work."""
    if b"%" in query_string or b"+" in query_string:
        return dict(urllib.parse.parse_qsl(query_string.decode("latin-1"), keep_blank_values=True))
    values = {}
    for part in query_string.decode("latin-1").split("&"):
        if part:
            name, _, value = part.partition("=")
            values[name] = value
    return values


def inputs(request: Request) -> dict[str, Any]:
    return {**query_values(request.scope["query_string"]), **request.path_params}


class OperationEndpoint:
    """A /v1 operation as a plain ASGI app: the route calls it without building a Request and a Response and
    without a second exception-handling layer (an AppError raised here reaches the app's handlers as before)."""

    def __init__(self, operation: Operation, runtime: Runtime) -> None:
        self.operation = operation
        self.runtime = runtime
        self.counts_reuse = operation.counts_reuse  # read from the function's signature once

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        values = {**query_values(scope["query_string"]), **scope.get("path_params", {})}
        query = parse_query(self.operation.query, values)
        if self.counts_reuse:
            visitor = self.runtime.visitor(HTTPConnection(scope))
            result = await self.operation.function(self.runtime.registry, query, visitor)
        else:
            result = await self.operation.function(self.runtime.registry, query)
        body = encoded(self.runtime.registry, result)
        headers = [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def leaderboard_csv(runtime: Runtime):  # type: ignore[no-untyped-def]
    async def handle(request: Request) -> Response:
        query = parse_query(leaderboard.LeaderboardQuery, inputs(request))
        board = await leaderboard.leaderboard(runtime.registry, query)  # type: ignore[arg-type]
        runtime.registry.usage.count_download(runtime.visitor(request), f"/v1/leaderboard.csv?task={board.task}", None)
        return Response(
            leaderboard.leaderboard_csv(board),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{board.task}-leaderboard.csv"'},
        )

    return handle


def predictions_download(runtime: Runtime):  # type: ignore[no-untyped-def]
    async def handle(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        path, sha256 = predictions.predictions_file(runtime.registry, run_id, runtime.visitor(request))
        cached = {"etag": http_cache.file_etag(sha256), "cache-control": http_cache.Kind.IMMUTABLE.value.decode()}
        if http_cache.matches(request.headers.get("if-none-match", "").encode(), cached["etag"].encode()):
            return Response(status_code=304, headers=cached)  # the file is not read
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            raise NotFound(f"the predictions file of {run_id} is missing on this server") from None
        filename = f"{run_id}-predictions.parquet"
        if size > SMALL_FILE_BYTES or "range" in request.headers:  # streamed, with Range support
            return FileResponse(path, media_type=PARQUET, filename=filename, headers=cached)
        content = await asyncio.to_thread(path.read_bytes)  # one thread hop instead of FileResponse's four
        return Response(
            content,
            media_type=PARQUET,
            headers={**cached, "content-disposition": f'attachment; filename="{filename}"', "accept-ranges": "bytes"},
        )

    return handle


async def beacon_body(request: Request) -> bytes:
    """The request body, refused with payload_too_large as soon as it passes the beacon limit."""
    visits.check_size(request.headers.get("content-length"), 0)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        visits.check_size(None, len(body))
    return bytes(body)


def beacon(runtime: Runtime, is_page: Callable[[str], Awaitable[bool]]):  # type: ignore[no-untyped-def]
    """POST /v1/beacon: a page's script says a browser opened it; only these count as visits."""

    async def handle(request: Request) -> Response:
        visits.check_origin(request.headers.get("sec-fetch-site"))
        body = await beacon_body(request)
        sent = visits.parse_beacon(body, request.headers.get("content-type"))
        if not await is_page(sent.path):  # a well-formed path of no page here: not found, like the page itself
            raise NotFound(f"{sent.path[:80]!r} is not a BenchToward page")
        runtime.registry.usage.count_visit(runtime.visitor(request), sent.path)
        return Response(status_code=204)

    return handle


def api_routes(runtime: Runtime, is_page: Callable[[str], Awaitable[bool]]) -> list[BaseRoute]:
    routes: list[BaseRoute] = [
        Route(op.path, OperationEndpoint(op, runtime), methods=["GET"], name=op.name) for op in OPERATIONS
    ]
    routes.append(Route("/v1/leaderboard.csv", leaderboard_csv(runtime), methods=["GET"], name="leaderboard_csv"))
    routes.append(Route("/v1/beacon", beacon(runtime, is_page), methods=["POST"], name="beacon"))
    routes.append(
        Route(
            "/artifacts/{run_id}/predictions.parquet",
            predictions_download(runtime),
            methods=["GET"],
            name="predictions_file",
        )
    )
    return routes
