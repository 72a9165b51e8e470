"""The app's router finds routes of a fixed path by a dict lookup; it must never answer with another route than
Starlette's ordered scan would."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Match, Mount, Route

from server.app import build_app
from server.routing import fixed_paths
from server.settings import Settings


async def ok(request: Request) -> Response:
    return PlainTextResponse("ok")


def test_a_fixed_path_that_an_earlier_parameterised_route_matches_is_left_to_the_ordered_scan() -> None:
    routes = [Route("/items/{name}", ok), Route("/items/new", ok), Route("/about", ok), Mount("/static", ok)]
    table = fixed_paths(routes)
    assert "/items/new" not in table and [route.path for route in table["/about"]] == ["/about"]


def test_every_fixed_path_of_the_app_goes_to_the_route_the_ordered_scan_finds_first(settings: Settings) -> None:
    app = build_app(settings)
    table = fixed_paths(app.routes)
    assert "/v1/lookup" in table and "/healthz" in table
    for path, candidates in table.items():
        for method in ("GET", "POST"):
            scope = {"type": "http", "path": path, "root_path": "", "method": method}
            first = next((route for route in app.routes if route.matches(scope)[0] is Match.FULL), None)
            chosen = next((route for route in candidates if route.matches(scope)[0] is Match.FULL), None)
            assert chosen is first, (method, path)
