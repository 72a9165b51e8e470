"""Load: 64 concurrent clients on loopback for 60 s against a database of 200 models x 10 task versions, while
evaluations write results. 16 wrk connections ask /v1/lookup (random model and task version); 48 more mix
leaderboards, results, predictions previews, parquet downloads, result searches, stats and MCP tool calls
(lookup, leaderboard, get_result over streamable HTTP). Meanwhile `benchtoward eval` runs one model after another
against a fixed-latency endpoint and publishes each result (per-item cache writes every 0.25 s, a result row,
rank ranges recomputed), so the server's read cache is emptied several times a second. The server's RSS is
sampled every second.

    .venv/bin/python bench/load_bench.py [--models 200] [--extra-versions 3] [--seconds 60] [--workdir DIR]
                                         [--json FILE] [--compare-workers]

The 10 task versions are the four shipped ones plus clinicalqa@1..3 and vitaldb-ioh@1..3: copies of the
version-0 specs with their own `task` (so their own spec_hash), added through the store as the server's start-up
sync adds a shipped version. Results enter through the import path in review, are published through the store,
and rank ranges are computed once per task version.

Targets (issue 8): zero errors; p99 of lookup <= 50 ms; the server's memory flat over the run.
With --compare-workers, /v1/lookup alone is measured against `serve --workers 1`, `--workers 2`, and `--workers 2`
behind nginx with deploy/nginx/benchtoward.conf (issue 15); --only-compare-workers runs that comparison alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from servers import ROOT, ensure_wrk, free_port, pinned, served

from evaluator.specs import TaskFile, TaskSpec, load_task_files
from store import Store
from store import results as result_store
from store import tasks as task_store
from tests.factory import FakeModel, write_bundle
from tests.nginx_proxy import nginx_binary, nginx_in_front
from tools.bundles import import_result
from tools.ranking import refresh_rank_ranges
from tools.registry import Registry
from tools.seed import sync_specs, task_row

COPIED = ("clinicalqa@0", "vitaldb-ioh@0")
WRITER_TASK = "clinicalqa-upstream-demo@0"
LUA = """
local requests = {}
local count = 0
init = function(args)
  local specs = {%s}
  for i, spec in ipairs(specs) do
    requests[i] = wrk.format(spec[1], spec[2], spec[3], spec[4])
  end
