"""Agent-contract benchmark: what an agent reads before it calls anything, and what the stricter contract costs.

Prints, from one BenchToward process: the size of MCP `tools/list` (the JSON-RPC result, compact) and of
/llms.txt beside their targets, and /v1/lookup's requests/s beside the trivial route's in the same run (the
one parse-and-validate path and the paging fields must not slow lookup below 0.7 x the trivial route).

    .venv/bin/python bench/agent_bench.py [--models 50] [--seconds 4] [--connections 32]

Targets (issue 11): tools/list <= 20,000 characters; llms.txt <= 8,000 characters; lookup >= 0.7 x trivial.
wrk (Debian package) is the load generator, one thread; on a 2-core machine it shares the CPU with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import urllib.request
from pathlib import Path

import orjson
from servers import ensure_database, requests_per_second, served

TOOLS_LIST_TARGET = 20_000
LLMS_TARGET = 8_000
LOOKUP_RATIO_TARGET = 0.7


async def tools_list_chars(url: str) -> tuple[int, int]:
    """(characters of the tools/list result as compact JSON, number of tools)."""
    from mcp import Client

    async with Client(f"{url}/mcp") as client:
        tools = (await client.list_tools()).tools
    listed = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
    return len(orjson.dumps({"tools": listed}).decode()), len(tools)


def llms_chars(url: str) -> int:
    with urllib.request.urlopen(f"{url}/llms.txt", timeout=30) as response:
        return len(response.read().decode("utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument(
        "--pin", action="store_true", help="the server on core 0 and wrk on core 1, so neither takes the other's time"
    )
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp(prefix="benchtoward-agent-")) / "bench.db"
    ensure_database(db, args.models, ["clinicalqa@0", "vitaldb-ioh@0"])
    server_cpus, load_cpus = ("0", "1") if args.pin else (None, None)
    with served(db, cpus=server_cpus) as (url, _):
        size, tools = asyncio.run(tools_list_chars(url))
        guide = llms_chars(url)
        trivial = requests_per_second(f"{url}/healthz", args.connections, args.seconds, cpus=load_cpus)
        lookup = requests_per_second(
            f"{url}/v1/lookup?model=model-007&task=clinicalqa@0", args.connections, args.seconds, cpus=load_cpus
        )
    pinning = ", server on core 0, wrk on core 1" if args.pin else ""
    print(f"\n{args.connections} connections, {args.seconds} s each, {args.models} models x 2 tasks, wrk -t1{pinning}")
    print(f"  tools/list ({tools} tools)        {size:>9,} chars   (target <= {TOOLS_LIST_TARGET:,})")
    print(f"  /llms.txt                      {guide:>9,} chars   (target <= {LLMS_TARGET:,})")
    print(f"  trivial /healthz               {trivial:>9.0f} req/s")
    print(f"  /v1/lookup                     {lookup:>9.0f} req/s")
    print(f"  lookup / trivial route         {lookup / trivial:>9.2f}         (target >= {LOOKUP_RATIO_TARGET})")


if __name__ == "__main__":
    main()
