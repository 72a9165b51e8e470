"""Benchmark: server time to render a task page with 100 results and its forest plot, and the page's weight.

    .venv/bin/python bench/page_bench.py [--results 100] [--requests 50]

Builds a temporary database with `--results` published results on clinicalqa@0 (1,045 items each, computed by
tests/factory.py the way the harness computes them), starts the real app with its lifespan in process and
requests /tasks/clinicalqa through the whole ASGI stack (routing, middleware, capabilities, Jinja2, the SVG
plot) `--requests` times after a warm-up. Page weight is what a first visit downloads: the HTML plus every
stylesheet and script it links (no images, fonts or third-party files exist), uncompressed and gzipped.
Targets (issue 5): median server time <= 50 ms; page weight (HTML + CSS + JS) <= 100 KB.
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
from pathlib import Path

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
ASSET = re.compile(r'(?:src|href)="(/static/[^"]+)"')


async def populate(settings: Settings, workdir: Path, count: int) -> None:
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
            await import_result(registry, bundle)
    finally:
        await store.close()


async def measure(settings: Settings, requests: int) -> tuple[list[float], list[float], bytes, dict[str, int]]:
    application = build_app(settings)
    async with LifespanManager(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            for _ in range(5):  # warm-up: templates compiled, caches filled
                (await client.get(PAGE)).raise_for_status()
            timings, cpu = [], []
            for _ in range(requests):
                started, started_cpu = time.perf_counter(), time.process_time()
                response = await client.get(PAGE)
                timings.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - started_cpu) * 1000)
                response.raise_for_status()
            html = response.content
            assets = {}
            for path in sorted(set(ASSET.findall(html.decode()))):
                asset = await client.get(path)
                asset.raise_for_status()
                assets[path] = len(asset.content)
            return timings, cpu, html, assets


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=int, default=100)
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="benchtoward-page-bench-") as directory:
        root = Path(directory)
        settings = Settings(db=root / "bench.db", public_url="http://bench")
        started = time.perf_counter()
        asyncio.run(populate(settings, root / "bundles", args.results))
        print(f"built {args.results} results on clinicalqa@0 in {time.perf_counter() - started:.1f} s")
        timings, cpu, html, assets = asyncio.run(measure(settings, args.requests))
    rows = html.count(b'class="rk"')
    median = statistics.median(timings)
    p90 = statistics.quantiles(timings, n=10)[-1]
    asset_bytes = sum(assets.values())
    total_kb = (len(html) + asset_bytes) / 1024
    gzipped_kb = (len(gzip.compress(html)) + asset_bytes) / 1024  # assets counted uncompressed: an upper bound
    print(f"page {PAGE}: {rows} leaderboard rows, forest plot with {html.count(b'<circle')} points")
    print(f"{'measure':<44}{'value':>12}{'target':>12}  verdict")
    print(
        f"{'server time, median of ' + str(len(timings)) + ' requests':<44}{median:>10.1f}ms{TARGET_MS:>10.0f}ms  "
        f"{'ok' if median <= TARGET_MS else 'OVER'}"
    )
    print(f"{'server time, 90th percentile':<44}{p90:>10.1f}ms{'':>12}")
    print(f"{'CPU time of the process, median':<44}{statistics.median(cpu):>10.1f}ms{'':>12}")
    print(f"(load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    print(f"{'HTML':<44}{len(html) / 1024:>10.1f}KB")
    for path, size in assets.items():
        print(f"{'  + ' + path:<44}{size / 1024:>10.1f}KB")
    verdict = "ok" if total_kb <= TARGET_KB else "OVER"
    print(f"{'page weight (HTML + CSS + JS)':<44}{total_kb:>10.1f}KB{TARGET_KB:>10.0f}KB  {verdict}")
    print(f"{'  the same with the HTML gzipped':<44}{gzipped_kb:>10.1f}KB")
    return 0 if median <= TARGET_MS and total_kb <= TARGET_KB else 1


if __name__ == "__main__":
    raise SystemExit(main())