end
request = function()
  count = count + 1
  return requests[(count %% #requests) + 1]
end
%s
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('FIGURES {"requests": %%d, "duration_us": %%d, "bytes": %%d, "errors": {"connect": %%d, ' ..
    '"read": %%d, "write": %%d, "status": %%d, "timeout": %%d}, "latency_us": {"p50": %%d, "p90": %%d, "p99": %%d, ' ..
    '"p999": %%d, "max": %%d, "mean": %%.1f}}\\n', summary.requests, summary.duration, summary.bytes, e.connect,
    e.read, e.write, e.status, e.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, latency.mean))
end
"""
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def extra_versions(count: int) -> list[TaskFile]:
    """Copies of the version-0 specs as versions 1..count (a different `task`, so a different spec_hash)."""
    shipped = {f.spec.task: f for f in load_task_files()}
    copies = []
    for ref in COPIED:
        base = shipped[ref]
        for version in range(1, count + 1):
            spec = TaskSpec.model_validate({**base.spec.as_dict(), "task": f"{base.spec.slug}@{version}"})
            meta = base.meta.model_copy(update={"title": f"{base.meta.title} (load copy {version})"})
            copies.append(TaskFile(meta=meta, spec=spec))
    return copies


async def build(db: Path, models: int, versions: int) -> tuple[list[str], list[str], list[str]]:
    """The database; returns (task refs, model provider ids, run ids)."""
    store = await Store.open(db)
    await sync_specs(store)
    for copy in extra_versions(versions):
        await task_store.upsert_task(store, task_row(copy))
    specs = {f.spec.task: f.spec for f in [*load_task_files(), *extra_versions(versions)]}
    registry = Registry(store=store, public_url="http://127.0.0.1", artifacts_dir=db.parent / f"{db.stem}-artifacts")
    run_ids = []
    try:
        for index in range(models):
            model = FakeModel(f"load/model-{index:03d}", f"Load model {index}", provider_model_id=f"lm-{index:03d}")
            for ref, spec in specs.items():
                bundle = write_bundle(
                    db.parent / "bundles" / f"{index}-{ref}",
                    task=ref,
                    model=model,
                    spec=spec,
                    quality=0.3 + 0.5 * index / models,
                    status="in_review",
                )
                run_ids.append((await import_result(registry, bundle)).run_id)
        for run_id in run_ids:
            await result_store.set_result_status(store, run_id, "published")
        for spec in specs.values():
            await refresh_rank_ranges(registry, spec.slug, spec.version)
    finally:
        await store.close()
    return list(specs), [f"lm-{i:03d}" for i in range(models)], run_ids


def ensure_database(workdir: Path, models: int, versions: int) -> tuple[Path, dict[str, list[str]]]:
    db = workdir / "load.db"
    index = workdir / "load-index.json"
    if not (db.exists() and index.exists()):
        started = time.perf_counter()
        tasks, names, run_ids = asyncio.run(build(db, models, versions))
        index.write_text(json.dumps({"tasks": tasks, "models": names, "run_ids": run_ids}))
        print(f"built {db}: {models} models x {len(tasks)} task versions in {time.perf_counter() - started:.0f} s")
    return db, json.loads(index.read_text())


def lua_string(value: str) -> str:
    assert "]]" not in value
    return f"[[{value}]]"


def lua_script(requests: list[tuple[str, str, dict[str, str], str]], think_ms: int = 0) -> str:
    specs = []
    for method, path, headers, body in requests:
        pairs = ", ".join(f"[ {lua_string(k)} ] = {lua_string(v)}" for k, v in headers.items())
        specs.append(
            f"{{{lua_string(method)}, {lua_string(path)}, {{{pairs}}}, {lua_string(body) if body else 'nil'}}}"
        )
    pause = f"delay = function() return {think_ms} end" if think_ms else ""  # a client's think time
    return LUA % (",\n".join(specs), pause)


def mcp_call(tool: str, arguments: dict[str, Any]) -> tuple[str, str, dict[str, str], str]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    return ("POST", "/mcp", MCP_HEADERS, json.dumps(body))


def lookup_requests(index: dict[str, list[str]], rng: random.Random, count: int = 2000) -> list[Any]:
    return [
        ("GET", f"/v1/lookup?model={rng.choice(index['models'])}&task={rng.choice(index['tasks'])}", {}, "")
        for _ in range(count)
    ]


def mixed_requests(index: dict[str, list[str]], rng: random.Random, count: int = 2000) -> list[Any]:
    tasks, models, runs = index["tasks"], index["models"], index["run_ids"]
    makers = [
        (25, lambda: ("GET", f"/v1/leaderboard?task={rng.choice(tasks)}&limit=50", {}, "")),
        (20, lambda: ("GET", f"/v1/results/{rng.choice(runs)}", {}, "")),
        (8, lambda: ("GET", f"/v1/predictions/{rng.choice(runs)}?limit=5", {}, "")),
        (10, lambda: ("GET", f"/artifacts/{rng.choice(runs)}/predictions.parquet", {}, "")),
        (5, lambda: ("GET", f"/v1/results?task={rng.choice(tasks)}&limit=20", {}, "")),
        (2, lambda: ("GET", "/v1/stats", {}, "")),
        (12, lambda: mcp_call("lookup", {"model": rng.choice(models), "task": rng.choice(tasks)})),
        (10, lambda: mcp_call("leaderboard", {"task": rng.choice(tasks), "limit": 20})),
        (8, lambda: mcp_call("get_result", {"run_id": rng.choice(runs)})),
    ]
    weights = [w for w, _ in makers]
    return [rng.choices(makers, weights)[0][1]() for _ in range(count)]


def run_wrk(url: str, script: Path, connections: int, seconds: int, cpus: str | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            *pinned(cpus),
            ensure_wrk(),
            "-t1",
            f"-c{connections}",
            f"-d{seconds}s",
            "--timeout",
            "10s",
            "-s",
            str(script),
            url,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def figures_of(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = process.communicate(timeout=600)
    if "error" in err.lower():
        raise RuntimeError(f"wrk: {err}")
    line = next((line for line in out.splitlines() if line.startswith("FIGURES ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no figures:\n{out}\n{err}")
    return dict(json.loads(line[len("FIGURES ") :]))


def rss_mib(pid: int) -> float:
    """RSS of the server: the process and its worker processes (with --workers N), in MiB."""
    process = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)]) / 2**20


@dataclass
class Sampler:
    pid: int
    samples: list[tuple[float, float]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        started = time.monotonic()
        while not self.stop.is_set():
            self.samples.append((time.monotonic() - started, rss_mib(self.pid)))
            self.stop.wait(1.0)


def slope_mib_per_minute(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of RSS over time, after the first tenth of the run (warm-up)."""
    kept = samples[len(samples) // 10 :]
    if len(kept) < 3:
        return 0.0
    mean_t = sum(t for t, _ in kept) / len(kept)
    mean_r = sum(r for _, r in kept) / len(kept)
    covariance = sum((t - mean_t) * (r - mean_r) for t, r in kept)
    variance = sum((t - mean_t) ** 2 for t, _ in kept)
    return covariance / variance * 60 if variance else 0.0


@dataclass
class Writer:
    """Runs `benchtoward eval` for one new model after another, publishing each result, until stopped."""

    db: Path
    endpoint: str
    cpus: str | None = None
    computed: int = 0
    failures: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        index = 0
        while not self.stop.is_set():
            index += 1
            command = [
                *pinned(self.cpus),
                str(Path(sys.executable).parent / "benchtoward"),
                "eval",
                "--model",
                f"writer/w{os.getpid()}-{index:03d}",  # new in every run: a reused database holds no claim on it
                "--task",
                WRITER_TASK,
                "--endpoint",
                self.endpoint,
                "--model-id",
                "fixed",
                "--publish",
                "--concurrency",
                "16",
                "--db",
                str(self.db),
                "--json",
                "--log-level",
                "warning",
            ]
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
            if done.returncode == 0 and '"run_id"' in done.stdout:
                self.computed += 1
            else:
                self.failures.append(done.stderr[-500:] or done.stdout[-500:])


def wait_for_port(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {port} after {seconds} s")


def load(
    db: Path,
    index: dict[str, list[str]],
    seconds: int,
    workdir: Path,
    think_ms: int = 0,
    workers: int = 1,
    pin: bool = False,
    writer_on: bool = True,
    seed: int = 8,
) -> dict[str, Any]:
    server_cpus, load_cpus = ("0", "1") if pin else (None, None)  # the server on one core, all the rest on the other
    rng = random.Random(seed)
    lookups, mixed = workdir / "lookup.lua", workdir / "mixed.lua"
    lookups.write_text(lua_script(lookup_requests(index, rng), think_ms))
    mixed.write_text(lua_script(mixed_requests(index, rng), think_ms))
    port = free_port()
    endpoint = subprocess.Popen(
        [*pinned(load_cpus), sys.executable, str(ROOT / "bench" / "fake_endpoint.py"), str(port), "0.01"]
    )
    try:
        wait_for_port(port)
        with served(db, workers, log=workdir / "server.log", cpus=server_cpus) as (url, server):
            sampler = Sampler(server.pid)
            writer = Writer(db, f"http://127.0.0.1:{port}/v1", load_cpus)
            threads = [threading.Thread(target=sampler.run)]
            threads += [threading.Thread(target=writer.run)] if writer_on else []
            for thread in threads:
                thread.start()
            try:
                started = time.perf_counter()
                loaders = [run_wrk(url, lookups, 16, seconds, load_cpus), run_wrk(url, mixed, 48, seconds, load_cpus)]
                lookup_figures, mixed_figures = (figures_of(process) for process in loaders)
                wall = time.perf_counter() - started
            finally:
                writer.stop.set()
                sampler.stop.set()
                for thread in threads:
                    thread.join(timeout=600)
            server_log = (workdir / "server.log").read_text(errors="replace")
    finally:
        endpoint.terminate()
        endpoint.wait(timeout=30)
    rss = [r for _, r in sampler.samples]
    return {
        "seconds": round(wall, 1),
        "think_ms": think_ms,
        "pinned": pin,
        "workers": workers,
        "lookup": lookup_figures,
        "mixed": mixed_figures,
        "writer": {"results_published": writer.computed, "failures": writer.failures},
        "rss_mib": {
            "start": round(rss[0], 1),
            "end": round(rss[-1], 1),
            "max": round(max(rss), 1),
            "slope_per_minute": round(slope_mib_per_minute(sampler.samples), 2),
            "samples": len(rss),
        },
        "server_errors_logged": server_log.count(" ERROR "),
    }


def lookup_figures(url: str, script: Path, seconds: int) -> dict[str, Any]:
    figures = figures_of(run_wrk(url, script, 32, seconds))
    return {
        "requests_per_second": round(figures["requests"] / figures["duration_us"] * 1e6),
        "p99_ms": figures["latency_us"]["p99"] / 1000,
        "errors": sum(figures["errors"].values()),
    }


def compare_workers(db: Path, index: dict[str, list[str]], seconds: int, workdir: Path) -> dict[str, Any]:
    """/v1/lookup alone: one worker, two workers, and two workers behind nginx with the documented configuration
    (deploy/nginx/benchtoward.conf; its cache answers repeated lookups for 30 s), when nginx is installed."""
    script = workdir / "lookup-only.lua"
    script.write_text(lua_script(lookup_requests(index, random.Random(9))))
    found = {}
    for workers in (1, 2):
        with served(db, workers) as (url, _):
            found[f"workers_{workers}"] = lookup_figures(url, script, seconds)
    if nginx_binary() is None:
        print("  nginx is not installed (make system-tools): the run through nginx is left out")
        return found
    with (
        served(db, 2, options=("--forwarded-allow-ips", "127.0.0.1")) as (url, _),
        nginx_in_front(url.removeprefix("http://"), free_port(), workdir / "nginx") as proxied,
    ):
        found["workers_2_through_nginx"] = lookup_figures(proxied, script, seconds)
    return found


def errors_of(figures: dict[str, Any]) -> int:
    return int(sum(figures["errors"].values()))


def report(result: dict[str, Any]) -> bool:
    lookup, mixed, rss = result["lookup"], result["mixed"], result["rss_mib"]
    for name, figures in (("lookup (16 connections)", lookup), ("mixed (48 connections)", mixed)):
        latency = figures["latency_us"]
        rate = figures["requests"] / figures["duration_us"] * 1e6
        print(
            f"  {name:<26} {figures['requests']:>8} requests  {rate:>7.0f} req/s  p50 {latency['p50'] / 1000:6.1f} ms"
            f"  p99 {latency['p99'] / 1000:6.1f} ms  max {latency['max'] / 1000:7.1f} ms  errors {errors_of(figures)}"
        )
    print(
        f"  evaluations published during the run: {result['writer']['results_published']}, "
        f"failed: {len(result['writer']['failures'])}"
    )
    print(
        f"  server RSS MiB: start {rss['start']}, end {rss['end']}, max {rss['max']}, "
        f"slope {rss['slope_per_minute']} MiB/min over {rss['samples']} samples"
    )
    ok = (
        errors_of(lookup) == 0
        and errors_of(mixed) == 0
        and not result["writer"]["failures"]
        and lookup["latency_us"]["p99"] <= 50_000
        and result["server_errors_logged"] == 0
    )
    print(f"  zero errors and lookup p99 <= 50 ms: {'yes' if ok else 'NO'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--extra-versions", type=int, default=3, help="Copies per copied task (3 -> 10 versions).")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="Also write the figures to this file.")
    parser.add_argument("--think-ms", type=int, default=0, help="Each client's pause between requests (0: none).")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes of the server.")
    parser.add_argument("--no-writer", action="store_true", help="No evaluation writes during the run.")
    parser.add_argument("--pin", action="store_true", help="Server on CPU 0; wrk, evaluations, endpoint on CPU 1.")
    parser.add_argument("--compare-workers", action="store_true", help="Then /v1/lookup with 1, 2 workers, nginx.")
    parser.add_argument("--only-compare-workers", action="store_true", help="Only that comparison (a short run).")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="benchtoward-load-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db, index = ensure_database(workdir, args.models, args.extra_versions)
    print(
        f"\n{args.models} models x {len(index['tasks'])} task versions, {args.seconds} s, 64 connections "
        f"(think time {args.think_ms} ms), {args.workers} worker(s), wrk -t1 x2"
    )
    result: dict[str, Any] = {}
    ok = True
    if not args.only_compare_workers:
        result = load(db, index, args.seconds, workdir, args.think_ms, args.workers, args.pin, not args.no_writer)
        ok = report(result)
    if args.compare_workers or args.only_compare_workers:
        result["workers"] = compare_workers(db, index, min(args.seconds, 15), workdir)
        for name, figures in result["workers"].items():
            print(
                f"  /v1/lookup alone, {name.replace('_', ' ')}: {figures['requests_per_second']} req/s, "
                f"p99 {figures['p99_ms']:.1f} ms, errors {figures['errors']}"
            )
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
