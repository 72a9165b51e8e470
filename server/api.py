"""The /v1 presenter: one route per entry of the capability table (visitors' and maintainers' alike), plus the
CSV, beacon and file routes."""

from __future__ import annotations

import asyncio
import functools
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
from server.capabilities import OPERATIONS, Call, Operation, operation
from server.review_api import authenticate, is_upload
from server.runtime import Runtime
from tools import inputs, leaderboard, predictions, visits
from tools.errors import BadRequest, NotFound
from tools.registry import Registry
from tools.usage import Visitor
from web.bodies import json_body, parse_json, read_body

JSON = "application/json"
SMALL_FILE_BYTES = 1024 * 1024  # predictions files up to this size are read whole
PARQUET = "application/vnd.apache.parquet"
PARSED_REMEMBERED = 1024  # parsed queries kept per /v1 read route


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


def query_pairs(query_string: bytes) -> list[tuple[str, str]]:
    """The query string's (name, value) pairs, blank values kept; one that needs no unquoting is split directly,
    without parse_qsl's per-field work."""
    if b"%" in query_string or b"+" in query_string:
        return urllib.parse.parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    pairs = []
    for part in query_string.decode("latin-1").split("&"):
        if part:
            name, _, value = part.partition("=")
            pairs.append((name, value))
    return pairs


def query_values(scope: Scope) -> dict[str, Any]:
    """Query parameters (each at most once) and path parameters; a path parameter cannot be overridden."""
    values: dict[str, Any] = inputs.single_values(query_pairs(scope["query_string"]))
    path_params = scope.get("path_params", {})
    for name in path_params:
        if name in values:
            raise BadRequest(f"parameter {name!r} is part of the path; do not repeat it in the query")
    return {**values, **path_params}


def caller(runtime: Runtime, connection: HTTPConnection) -> Visitor:
    """Who counts for reuse: the daily visitor hash; a HEAD request reads nothing and never counts."""
    if connection.scope["method"] == "HEAD":
        return Visitor.uncounted()
    return runtime.visitor(connection)


class OperationEndpoint:
    """A GET /v1 operation as a plain ASGI app: the route calls it without building a Request and a Response and
    without a second exception-handling layer (an AppError raised here reaches the app's handlers as before)."""

    def __init__(self, entry: Operation, runtime: Runtime) -> None:
        self.entry = entry
        self.runtime = runtime
        # the parsed query of a query string seen lately (an agent asks the same lookup again and again); a refused
        # one is not kept, so it is refused again with the same message. Queries are read, never changed.
        self.parsed = functools.lru_cache(maxsize=PARSED_REMEMBERED)(self.parse)

    def parse(self, query_string: bytes, path: tuple[tuple[str, Any], ...]) -> BaseModel:
        return self.entry.parse(query_values({"query_string": query_string, "path_params": dict(path)}))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = self.parsed(scope["query_string"], tuple(scope.get("path_params", {}).items()))
        # only a capability that counts reuse or limits its callers needs the visitor's hash
        visitor = caller(self.runtime, HTTPConnection(scope)) if self.entry.takes_visitor else Visitor.uncounted()
        result = await self.entry.call(self.runtime.registry, query, visitor)
        body = encoded(self.runtime.registry, result)
        headers = [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def endpoint(entry: Operation, runtime: Runtime):  # type: ignore[no-untyped-def]
    """The route of a table entry: a visitor's read (the fast path), a visitor's JSON-body capability (the same
    input as its MCP tool), or a maintainer's action or one whose body is not its whole input."""
    if entry.caller == "maintainer" or entry.body is not None or entry.adapter is not None:
        return action_endpoint(entry, runtime)
    return post_endpoint(entry, runtime) if entry.method == "POST" else OperationEndpoint(entry, runtime)


def post_endpoint(entry: Operation, runtime: Runtime):  # type: ignore[no-untyped-def]
    """A capability whose input is a JSON object body, parsed by the same path as query parameters and tool
    arguments; an answer that created something (`created` true) is the entry's status (201), an earlier one 200."""

    async def handle(request: Request) -> Response:
        body = parse_json(await read_body(request, entry.body_limit))
        if not isinstance(body, dict):
            raise BadRequest(f"the body is a JSON object of {', '.join(entry.query.model_fields)}")
        result = await entry.call(runtime.registry, entry.parse(body), caller(runtime, request))
        return json_response(result, status=entry.status if getattr(result, "created", False) else 200)

    handle.__name__ = entry.name
    return handle


def action_endpoint(entry: Operation, runtime: Runtime):  # type: ignore[no-untyped-def]
    """A maintainer's capability (the bearer token is checked before anything else is read) or one with a JSON
    body beside its path parameters: path and query parameters by the one parse path, then the body (a multipart
    upload is left to the adapter), then the function, through the entry's adapter when it has one."""

    async def handle(request: Request) -> Response:
        actor = await authenticate(runtime, request) if entry.caller == "maintainer" else None
        query = entry.parse(query_values(request.scope))
        body = None
        if entry.body is not None and not (entry.upload is not None and is_upload(request)):
            body = await json_body(request, entry.body, entry.body_limit)
        visitor = caller(runtime, request) if entry.takes_visitor else Visitor.uncounted()
        if entry.adapter is None:
            result = await entry.call(runtime.registry, query, visitor)
        else:
            result = await entry.adapter(entry.function, Call(runtime, request, actor, query, body, visitor))
        return json_response(result, status=entry.status)

    handle.__name__ = entry.name
    return handle


def leaderboard_csv(runtime: Runtime):  # type: ignore[no-untyped-def]
    async def handle(request: Request) -> Response:
        query = operation("leaderboard").parse(query_values(request.scope))
        board = await leaderboard.leaderboard(runtime.registry, query)  # type: ignore[arg-type]
        runtime.registry.usage.count_download(caller(runtime, request), f"/v1/leaderboard.csv?task={board.task}", None)
        return Response(
            leaderboard.leaderboard_csv(board),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{board.task}-leaderboard.csv"'},
        )

    return handle


def predictions_download(runtime: Runtime):  # type: ignore[no-untyped-def]
    async def handle(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        path, sha256 = predictions.predictions_file(runtime.registry, run_id, caller(runtime, request))
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
        Route(op.path, endpoint(op, runtime), methods=[op.method], name=op.name) for op in OPERATIONS
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
