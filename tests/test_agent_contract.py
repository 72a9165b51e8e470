"""The contract an agent reads before it calls anything: MCP input schemas carry exactly the constraints of the
OpenAPI parameters, `tools/list` stays small, every output field is described, and the capability table says
truthfully which capabilities count reuse."""

from __future__ import annotations

import inspect
import re
from typing import Any

import anyio
import httpx
import orjson
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from server.capabilities import OPERATIONS, parameters
from server.openapi import EMPTY, openapi_document
from tests.conftest import LiveServer
from tests.populate import HARI
from tools.usage import UsageCounter, Visitor

pytestmark = pytest.mark.anyio
# Issue 11's target for the 16 tools with every output description kept (~19.5K; bench/agent_bench.py prints it).
TOOLS_LIST_MAX_CHARS = 20_000


def openapi_parameters() -> dict[str, dict[str, dict[str, Any]]]:
    """{operationId: {parameter: parameter object}} of the served document."""
    document = openapi_document("http://testserver")
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for methods in document["paths"].values():
        for spec in methods.values():
            found[spec["operationId"]] = {p["name"]: p for p in spec.get("parameters", [])}
            body = spec.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body and "properties" in body:  # a JSON body's fields are that operation's parameters
                found[spec["operationId"]] = {
                    name: {
                        "schema": prop,
                        "description": prop["description"],
                        "required": name in body.get("required", []),
                        "in": "body",
                    }
                    for name, prop in body["properties"].items()
                }
    return found


def constraints(schema: dict[str, Any]) -> dict[str, Any]:
    """A parameter schema as a caller must satisfy it: no prose, no default, no empty or null alternative."""
    schema = {key: value for key, value in schema.items() if key not in ("description", "default", "title")}
    if "anyOf" in schema:
        kept = [alt for alt in schema["anyOf"] if alt != EMPTY and alt.get("type") != "null"]
        rest = {key: value for key, value in schema.items() if key != "anyOf"}
        return {**rest, **kept[0]} if len(kept) == 1 else {**rest, "anyOf": kept}
    return schema


async def test_mcp_input_schemas_carry_exactly_the_constraints_of_the_openapi_parameters(
    live_server: LiveServer,
) -> None:
    async with Client(f"{live_server.url}/mcp") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    documented = openapi_parameters()
    compared = 0
    for name, tool in tools.items():
        schema = tool.input_schema
        assert schema.get("additionalProperties") is False, name  # an unknown argument is refused
        assert set(schema["properties"]) == set(documented[name]), name
        for parameter, declared in documented[name].items():
            served = schema["properties"][parameter]
            assert constraints(served) == constraints(declared["schema"]), (name, parameter)
            assert served["description"] == declared["description"], (name, parameter)
            assert (parameter in schema.get("required", [])) == declared["required"] or declared["in"] == "path"
            compared += 1
    assert compared == sum(len(parameters(entry.query)) for entry in OPERATIONS if entry.mcp) > 30  # every one
    leaderboard = tools["leaderboard"].input_schema["properties"]
    assert leaderboard["limit"]["maximum"] == 1000 and leaderboard["limit"]["minimum"] == 1
    assert leaderboard["model_type"]["enum"] == ["llm", "tabular", "timeseries", "baseline"]
    assert leaderboard["task"]["pattern"].startswith("^")


async def test_tools_list_fits_its_budget_and_keeps_every_output_description(live_server: LiveServer) -> None:
    async with Client(f"{live_server.url}/mcp") as client:
        listed = (await client.list_tools()).tools
    size = len(orjson.dumps([tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed]))
    assert size <= TOOLS_LIST_MAX_CHARS, size
    board = next(tool for tool in listed if tool.name == "leaderboard").output_schema
    assert board is not None
    row = board["$defs"]["LeaderboardRow"]["description"]
    for field in ("n", "n_items", "n_units", "unit", "rank", "rank_range", "tier"):
        assert re.search(rf"(^|[.;] ){field}: ", row), field  # each field with its description
    assert "0-1 scale" in board["$defs"]["MetricValue"]["description"]
    assert "preview: " in board["description"] and "next: " in board["description"]
    described = orjson.dumps([tool.output_schema for tool in listed]).decode()
    checked = 0
    for entry in (entry for entry in OPERATIONS if entry.mcp):  # every described output field, nested ones too
        schema = entry.response.model_json_schema(mode="serialization")
        for shape in [schema, *schema.get("$defs", {}).values()]:
            for field, prop in shape.get("properties", {}).items():
                if "description" in prop:
                    text = orjson.dumps(" ".join(prop["description"].split()).rstrip(".")[:60]).decode()[1:-1]
                    assert field in described and text in described, (entry.name, field)
                    checked += 1
    assert checked > 200, checked  # every answer, every nested shape


