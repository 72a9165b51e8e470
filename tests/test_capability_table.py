"""Every /v1 route comes from exactly one entry of the capability table (visitors' and maintainers' alike), and a
maintainer's entry is served with a bearer check, no MCP tool and its OpenAPI security, all from that one entry."""

from __future__ import annotations

import re

import httpx
import pytest
from mcp import Client
from starlette.routing import Route

from server.app import build_app
from server.capabilities import OPERATIONS
from server.http_cache import Kind, kind_of
from server.operation import NoInput, Operation
from server.settings import Settings
from tests.conftest import LiveServer
from tests.review_support import query, snapshot

pytestmark = pytest.mark.anyio
# /v1 routes that are not capabilities: a format of one (the leaderboard as CSV, parsed by the leaderboard's own
# entry), the pages' visit beacon and the OpenAPI document itself.
NOT_CAPABILITIES = {"leaderboard_csv", "beacon", "openapi"}
# A value of the right shape for each path parameter, so that only the missing token can be refused.
PATH_VALUES = {
    "item_id": "1",
    "run_id": "0123456789ab",
    "task": "clinicalqa@0",
    "request_id": "1",
    "slug": "clinicalqa",
    "id": "medbench",
}


def v1_routes(settings: Settings) -> list[Route]:
    app = build_app(settings)
    return [route for route in app.routes if isinstance(route, Route) and route.path.startswith("/v1/")]


def url_of(entry: Operation) -> str:
    return re.sub(r"{(\w+)}", lambda match: PATH_VALUES[match.group(1)], entry.path)


def test_every_v1_route_comes_from_exactly_one_capability_entry(settings: Settings) -> None:
    served: list[tuple[str, str]] = []
    for route in v1_routes(settings):
        methods = (route.methods or set()) - {"HEAD"}
        assert len(methods) == 1, route.path
        method = methods.pop()
        served.append((route.path, method))
        entries = [op for op in OPERATIONS if (op.path, op.method) == (route.path, method)]
        if route.name in NOT_CAPABILITIES:
            assert entries == [], route.name
            continue
        assert [entry.name for entry in entries] == [route.name], (method, route.path)
    assert len(served) == len(set(served))  # no route twice
    assert {(op.path, op.method) for op in OPERATIONS} <= set(served)  # and no entry without its route
    assert len({op.name for op in OPERATIONS}) == len(OPERATIONS)
    assert {op.name for op in OPERATIONS if op.caller == "maintainer"} >= {"review_queue", "approve_item", "read_paper"}


def test_a_maintainers_entry_can_be_neither_an_mcp_tool_nor_cached() -> None:
    review = next(op for op in OPERATIONS if op.caller == "maintainer")
    arguments = {"name": "x", "function": review.function, "query": NoInput, "response": review.response}
    with pytest.raises(ValueError, match="no MCP tool"):
        Operation(**arguments, path="/v1/review/x", summary="x", caller="maintainer", cache="none")
    with pytest.raises(ValueError, match="never cached"):
        Operation(**arguments, path="/v1/review/x", summary="x", caller="maintainer", mcp=False)
    assert all(not op.mcp and op.cache == "none" for op in OPERATIONS if op.caller == "maintainer")


def test_each_entrys_cache_policy_is_the_one_its_route_is_served_with() -> None:
    """A maintainer's answer is private and never stored; a read kept until the next write may be shared for
    30 s with a revalidating ETag; an answer computed for each call is not stored anywhere."""
    expected = {
        ("maintainer", "none"): Kind.PRIVATE,
        ("visitor", "store"): Kind.REGISTRY,
        ("visitor", "none"): Kind.UNCACHED,
    }
    for entry in OPERATIONS:
        assert kind_of(entry.method, url_of(entry)) is expected[(entry.caller, entry.cache)], entry.name


async def test_every_maintainers_route_refuses_a_missing_token_and_changes_nothing(
    settings: Settings, client: httpx.AsyncClient
) -> None:
    before = snapshot(settings.db)
    maintainers = [op for op in OPERATIONS if op.caller == "maintainer"]
    for entry in maintainers:
        response = await client.request(entry.method, url_of(entry), json={} if entry.method == "POST" else None)
        assert response.status_code == 401, (entry.name, response.text)
        assert response.json()["error"] == "unauthorized", entry.name
    assert snapshot(settings.db) == before
    assert query(settings.db, "SELECT COUNT(*) FROM audit_log") == [(0,)]


async def test_the_openapi_document_and_the_mcp_tools_follow_each_entrys_caller(live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url) as http, Client(f"{live_server.url}/mcp") as mcp:
        document = (await http.get("/v1/openapi.json")).json()
        tools = {tool.name for tool in (await mcp.list_tools()).tools}
    assert tools == {op.name for op in OPERATIONS if op.mcp}
    for entry in OPERATIONS:
        described = document["paths"][entry.path][entry.method.lower()]
        assert described["operationId"] == entry.name
        bearer = [{"bearer": []}] if entry.caller == "maintainer" else []
        assert described.get("security", []) == bearer, entry.name
        assert str(entry.status) in described["responses"], entry.name
        if entry.caller == "maintainer":
            assert entry.name not in tools and {"401", "429"} <= set(described["responses"])
