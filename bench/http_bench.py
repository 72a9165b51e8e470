"""HTTP benchmark: requests/s of /v1/lookup, /v1/leaderboard and a trivial route of one BenchToward process,
side by side with datasette answering the equivalent lookup as JSON from the same SQLite file, plus the
round trip of one MCP `lookup` call over streamable HTTP.

    .venv/bin/python bench/http_bench.py [--models 50] [--seconds 8] [--connections 32]

Targets (issue 2): lookup >= 0.6 x the trivial route; BenchToward lookup >= 2 x datasette's lookup.
datasette is installed only into this benchmark's own venv (.cache/bench-datasette). wrk (Debian package)
is the load generator, one thread, 32 connections; on a 2-core machine it shares the CPU with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from servers import ROOT, benchtoward, ensure_database, free_port, requests_per_second, wait_for

DATASETTE_VENV = ROOT / ".cache" / "bench-datasette"
LOOKUP_SQL = (
    "select r.run_id, r.run_key, r.model_slug, r.task_slug, r.task_version, r.spec_hash, r.tier, r.status, "
    "r.primary_metric, r.primary_value, r.metrics_json, r.n, r.parse_rate, r.cost_usd, r.eval_date, "
    "r.config_json, r.versions_json, r.bibtex from results r join model_aliases a on a.model_slug = r.model_slug "
    "where a.alias = :model and r.task_slug = :task and r.task_version = :version and r.status = 'published' "
    "and r.partial = 0 order by r.created_at desc limit 1"
)


def ensure_datasette() -> Path:
    binary = DATASETTE_VENV / "bin" / "datasette"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(DATASETTE_VENV)], check=True)
        subprocess.run([str(DATASETTE_VENV / "bin" / "pip"), "install", "-q", "datasette"], check=True)
    return binary


def datasette_lookup_url(base: str, db: Path) -> str:
    query = urllib.parse.urlencode(
        {"sql": LOOKUP_SQL, "model": "model-007", "task": "clinicalqa", "version": 0, "_shape": "array"}
    )
    return f"{base}/{db.stem}.json?{query}"


async def mcp_round_trips(url: str, calls: int) -> list[float]:
    from mcp import Client

    times = []
    async with Client(f"{url}/mcp") as client:
        for _ in range(calls):
            started = time.perf_counter()
            result = await client.call_tool("lookup", {"model": "model-007", "task": "clinicalqa@0"})
            times.append((time.perf_counter() - started) * 1000)
            assert not result.is_error
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="benchtoward-http-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "bench.db"
    ensure_database(db, args.models, ["clinicalqa@0", "vitaldb-ioh@0"])
    figures: dict[str, float] = {}
    with benchtoward(db) as url:
        lookup = f"{url}/v1/lookup?model=model-007&task=clinicalqa@0"
        for name, target in (
            ("trivial /healthz", f"{url}/healthz"),
            ("/v1/lookup", lookup),
            ("/v1/leaderboard", f"{url}/v1/leaderboard?task=clinicalqa@0&limit=50"),
        ):
            figures[name] = requests_per_second(target, args.connections, args.seconds)
        rtts = asyncio.run(mcp_round_trips(url, 200))
    port = free_port()
    datasette = subprocess.Popen(
        [str(ensure_datasette()), "serve", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/-/versions.json")
        figures["datasette lookup (same SQL as JSON)"] = requests_per_second(
            datasette_lookup_url(base, db), args.connections, args.seconds
        )
    finally:
        datasette.terminate()
        datasette.wait(timeout=30)
    print(f"\n{args.connections} connections, {args.seconds} s each, {args.models} models x 2 tasks, wrk -t1")
    for name, value in figures.items():
        print(f"  {name:<40} {value:>9.0f} req/s")
    trivial, ours = figures["trivial /healthz"], figures["/v1/lookup"]
    theirs = figures["datasette lookup (same SQL as JSON)"]
    print(f"  lookup / trivial route                   {ours / trivial:9.2f}   (target >= 0.6)")
    print(f"  BenchToward lookup / datasette lookup    {ours / theirs:9.2f}   (target >= 2)")
    print(
        f"  MCP lookup round trip (streamable HTTP)  median {statistics.median(rtts):.2f} ms, "
        f"p95 {sorted(rtts)[int(0.95 * len(rtts))]:.2f} ms over {len(rtts)} sequential calls"
    )


if __name__ == "__main__":
    main()
