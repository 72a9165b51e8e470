"""Socket-level tests on a real uvicorn: MCP over streamable HTTP with the SDK's client, parity of /v1 and
MCP, DNS-rebinding protection following --public-url, and MCP over stdio with `benchtoward mcp`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from server.capabilities import OPERATIONS
from tests.conftest import LiveServer
from tests.populate import HARI, MEDGEMMA
from tests.review_support import HARI_CARD, make_maintainer

pytestmark = pytest.mark.anyio

TOOLS = {op.name for op in OPERATIONS if op.mcp}


def parity_calls(run_ids: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, /v1 URL, arguments) for each capability."""
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    return [
        ("list_datasets", "/v1/datasets", {}),
        ("list_tasks", "/v1/tasks", {}),
        ("get_task", "/v1/tasks/clinicalqa?version=0", {"slug": "clinicalqa", "version": 0}),
        ("leaderboard", "/v1/leaderboard?task=clinicalqa@0&limit=3", {"task": "clinicalqa@0", "limit": 3}),
        ("search_results", "/v1/results?dataset=clinicalqa", {"dataset": "clinicalqa"}),
        ("get_result", f"/v1/results/{run_id}", {"run_id": run_id}),
        (
            "lookup",
            "/v1/lookup?model=medgemma-27b&task=clinicalqa",
            {"model": "medgemma-27b", "task": "clinicalqa"},
        ),
        ("get_predictions", f"/v1/predictions/{run_id}?limit=2", {"run_id": run_id, "limit": 2}),
        ("get_model", "/v1/model?model=hari-q3-8b", {"model": "hari-q3-8b"}),
        ("stats", "/v1/stats", {}),
        (
            "list_benchmarks",
            "/v1/benchmarks?tag=medical&runs_here=true&q=clinical",
            {"tag": "medical", "runs_here": True, "q": "clinical"},
        ),
        ("get_benchmark", "/v1/benchmarks/medbench", {"id": "medbench"}),
        ("list_evidence", "/v1/evidence?model=hari-q3-8b", {"model": "hari-q3-8b"}),
        (
            "compare",
            f"/v1/compare?task=clinicalqa@0&a={run_ids[f'{MEDGEMMA.slug}@clinicalqa@0']}&b={run_id}",
            {"task": "clinicalqa@0", "a": run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"], "b": run_id},
        ),
        ("list_models", "/v1/models?q=hari&limit=5", {"q": "hari", "limit": 5}),
    ]


async def test_the_sdk_client_lists_every_tool_read_only_with_schemas(live_server: LiveServer) -> None:
    async with Client(f"{live_server.url}/mcp") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for operation in (op for op in OPERATIONS if op.mcp):
        tool = tools[operation.name]
        assert tool.annotations is not None and tool.annotations.read_only_hint is (operation.method == "GET")
        assert tool.output_schema and tool.description
    assert tools["request_evaluation"].annotations.idempotent_hint  # type: ignore[union-attr]
    assert "lookup" in tools["lookup"].description.lower() and "before" in tools["lookup"].description
    assert set(tools["leaderboard"].input_schema["required"]) == {"task"}


async def test_v1_json_equals_the_mcp_structured_output_for_each_capability(
    data_live_server: LiveServer, run_ids: dict[str, str]
) -> None:
    calls = parity_calls(run_ids)
    posts = {op.name for op in OPERATIONS if op.method == "POST"}  # compared in tests/test_requests_flow.py
    assert {name for name, _, _ in calls} == TOOLS - posts
    async with (
        httpx.AsyncClient(base_url=data_live_server.url) as http,
        Client(f"{data_live_server.url}/mcp") as mcp,
    ):
        for name, url, arguments in calls:
            rest = (await http.get(url)).json()
            result = await mcp.call_tool(name, arguments)
            assert not result.is_error, (name, result.content)
            if name == "stats":  # a lookup above counted a reuse in between: compare all but the counter
                rest.pop("reuses"), result.structured_content.pop("reuses")  # type: ignore[union-attr]
            assert result.structured_content == rest, name


async def test_mcp_errors_start_with_the_same_code_as_v1(data_live_server: LiveServer) -> None:
    async with Client(f"{data_live_server.url}/mcp") as mcp:
        missing = await mcp.call_tool("lookup", {"model": MEDGEMMA.slug, "task": "nope@0"})
        bad = await mcp.call_tool("leaderboard", {"task": "clinicalqa", "limit": -1})
        gone = await mcp.call_tool("get_result", {"run_id": "000000000000"})
        no_entry = await mcp.call_tool("get_benchmark", {"id": "nope"})
        bad_search = await mcp.call_tool("list_benchmarks", {"q": "***"})
    for result, code in (
        (missing, "task_not_found"),
        (bad, "bad_request"),
        (gone, "run_not_found"),
        (no_entry, "benchmark_not_found"),
        (bad_search, "bad_request"),
    ):
        assert result.is_error
        assert result.content[0].text.startswith(f"{code}: ")  # type: ignore[union-attr]


async def test_task_specs_are_mcp_resources(live_server: LiveServer) -> None:
    async with Client(f"{live_server.url}/mcp") as mcp:
        templates = (await mcp.list_resource_templates()).resource_templates
        spec = await mcp.read_resource("benchtoward://tasks/vitaldb-ioh@0")
    assert [t.uri_template for t in templates] == ["benchtoward://tasks/{slug}@{version}"]
    body = orjson.loads(spec.contents[0].text)  # type: ignore[union-attr]
    assert body["task"] == "vitaldb-ioh@0" and len(body["spec_hash"]) == 64


async def test_mcp_refuses_a_host_that_is_neither_loopback_nor_the_public_url(
    live_server: LiveServer,
) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx.AsyncClient() as http:
        evil = await http.post(f"{live_server.url}/mcp", json=request, headers={**headers, "host": "evil.example"})
    assert evil.status_code == 421


async def test_mcp_accepts_the_host_of_the_public_url(settings) -> None:  # type: ignore[no-untyped-def]
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with LiveServer(settings, public_url="https://bench.example.org") as server:
        async with httpx.AsyncClient() as http:
            public = await http.post(f"{server.url}/mcp", json=ping, headers={**headers, "host": "bench.example.org"})
            other = await http.post(f"{server.url}/mcp", json=ping, headers={**headers, "host": "other.example.org"})
    assert public.status_code == 200, public.text
    assert other.status_code == 421


async def test_a_stdio_session_with_benchtoward_mcp_lists_and_calls_tools(
    settings,
    run_ids: dict[str, str],  # type: ignore[no-untyped-def]
) -> None:
    command = shutil.which("benchtoward", path=str(Path(sys.executable).parent)) or "benchtoward"
    parameters = StdioServerParameters(
        command=command,
        args=["mcp", "--db", str(settings.db), "--public-url", settings.base_url],
        env={**os.environ, "BENCHTOWARD_LOG_LEVEL": "warning"},
    )
    async with Client(parameters) as mcp:
        names = {tool.name for tool in (await mcp.list_tools()).tools}
        found = await mcp.call_tool("lookup", {"model": "hari-q3-8b", "task": "clinicalqa@0"})
    assert names == TOOLS
    assert found.structured_content["status"] == "evaluated"  # type: ignore[index]
    assert found.structured_content["result"]["run_id"] == run_ids[f"{HARI.slug}@clinicalqa@0"]  # type: ignore[index]


def test_the_http_server_answers_a_plain_socket_client(live_server: LiveServer) -> None:
    response = httpx.get(f"{live_server.url}/v1/tasks")
    assert response.status_code == 200
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert "set-cookie" not in response.headers


def test_benchtoward_cli_is_installed() -> None:
    result = subprocess.run([sys.executable, "-m", "server.cli", "--help"], capture_output=True, text=True, check=True)
    assert "serve" in result.stdout and "import-result" in result.stdout


def readme_curl_commands() -> list[str]:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    return [line.strip() for line in readme.splitlines() if line.strip().startswith("curl ")]


async def test_every_curl_example_in_the_readme_works(
    data_live_server: LiveServer, run_ids: dict[str, str], tmp_path: Path
) -> None:
    commands = readme_curl_commands()
    assert len(commands) >= 10
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    env = {**os.environ, "TOKEN": await make_maintainer(data_live_server.settings)}  # the maintainers' examples
    shutil.copyfile(HARI_CARD, tmp_path / "model_card.md")
    for command in commands:
        line = command.replace("http://127.0.0.1:8000", data_live_server.url).replace("<run_id>", run_id)
        line = line.replace("<other_run_id>", run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"])  # /v1/compare's B
        if shutil.which("curl"):
            done = subprocess.run(
                [
                    "bash",
                    "-c",
                    f"{line} --fail --silent --show-error --output /dev/null"
                    if " -o " not in line
                    else f"{line} --fail --silent --show-error",
                ],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=60,
                env=env,
            )
            assert done.returncode == 0, (line, done.stderr)
        elif " -H " not in line:  # without curl, the plain GET examples
            url = line.split('"')[-2]
            assert httpx.get(url).status_code == 200, line
