"""ASGI entry for uvicorn workers: settings come from BENCHTOWARD_* variables set by `benchtoward serve`."""

from __future__ import annotations

from starlette.applications import Starlette

from server.app import build_app
from server.settings import from_sources


def create_app() -> Starlette:
    return build_app(from_sources({}))
