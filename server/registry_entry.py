"""The MCP registry's `server.json` for BenchToward's streamable-HTTP endpoint (`benchtoward server-json`).

The repository's `server.json` is this function's output without a public URL: its remote names the host as a
template variable (the registry's 2025-12-11 schema), so each deployment fills in its own; with `--public-url`
the command prints the entry of one deployment. A test keeps the file equal to the function's output, the
version equal to the MCP server's, and connects an MCP client to the URL it names.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from evaluator.version import HARNESS_VERSION

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
NAME = "io.github.benchtoward/benchmarks"  # the GitHub namespace of the code (seed 002: benchtoward/benchmarks)
DESCRIPTION = "Medical-AI evaluation results computed once: lookup, leaderboards, results, predictions."
MCP_PATH = "/mcp"


def remote(public_url: str | None) -> dict[str, Any]:
    if public_url is None:
        return {
            "type": "streamable-http",
            "url": "https://{host}" + MCP_PATH,
            "variables": {
                "host": {"description": "Host name of the BenchToward deployment to use.", "isRequired": True}
            },
        }
    parts = urlsplit(public_url)
    return {"type": "streamable-http", "url": f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}{MCP_PATH}"}


def server_json(public_url: str | None = None) -> dict[str, Any]:
    """The registry entry; with `public_url`, for that deployment, else with the host left as a variable."""
    return {
        "$schema": SCHEMA,
        "name": NAME,
        "title": "BenchToward",
        "description": DESCRIPTION,
        "version": HARNESS_VERSION,
        "repository": {"url": "https://github.com/benchtoward/benchmarks", "source": "github"},
        "remotes": [remote(public_url)],
    }
