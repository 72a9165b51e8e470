"""The reference of bench/http_bench.py: a bare Starlette app with one trivial route, served by the same uvicorn
(httptools, no access log) as BenchToward, so the two are compared in one run on one machine.

    .venv/bin/python -m uvicorn --app-dir bench bare_app:app --http httptools --no-access-log --port 8001
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


app = Starlette(routes=[Route("/healthz", health)])
