"""The /v1 presenter: thin adapters from HTTP requests to the capabilities, plus the CSV and file routes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from server.capabilities import OPERATIONS, Operation, parse_query
from server.runtime import Runtime
from tools import leaderboard, predictions, visits
from tools.errors import NotFound
from tools.registry import Registry
from web.bodies import FORM_LIMIT, parse_json, read_body, validate

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


def inputs(request: Request) -> dict[str, Any]:
    return {**dict(request.query_params), **request.path_params}


def endpoint(operation: Operation, runtime: Runtime):  # type: ignore[no-untyped-def]
    async def handle(request: Request) -> Response:
        query = parse_query(operation.query, inputs(request))
        result = await operation.call(runtime.registry, query, runtime.visitor(request))
        return Response(encoded(runtime.registry, result), media_type=JSON)

    async def handle_post(request: Request) -> Response:
        body = validate(operation.query, parse_json(await read_body(request, FORM_LIMIT)))
        result = await operation.call(runtime.registry, body, runtime.visitor(request))
        return json_response(result, status=201 if getattr(result, "created", False) else 200)

    if operation.method == "POST":
        handle_post.__name__ = operation.name
        return handle_post

    handle.__name__ = operation.name
    return handle


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
        path = predictions.predictions_file(runtime.registry, run_id, runtime.visitor(request))
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            raise NotFound(f"the predictions file of {run_id} is missing on this server") from None
        filename = f"{run_id}-predictions.parquet"
        if size > SMALL_FILE_BYTES or "range" in request.headers:  # streamed, with Range support
            return FileResponse(path, media_type=PARQUET, filename=filename)
        content = await asyncio.to_thread(path.read_bytes)  # one thread hop instead of FileResponse's four
        return Response(
            content,
            media_type=PARQUET,
            headers={"content-disposition": f'attachment; filename="{filename}"', "accept-ranges": "bytes"},
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
