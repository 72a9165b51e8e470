"""The app's frame at the cost of the work: routes of a fixed path found by one dict lookup instead of a regex
per route in order, and no Starlette ServerErrorMiddleware or ExceptionMiddleware: the app's one middleware
(server/middleware.py's Front) answers exceptions with the same handlers, and one escaping after the answer
began goes to uvicorn, as it did through them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Match, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send


def fixed_paths(routes: Sequence[BaseRoute]) -> dict[str, list[Route]]:
    """Routes of a path without parameters, by path, in their order; a path that a parameterised route listed
    before it also matches is left out, so the table never changes which route answers."""
    table: dict[str, list[Route]] = {}
    shadowed: set[str] = set()
    for index, route in enumerate(routes):
        if not isinstance(route, Route) or route.param_convertors:
            continue
        probe: Scope = {"type": "http", "path": route.path, "root_path": "", "method": "GET"}
        earlier = [other for other in routes[:index] if getattr(other, "path", None) != route.path]
        if any(other.matches(probe)[0] is not Match.NONE for other in earlier):
            shadowed.add(route.path)
        table.setdefault(route.path, []).append(route)
    return {path: found for path, found in table.items() if path not in shadowed}


class FixedPathRouter(Router):
    """Starlette's router, with a dict lookup first for the paths `fixed_paths` keeps."""

    def __init__(self, routes: Sequence[BaseRoute], **options: Any) -> None:
        super().__init__(list(routes), **options)
        self.fixed = fixed_paths(self.routes)

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        candidates = self.fixed.get(scope["path"]) if scope["type"] == "http" and not scope.get("root_path") else None
        for route in candidates or ():
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                scope.setdefault("router", self)
                scope["route"] = route
                scope.update(child_scope)
                await route.handle(scope, receive, send)
                return
        await super().app(scope, receive, send)  # a wrong method (405), a parameterised path, the lifespan


class App(Starlette):
    """Starlette with the FixedPathRouter and only the user middleware (which must handle exceptions)."""

    def __init__(self, routes: Sequence[BaseRoute], **options: Any) -> None:
        super().__init__(routes=routes, **options)
        self.router = FixedPathRouter(routes, lifespan=options.get("lifespan"))

    def build_middleware_stack(self) -> ASGIApp:
        app: ASGIApp = self.router
        for cls, args, kwargs in reversed(self.user_middleware):
            app = cls(app, *args, **kwargs)
        return app
