"""Benchmark: server time and weight of a task page with 100 results and its forest plot, a result page with
1,045 items (its item browser, categories or ROC) and the comparison of two results (/compare).

    .venv/bin/python bench/page_bench.py [--results 100] [--requests 50]

Builds a temporary database with `--results` published results on clinicalqa@0 (1,045 items each, computed by
tests/factory.py the way the harness computes them), starts the real app with its lifespan in process and
requests each page through the whole ASGI stack (routing, middleware, capabilities, Jinja2, the SVG
plots) `--requests` times after a warm-up. Page weight is what a first visit downloads: the HTML plus every
stylesheet and script it links (no images, fonts or third-party files exist), uncompressed and gzipped.
The leaderboard and the task are answered from the server's read cache once computed (as in production,
until the store changes); a second series empties that cache before every request, so each one recomputes
them (for /compare: the whole paired bootstrap again). Targets (issues 5 and 12), per page: median server time
<= 50 ms; page weight (HTML + CSS + JS) <= 100 KB.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests/factory.py computes the fixture results

import httpx  # noqa: E402
from asgi_lifespan import LifespanManager  # noqa: E402

from server.app import build_app  # noqa: E402
from server.settings import Settings  # noqa: E402
from store import Store  # noqa: E402
from tests.factory import FakeModel, write_bundle  # noqa: E402
from tools.bundles import import_result  # noqa: E402
from tools.registry import Registry  # noqa: E402
from tools.seed import sync_specs  # noqa: E402

TARGET_MS = 50.0
TARGET_KB = 100.0
PAGE = "/tasks/clinicalqa"
ASSET = re.compile(r'(?:src|href)="(/static/[^"]+\.(?:css|js))"')


async def populate(settings: Settings, workdir: Path, count: int) -> list[str]:
    """Import `count` results on clinicalqa@0; return their run ids, best model first."""
    run_ids = []
    store = await Store.open(settings.db)
    try:
        await sync_specs(store)
        registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
        for index in range(count):
            model = FakeModel(
                f"bench/model-{index:03d}",
                f"Benchmark model {index:03d} (instruct, 2026-01)",
                type="baseline" if index % 10 == 0 else "llm",
            )
            quality = 0.25 + 0.55 * index / max(count - 1, 1)
            tier = "baseline" if model.type == "baseline" else "standard"
            bundle = write_bundle(
                workdir / f"b{index:03d}", task="clinicalqa@0", model=model, quality=quality, tier=tier
            )
            run_ids.append((await import_result(registry, bundle)).run_id)
    finally:
        await store.close()
    return run_ids[::-1]


async def timed_requests(
    client: httpx.AsyncClient, page: str, requests: int, before: Callable[[], None]
) -> tuple[list[float], list[float]]:
    """Wall-clock and process CPU milliseconds of `requests` GETs of `page`, `before()` run ahead of each."""
    timings, cpu = [], []
    for _ in range(requests):
        before()
        started, started_cpu = time.perf_counter(), time.process_time()
        response = await client.get(page)
        timings.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        response.raise_for_status()
    return timings, cpu


async def measure(settings: Settings, page: str, requests: int) -> dict[str, Any]:
    application = build_app(settings)
    async with LifespanManager(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            for _ in range(5):  # warm-up: templates compiled, caches filled
                (await client.get(page)).raise_for_status()
            cache = application.state.runtime.registry.cache
            warm = await timed_requests(client, page, requests, lambda: None)
            cold = await timed_requests(client, page, requests, cache.values.clear)
            html = (await client.get(page)).content
            assets = {}
            for path in sorted(set(ASSET.findall(html.decode()))):
                asset = await client.get(path)
                asset.raise_for_status()
                assets[path] = len(asset.content)
            return {"warm": warm, "cold": cold, "html": html, "assets": assets}


def report(page: str, measured: dict[str, Any]) -> bool:
    """Print one page's figures beside the targets; whether both are met."""
    html, assets = measured["html"], measured["assets"]
    (timings, cpu), (cold, cold_cpu) = measured["warm"], measured["cold"]
    median = statistics.median(timings)
    asset_bytes = sum(assets.values())
    total_kb = (len(html) + asset_bytes) / 1024
    gzipped_kb = (len(gzip.compress(html)) + asset_bytes) / 1024  # assets counted uncompressed: an upper bound
    items = html.count(b'<li class="item')
    print(f"\npage {page}: {html.count(b'<tr')} table rows, {items} items shown")
    print(f"{'measure':<52}{'value':>10}{'target':>10}  verdict")
    verdict = "ok" if median <= TARGET_MS else "OVER"
    label = f"server time, median of {len(timings)} requests"
    print(f"{label:<52}{median:>8.1f}ms{TARGET_MS:>8.0f}ms  {verdict}")
    print(f"{'  90th percentile':<52}{statistics.quantiles(timings, n=10)[-1]:>8.1f}ms")
    print(f"{'  CPU time of the process, median':<52}{statistics.median(cpu):>8.1f}ms")
    print(f"{'server time with the read cache emptied, median':<52}{statistics.median(cold):>8.1f}ms")
    print(f"{'  CPU time of the process, median':<52}{statistics.median(cold_cpu):>8.1f}ms")
    print(f"{'HTML':<52}{len(html) / 1024:>8.1f}KB")
    for path, size in assets.items():
        print(f"{'  + ' + path:<52}{size / 1024:>8.1f}KB")
    verdict = "ok" if total_kb <= TARGET_KB else "OVER"
    print(f"{'page weight (HTML + CSS + JS)':<52}{total_kb:>8.1f}KB{TARGET_KB:>8.0f}KB  {verdict}")
    print(f"{'  the same with the HTML gzipped':<52}{gzipped_kb:>8.1f}KB")
    return median <= TARGET_MS and total_kb <= TARGET_KB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=int, default=100)
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="benchtoward-page-bench-") as directory:
        root = Path(directory)
        settings = Settings(db=root / "bench.db", public_url="http://bench")
        started = time.perf_counter()
        run_ids = asyncio.run(populate(settings, root / "bundles", args.results))
        print(f"built {args.results} results on clinicalqa@0 in {time.perf_counter() - started:.1f} s")
        pages = [PAGE, f"/r/{run_ids[0]}", f"/compare?task=clinicalqa@0&a={run_ids[0]}&b={run_ids[1]}"]
        met = [report(page, asyncio.run(measure(settings, page, args.requests))) for page in pages]
    print(f"(load average after measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    return 0 if all(met) else 1


if __name__ == "__main__":
    raise SystemExit(main())
