"""HTTP benchmark: requests/s of a bare Starlette app's trivial route (bench/bare_app.py, same uvicorn), then
BenchToward's /healthz, /v1/lookup and /v1/leaderboard of one process, side by side with datasette answering the
equivalent lookup as JSON from the same SQLite file, plus the round trip of one MCP `lookup` call over
streamable HTTP.

    .venv/bin/python bench/http_bench.py [--models 50] [--seconds 8] [--connections 32] [--no-datasette]

Targets: lookup >= 0.5 x the bare Starlette route (issue 15: the cost of the middleware and routing),
lookup >= 0.6 x BenchToward's own /healthz and BenchToward lookup >= 2 x datasette's lookup (issue 2).
datasette is installed only into this benchmark's own venv (.cache/bench-datasette). wrk (Debian package)
is the load generator, one thread, 32 connections; on a 2-core machine it shares the CPU with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from servers import ROOT, ensure_database, ensure_wrk, free_port, requests_per_second, served, wait_for

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


@dataclass
class Figure:
    per_second: list[float] = field(default_factory=list)  # wrk's requests/s, one per round
    cpu_us: list[float] = field(default_factory=list)  # the server process's CPU time per request

    @property
    def rate(self) -> float:
        return statistics.median(self.per_second)

    @property
    def cost(self) -> float:
        return statistics.median(self.cpu_us)


def measure(url: str, server: psutil.Process, connections: int, seconds: int, figure: Figure) -> None:
    """One wrk run: requests/s, and the server's CPU microseconds per request (user + system), which a busy
    machine disturbs far less than requests/s: the CPU time a request costs is the same when it waits."""
    before = server.cpu_times()
    output = subprocess.run(
        [ensure_wrk(), "-t1", f"-c{connections}", f"-d{seconds}s", url], capture_output=True, text=True, check=True
    ).stdout
    after = server.cpu_times()
    if "Non-2xx" in output or "Socket errors" in output:
        raise RuntimeError(f"errors while loading {url}:\n{output}")
    done = re.search(r"(\d+) requests in", output)
    rate = re.search(r"Requests/sec:\s+([0-9.]+)", output)
    if done is None or rate is None:
        raise RuntimeError(f"no request count in wrk output:\n{output}")
    used = (after.user - before.user) + (after.system - before.system)
    figure.per_second.append(float(rate.group(1)))
    figure.cpu_us.append(used / max(1, int(done.group(1))) * 1e6)


@contextmanager
def bare_starlette() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """bench/bare_app.py on uvicorn with httptools and no access log, as `benchtoward serve` runs."""
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "--app-dir", str(Path(__file__).parent), "bare_app:app"]
    options = ["--http", "httptools", "--no-access-log", "--log-level", "warning", "--port", str(port)]
    server = subprocess.Popen([*command, *options], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for(f"{url}/healthz")
        yield url, server
    finally:
        server.terminate()
        server.wait(timeout=30)


def datasette_figure(db: Path, connections: int, seconds: int) -> float:
    port = free_port()
    datasette = subprocess.Popen(
        [str(ensure_datasette()), "serve", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/-/versions.json")
        return requests_per_second(datasette_lookup_url(base, db), connections, seconds)
    finally:
        datasette.terminate()
        datasette.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved runs per route; the median is shown")
    parser.add_argument("--no-datasette", action="store_true", help="leave out the datasette comparison")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="benchtoward-http-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "bench.db"
    ensure_database(db, args.models, ["clinicalqa@0", "vitaldb-ioh@0"])
    figures: dict[str, Figure] = {}
    with bare_starlette() as (bare, bare_server), served(db) as (url, server):
        targets = {
            "bare Starlette trivial route": (f"{bare}/healthz", psutil.Process(bare_server.pid)),
            "BenchToward /healthz": (f"{url}/healthz", psutil.Process(server.pid)),
            "/v1/lookup": (f"{url}/v1/lookup?model=model-007&task=clinicalqa@0", psutil.Process(server.pid)),
            "/v1/leaderboard": (f"{url}/v1/leaderboard?task=clinicalqa@0&limit=50", psutil.Process(server.pid)),
        }
        for _ in range(args.rounds):  # interleaved, so that a change in the machine's load falls on every route
            for name, (target, process) in targets.items():
                measure(target, process, args.connections, args.seconds, figures.setdefault(name, Figure()))
        rtts = asyncio.run(mcp_round_trips(url, 200))
    print(
        f"\n{args.connections} connections, {args.seconds} s each, median of {args.rounds} interleaved rounds, "
        f"{args.models} models x 2 tasks, wrk -t1"
    )
    for name, figure in figures.items():
        print(f"  {name:<40} {figure.rate:>9.0f} req/s  {figure.cost:7.1f} us CPU/request")
    bare_route, trivial, ours = (
        figures[name] for name in ("bare Starlette trivial route", "BenchToward /healthz", "/v1/lookup")
    )
    print("  ratios: by req/s, by CPU time per request (the steadier one on a shared machine)")
    for label, ours_figure, reference, target in (
        ("/healthz / bare Starlette route", trivial, bare_route, ""),
        ("lookup / bare Starlette route", ours, bare_route, "(target >= 0.5)"),
        ("lookup / BenchToward /healthz", ours, trivial, "(target >= 0.6)"),
    ):
        by_rate, by_cost = ours_figure.rate / reference.rate, reference.cost / ours_figure.cost
        print(f"  {label:<40} {by_rate:9.2f} {by_cost:6.2f}   {target}")
    if not args.no_datasette:
        theirs = datasette_figure(db, args.connections, args.seconds)
        print(f"  datasette lookup (same SQL as JSON)      {theirs:9.0f} req/s")
        print(f"  BenchToward lookup / datasette lookup    {ours.rate / theirs:9.2f}   (target >= 2)")
    print(
        f"  MCP lookup round trip (streamable HTTP)  median {statistics.median(rtts):.2f} ms, "
        f"p95 {sorted(rtts)[int(0.95 * len(rtts))]:.2f} ms over {len(rtts)} sequential calls"
    )


if __name__ == "__main__":
    main()
