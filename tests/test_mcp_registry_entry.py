"""The MCP registry's server.json stays true: the committed file is what `benchtoward server-json` builds, it meets
the registry's schema, and the URL it names for a deployment reaches that deployment's MCP server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from mcp import Client

from server.registry_entry import server_json
from tests.conftest import LiveServer

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parent.parent
SCHEMA = Path(__file__).parent / "data" / "mcp_registry" / "server.schema.excerpt.json"


def validate(entry: dict[str, Any]) -> None:
    schema = orjson.loads(SCHEMA.read_bytes())
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(entry)


def test_the_committed_server_json_is_what_the_code_builds_and_meets_the_schema() -> None:
    committed = orjson.loads((ROOT / "server.json").read_bytes())
    assert committed == server_json()
    validate(committed)
    (remote,) = committed["remotes"]
    assert remote["type"] == "streamable-http" and remote["url"] == "https://{host}/mcp"
    assert set(remote["variables"]) == {"host"}


def test_the_schema_check_refuses_a_description_over_the_registry_limit() -> None:
    with pytest.raises(jsonschema.ValidationError):
        validate({**server_json(), "description": "x" * 101})


def test_the_cli_prints_the_entry_of_one_deployment() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "server-json", "--public-url", "https://registry.example.org/"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    entry = orjson.loads(done.stdout)
    validate(entry)
    assert entry["remotes"] == [{"type": "streamable-http", "url": "https://registry.example.org/mcp"}]


async def test_the_url_it_names_reaches_an_mcp_server_of_the_same_version(live_server: LiveServer) -> None:
    (remote,) = server_json(live_server.url)["remotes"]
    async with Client(remote["url"]) as client:
        assert client.server_info is not None
        assert client.server_info.version == server_json()["version"]
        assert "lookup" in {tool.name for tool in (await client.list_tools()).tools}
