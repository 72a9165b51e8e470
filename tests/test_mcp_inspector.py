"""A third-party MCP client, the MCP Inspector CLI (from the npm registry), lists and calls every tool."""

from __future__ import annotations

import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from server.capabilities import OPERATIONS
from tests.conftest import LiveServer
from tests.populate import HARI, MEDGEMMA

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("npx") is None, reason="npx (Node.js) is not installed on this machine"),
]
INSPECTOR = "@modelcontextprotocol/inspector@0.21.2"  # the last line that runs on Node.js 20


def inspector(url: str, *arguments: str) -> dict:  # type: ignore[type-arg]
    command = ["npx", "-y", INSPECTOR, "--cli", f"{url}/mcp", "--transport", "http", *arguments]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


async def test_the_inspector_lists_and_calls_every_tool(data_live_server: LiveServer, run_ids: dict[str, str]) -> None:
    listed = inspector(data_live_server.url, "--method", "tools/list")
    assert {tool["name"] for tool in listed["tools"]} == {op.name for op in OPERATIONS if op.mcp}
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    arguments = {
        "list_datasets": [],
        "list_tasks": [],
        "stats": [],
        "get_task": ["slug=vitaldb-ioh"],
        "leaderboard": ["task=clinicalqa@0"],
        "search_results": ["model=hari-q3-8b"],
        "get_result": [f"run_id={run_id}"],
        "lookup": ["model=hari-q3-8b", "task=clinicalqa"],
        "get_predictions": [f"run_id={run_id}"],
        "get_model": ["model=hari-q3-8b"],
        "list_benchmarks": ["q=medbench"],
        "get_benchmark": ["id=medbench"],
        "compare": ["task=clinicalqa@0", f"a={run_ids[f'{MEDGEMMA.slug}@clinicalqa@0']}", f"b={run_id}"],
        "list_models": ["q=hari"],
    }

    def call(name: str) -> dict:  # type: ignore[type-arg]
        flags = [part for value in arguments[name] for part in ("--tool-arg", value)]
        return inspector(data_live_server.url, "--method", "tools/call", "--tool-name", name, *flags)

    with ThreadPoolExecutor(max_workers=3) as pool:  # each call boots Node.js: a few seconds apiece
        called = dict(zip(arguments, pool.map(call, arguments), strict=True))
    for name, answer in called.items():
        assert not answer.get("isError"), (name, answer)
        assert answer["structuredContent"], name
    assert called["lookup"]["structuredContent"]["result"]["run_id"] == run_id
    assert called["get_result"]["structuredContent"]["model"]["slug"] == HARI.slug
    assert called["list_benchmarks"]["structuredContent"]["benchmarks"][0]["id"] == "medbench"
    assert called["get_benchmark"]["structuredContent"]["name_collision"]["detected_from"] == "body: Lineage"
