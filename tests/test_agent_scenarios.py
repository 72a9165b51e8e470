"""The parity proof: one table of agent scenarios, each run over /v1, over MCP on streamable HTTP and over MCP on
stdio (`benchtoward mcp`) by the same code, and the three transcripts must be identical.

A scenario is what an agent does with the contract: page a leaderboard to its end, read every prediction of a
result (and only the wrong ones), search results page by page, and recover from each kind of bad input. It calls
capabilities by their table name; each transport turns the call into its own request.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from server.capabilities import operation
from tests.conftest import LiveServer
from tests.populate import HARI

pytestmark = pytest.mark.anyio

Answer = tuple[bool, dict[str, Any]]
Call = Callable[[str, dict[str, Any]], Awaitable[Answer]]


def http_call(http: httpx.AsyncClient) -> Call:
    """A capability over /v1: its table method and route, path parameters filled in, the rest as the query."""

    async def call(name: str, arguments: dict[str, Any]) -> Answer:
        entry = operation(name)
        path, query = entry.path, {}
        for key, value in arguments.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            if "{" + key + "}" in path:
                path = path.replace("{" + key + "}", text)
            else:
                query[key] = text
        response = await http.request(entry.method, path, params=query)
        return response.status_code < 400, response.json()

    return call


def mcp_call(client: Client) -> Call:
    async def call(name: str, arguments: dict[str, Any]) -> Answer:
        result = await client.call_tool(name, arguments)
        assert result.structured_content is not None, result.content
        text = result.content[0].text  # type: ignore[union-attr]
        if result.is_error:  # the text starts with the code; the structured content is the /v1 body
            assert text == f"{result.structured_content['error']}: {result.structured_content['message']}"
        assert "\n" not in text, "tool text is compact JSON"
        return not result.is_error, result.structured_content

    return call


async def read_all(call: Call, name: str, arguments: dict[str, Any], rows: str) -> tuple[list[Any], int]:
    """Every row of a list, page by page through `next`; also the `total` the first page announced."""
    ok, page = await call(name, arguments)
    assert ok, page
    total, seen = page["total"], list(page[rows])
    for _ in range(1000):  # bounded: a list that never ends fails here
        if page["next"] is None:
            return seen, total
        ok, page = await call(name, {**arguments, "cursor": page["next"]})
        assert ok, page
        assert page["total"] == total
        seen += page[rows]
    raise AssertionError("paging did not end")


async def page_a_leaderboard_to_the_end(call: Call, run_ids: dict[str, str]) -> list[Any]:
    rows, total = await read_all(call, "leaderboard", {"task": "clinicalqa@0", "limit": 1}, "rows")
    assert len(rows) == total == 4
    assert [row["rank"] for row in rows] == sorted(row["rank"] for row in rows)
    assert len({row["run_id"] for row in rows}) == total
    baselines, _ = await read_all(call, "leaderboard", {"task": "clinicalqa@0", "tag": "Baseline "}, "rows")
    assert [row["tier"] for row in baselines] == ["baseline"] and baselines[0]["rank"] == 4
    llms, llm_total = await read_all(call, "leaderboard", {"task": "clinicalqa@0", "model_type": "LLM"}, "rows")
    assert llm_total == 3 and {row["model"]["type"] for row in llms} == {"llm"}
    return [rows, baselines, llms]


async def search_results_page_by_page(call: Call, run_ids: dict[str, str]) -> list[Any]:
    results, total = await read_all(call, "search_results", {"limit": 2}, "results")
    assert len(results) == total and len({r["run_id"] for r in results}) == total
    return results


async def read_every_prediction_of_a_result(call: Call, run_ids: dict[str, str]) -> list[Any]:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    rows, total = await read_all(call, "get_predictions", {"run_id": run_id, "limit": 100}, "head")
    ok, first = await call("get_predictions", {"run_id": run_id, "limit": 0})
    assert ok and len(rows) == total == first["rows"]
    wrong, wrong_total = await read_all(
        call, "get_predictions", {"run_id": run_id, "correct": False, "limit": 37}, "head"
    )
    assert wrong == [row for row in rows if row["correct"] is False] and wrong_total == len(wrong)
    one = rows[-1]["instance_id"]
    found, _ = await read_all(call, "get_predictions", {"run_id": run_id, "instance_id": str(one)}, "head")
    assert found == [rows[-1]]
    ok, result = await call("get_result", {"run_id": run_id})
    assert ok and result["license"] == "CC BY 4.0" and result["rank"] == 2 and result["n_items"] == total
    assert result["unit"] == "question" and result["n_units"] == total
    return [len(rows), wrong, found, result]


BAD_INPUTS: list[tuple[str, dict[str, Any], str]] = [
    ("leaderboard", {"task": "clinicalqa@0", "offset": 1}, "offset"),  # an unknown name is named
    ("leaderboard", {"task": "clinicalqa@0", "model_type": "nope"}, "'llm', 'tabular', 'timeseries' or 'baseline'"),
    ("leaderboard", {"task": "clinicalqa@0", "limit": "ten"}, "limit"),
    ("leaderboard", {"task": "clinicalqa@0", "limit": 0}, "limit"),
    ("leaderboard", {}, "task"),
    ("leaderboard", {"task": "clinicalqa@0", "tier": "agent", "tag": "baseline"}, "same filter"),
    ("leaderboard", {"task": "clinicalqa@0", "cursor": "bm9wZQ"}, "cursor"),
    ("search_results", {"tier": "gold"}, "'standard', 'agent', 'baseline' or 'official'"),
    ("list_benchmarks", {"status": "nope"}, "runs_here"),  # the known statuses are listed
    ("get_task", {"slug": "clinicalqa", "version": "latest"}, "version"),
    ("get_predictions", {"run_id": "000000000000", "limit": 101}, "limit"),
]


async def recover_from_each_kind_of_bad_input(call: Call, run_ids: dict[str, str]) -> list[Any]:
    answers = []
    for name, arguments, named in BAD_INPUTS:
        ok, body = await call(name, arguments)
        assert not ok and body["error"] == "bad_request", (name, arguments, body)
        assert named in body["message"], (named, body)
        assert "pydantic" not in body["message"] and "http" not in body["message"]
        answers.append(body)
    ok, garbled = await call("leaderboard", {"task": "clinicalqa@0", "cursor": "x", "limit": 1})
    assert not ok and "cursor" in garbled["message"]
    answers.append(garbled)
    ok, first = await call("leaderboard", {"task": "clinicalqa@0", "limit": 1})
    ok_other, other = await call("leaderboard", {"task": "clinicalqa@0", "tier": "baseline", "cursor": first["next"]})
    assert not ok_other and "other filters" in other["message"]
    ok, missing = await call("get_task", {"slug": "clinicaqa"})  # not found: the code is the same everywhere
    answers.append(missing["error"])
    return answers


SCENARIOS = [
    page_a_leaderboard_to_the_end,
    search_results_page_by_page,
    read_every_prediction_of_a_result,
    recover_from_each_kind_of_bad_input,
]


def stdio_parameters(server: LiveServer) -> StdioServerParameters:
    command = shutil.which("benchtoward", path=str(Path(sys.executable).parent)) or "benchtoward"
    return StdioServerParameters(
        command=command,
        args=["mcp", "--db", str(server.settings.db), "--public-url", server.url],
        env={**os.environ, "BENCHTOWARD_LOG_LEVEL": "warning"},
    )


@pytest.mark.timeout(120)
async def test_every_agent_scenario_answers_the_same_over_v1_mcp_http_and_stdio(
    data_live_server: LiveServer, run_ids: dict[str, str]
) -> None:
    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(httpx.AsyncClient(base_url=data_live_server.url))
        mcp_http = await stack.enter_async_context(Client(f"{data_live_server.url}/mcp"))
        mcp_stdio = await stack.enter_async_context(Client(stdio_parameters(data_live_server)))
        transports = {"v1": http_call(http), "mcp-http": mcp_call(mcp_http), "mcp-stdio": mcp_call(mcp_stdio)}
        for scenario in SCENARIOS:
            transcripts = {name: await scenario(call, run_ids) for name, call in transports.items()}
            assert transcripts["mcp-http"] == transcripts["v1"], scenario.__name__
            assert transcripts["mcp-stdio"] == transcripts["v1"], scenario.__name__


async def test_a_repeated_query_parameter_is_refused_naming_it(data_client: httpx.AsyncClient) -> None:
    response = await data_client.get("/v1/lookup?model=baseline/majority&model=baseline/random&task=clinicalqa@0")
    assert response.status_code == 400
    assert response.json() == {
        "error": "bad_request",
        "message": "parameter 'model' is given more than once; give it once",
    }


async def test_a_path_parameter_cannot_be_overridden_by_the_query(data_client: httpx.AsyncClient) -> None:
    response = await data_client.get("/v1/tasks/clinicalqa?slug=vitaldb-ioh")
    assert response.status_code == 400 and "path" in response.json()["message"]


async def test_a_task_named_with_two_versions_is_refused(data_client: httpx.AsyncClient) -> None:
    response = await data_client.get("/v1/tasks/clinicalqa@0?version=1")
    assert response.status_code == 400 and "give one" in response.json()["message"]
    same = await data_client.get("/v1/tasks/clinicalqa@0?version=0")
    assert same.status_code == 200 and same.json()["task"] == "clinicalqa@0"