async def test_tools_list_spells_each_shared_shape_once_and_every_named_shape_is_found(live_server: LiveServer) -> None:
    async with Client(f"{live_server.url}/mcp") as client:
        outputs = {tool.name: tool.output_schema or {} for tool in (await client.list_tools()).tools}
    spelt = [name for schema in outputs.values() for name in schema.get("$defs", {})]
    assert len(spelt) == len(set(spelt)) and {"LeaderboardRow", "MetricValue", "ModelRef"} <= set(spelt)
    text = orjson.dumps(outputs).decode()
    named = set(re.findall(r"\(([A-Z][A-Za-z]+)(?:\[\])?\)", text)) | set(re.findall(r" as in ([A-Z][A-Za-z]+)", text))
    assert len(named) > 5 and named <= set(spelt), named - set(spelt)  # each name leads to its fields
    assert "LeaderboardRow" in outputs["search_results"]["$defs"]["ResultSummary"]["description"]  # a shared base
    assert "n_units" not in outputs["search_results"]["$defs"]["ResultSummary"]["description"]  # not listed again
    assert "predictions {url: " in outputs["get_result"]["description"]  # a shape one field holds, in place
    assert outputs["lookup"]["$defs"]["ResultDetail"]["description"] == "get_result's output."


def test_the_table_says_which_capabilities_take_the_caller_as_their_functions_do() -> None:
    for entry in OPERATIONS:
        takes_visitor = "visitor" in inspect.signature(entry.function).parameters
        assert entry.takes_visitor == takes_visitor, entry.name
        assert entry.caller in ("visitor", "maintainer") and entry.cache in ("store", "none")
        assert entry.method in ("GET", "POST") and entry.path.startswith("/v1/")


async def test_an_mcp_error_names_tools_and_carries_the_v1_body(data_live_server: LiveServer) -> None:
    async with Client(f"{data_live_server.url}/mcp") as client:
        missing = await client.call_tool("get_task", {"slug": "nope"})
        typo = await client.call_tool("leaderboard", {"task": "clinicalqa", "limit": 2.5})
    assert missing.is_error and missing.structured_content is not None
    assert missing.structured_content["error"] == "task_not_found"
    assert "list_tasks" in missing.structured_content["message"]
    assert "/v1/" not in missing.structured_content["message"]
    assert typo.is_error and typo.structured_content == {
        "error": "bad_request",
        "message": "limit: Input should be a valid integer, got a number with a fractional part",
    }


async def reuses(http: httpx.AsyncClient, lookups: int) -> dict[str, int]:
    """The reuse counters once `lookups` lookups are written (events are flushed every few seconds, in order, so
    every event sent before the last counted one is written by then); bounded at ~20 s."""
    for _ in range(200):
        counted: dict[str, int] = (await http.get("/v1/stats")).json()["reuses"]
        if counted["lookups"] >= lookups:
            return counted
        await anyio.sleep(0.1)  # a bounded poll of the server's periodic flush, not a fixed wait
    raise TimeoutError(f"lookups did not reach {lookups}")


@pytest.mark.timeout(60)
async def test_mcp_over_http_counts_reuse_by_the_same_rules_as_v1(
    data_live_server: LiveServer, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    found = {"model": HARI.slug, "task": "clinicalqa@0"}
    crawler = create_mcp_http_client(headers={"user-agent": "Mozilla/5.0 (compatible; GPTBot/1.0)"})
    async with (
        httpx.AsyncClient(base_url=data_live_server.url) as http,
        Client(f"{data_live_server.url}/mcp") as person,
        crawler,
        Client(streamable_http_client(f"{data_live_server.url}/mcp", http_client=crawler)) as bot,
    ):
        for _ in range(5):  # one visitor reading one result five times: one download a day, as over /v1
            assert not (await person.call_tool("get_result", {"run_id": run_id})).is_error
        for _ in range(3):  # a crawler's lookups are not reuse
            assert not (await bot.call_tool("lookup", found)).is_error
        for _ in range(3):  # HEAD reads nothing: never counted
            assert (await http.head("/v1/lookup", params=found)).status_code == 200
        assert not (await person.call_tool("lookup", found)).is_error  # the one lookup that counts
        counted = await reuses(http, lookups=1)
    assert counted == {"total": 2, "lookups": 1, "downloads": 1}


def test_a_stdio_session_is_one_visitor_a_day_and_head_never_counts() -> None:
    secret = b"s" * 32
    first, again = Visitor.local(secret), Visitor.local(secret)
    assert first.hash is not None and first == again and not first.bot  # downloads dedupe per day, as over HTTP
    assert Visitor.local(b"t" * 32).hash != first.hash  # derived from the server secret, not guessable
    usage = UsageCounter()
    usage.count_lookup(Visitor.uncounted(), "0123456789ab")
    usage.count_download(Visitor.uncounted(), "/v1/results/0123456789ab", "0123456789ab")
    assert usage.pending == []
