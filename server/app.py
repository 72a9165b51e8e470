"""build_app(settings) -> Starlette: /v1, MCP at /mcp, pages and files, over one store. No import-time side effects."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from evaluator.kinds import BUILTIN_KINDS, Kinds
from server.api import api_routes, json_response
from server.capabilities import OPERATIONS
from server.cli_support import clean_artifacts
from server.errors import HANDLERS
from server.http_cache import code_identity
from server.mcp_tools import build_mcp, transport_security
from server.middleware import Front
from server.openapi import openapi_document
from server.routing import App
from server.runtime import Runtime, load_secret
from server.served_pages import ServedPages
from server.settings import Settings
from store import Store
from tools.endpoints import EndpointPolicy
from tools.errors import NotFound
from tools.jobs import JobWorker
from tools.ranking import refresh_stale
from tools.registry import Registry
from tools.requests import source_reader
from tools.seed import sync_specs
from web.benchmarks import benchmark_page_routes
from web.bodies import UPLOAD_LIMIT
from web.feature_pages import feature_page_routes
from web.pages import known_page, page_routes
from web.review_pages import review_routes_for
from web.withdraw_pages import withdraw_routes

log = logging.getLogger("benchtoward")
LLMS_TXT = Path(__file__).resolve().parent.parent / "llms.txt"
USAGE_FLUSH_SECONDS = 2.0
# bodies over 1 MiB are allowed only here: the review page's upload form and the table's upload routes
UPLOAD_PATHS = {"/review/papers": UPLOAD_LIMIT, **{op.path: UPLOAD_LIMIT for op in OPERATIONS if op.upload}}


async def flush_usage_forever(registry: Registry) -> None:
    """Write buffered reuse events every few seconds; a failed flush is logged and retried next time."""
    while True:
        await asyncio.sleep(USAGE_FLUSH_SECONDS)
        flushing = asyncio.ensure_future(registry.usage.flush(registry.store))
        try:  # never cancelled half way: the write ends (or fails and is kept), then the loop stops
            await asyncio.shield(flushing)
        except asyncio.CancelledError:
            await asyncio.wait([flushing])
            if flushing.exception() is not None:
                log.error("could not write reuse events at shutdown: %s", flushing.exception())
            raise
        except Exception:
            log.exception("could not write reuse events")


def document_routes(settings: Settings) -> list[BaseRoute]:
    built: list[Response] = []  # the document depends on nothing stored: built on its first request (~70 ms)

    async def openapi(request: Request) -> Response:
        if not built:
            built.append(json_response(openapi_document(settings.base_url)))
        return Response(built[0].body, media_type=built[0].media_type)

    async def llms_txt(request: Request) -> Response:
        if not LLMS_TXT.is_file():
            raise NotFound("llms.txt is not installed with this copy of BenchToward")
        return PlainTextResponse(LLMS_TXT.read_text(encoding="utf-8"))

    async def health(request: Request) -> Response:
        return json_response({"status": "ok"})

    return [
        Route("/v1/openapi.json", openapi, methods=["GET"], name="openapi"),
        Route("/llms.txt", llms_txt, methods=["GET"], name="llms_txt"),
        Route("/healthz", health, methods=["GET"], name="health"),
    ]


def start_worker(runtime: Runtime, registry: Registry) -> list[asyncio.Task[None]]:
    """The bounded evaluator worker of approved runs, unless --review-workers is 0."""
    settings = runtime.settings
    if settings.review_workers <= 0:
        return []
    runtime.worker = JobWorker(
        registry, data=settings.data, cache_root=settings.data_cache, slots=settings.review_workers
    )
    return [asyncio.create_task(runtime.worker.run_forever(), name="evaluator-worker")]


async def refuse_mcp_stream(request: Request) -> Response:
    """A stateless server has no server-initiated messages: GET /mcp would open an SSE stream that never ends
    (a connection held open per request, for nothing). The transport allows answering 405 instead."""
    raise HTTPException(405, headers={"Allow": "POST"})


def build_app(settings: Settings, kinds: Kinds = BUILTIN_KINDS) -> Starlette:
    """The app over `settings`. `kinds`: the task kinds it serves (the shipped ones; a test may add its own)."""
    runtime = Runtime(settings)
    mcp = build_mcp(runtime)
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(settings.base_url),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = await Store.open(settings.db)
        try:
            await sync_specs(store)
            clean_artifacts(settings.artifacts_dir)
            registry = Registry(
                store=store,
                public_url=settings.base_url,
                artifacts_dir=settings.artifacts_dir,
                endpoints=EndpointPolicy.from_settings(settings.endpoint_key_envs, settings.endpoint_hosts),
                source_reader=None if settings.offline else source_reader(runtime.paper_llm),
                kinds=kinds,
            )
            runtime.start(registry, load_secret(settings.secret_file))
            await runtime.visitor_keys.refresh(store)  # today's and tomorrow's visitor keys, older ones deleted
            app.state.runtime = runtime
            flusher = asyncio.create_task(flush_usage_forever(registry))
            ranking = asyncio.create_task(refresh_stale(registry))  # results imported while the server was down
            keys = asyncio.create_task(runtime.visitor_keys.keep_forever(store))
            background = [flusher, ranking, keys, *start_worker(runtime, registry)]
            try:
                async with mcp.session_manager.run():
                    yield
            finally:
                for task in background:  # the worker hands its running jobs back before the store closes
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                await registry.usage.flush(store)
        finally:
            await store.close()

    public_pages = [
        *feature_page_routes(runtime),
        *page_routes(runtime),
        *benchmark_page_routes(runtime),
        *withdraw_routes(runtime),
    ]

    async def is_page(path: str) -> bool:
        return await known_page(runtime, public_pages, path)  # the maintainers' pages count no visits

    routes = [*api_routes(runtime, is_page), *document_routes(settings)]
    routes += [Route("/mcp", refuse_mcp_stream, methods=["GET"], name="mcp_stream"), *mcp_app.routes]  # 405 first
    routes += [*public_pages, *review_routes_for(runtime)]
    return App(
        routes=routes,
        middleware=[
            Middleware(
                Front, handlers=HANDLERS, version=runtime.settled_generation, code=code_identity(), larger=UPLOAD_PATHS
            ),
            Middleware(ServedPages, runtime=runtime),  # a beacon counts only for a page sent to its visitor
        ],
        lifespan=lifespan,
    )
