"""Screenshots of every public page at a phone's and a desktop's size, for reviewers to look at (`make screenshots`).

The site is served by a real uvicorn over a fresh SQLite file holding the test fixture results (tests/populate.py,
made-up scores of made-up runs: layout material, not results) plus a few more rows that a layout must survive: a
statistical tie, a long model name, a Korean name, a hostile name. Debian's Chromium, driven by Playwright, takes
a full-page PNG of each page at 390x844 and 1280x900 into --out, and the script prints, per page and size, how
far the page overflows horizontally (0 is right) and how many table cells or SVGs are clipped by their boxes.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from server.settings import Settings  # noqa: E402
from store import Store  # noqa: E402
from tests.conftest import LiveServer  # noqa: E402
from tests.factory import FakeModel, write_bundle  # noqa: E402
from tests.populate import HARI, MEDGEMMA, populate  # noqa: E402
from tools.bundles import import_result  # noqa: E402
from tools.registry import Registry  # noqa: E402
from tools.seed import sync_specs  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
SIZES = {"phone": (390, 844), "desktop": (1280, 900)}
EXTRA = [
    (FakeModel("qwen/qwen3-32b", "Qwen3 32B", provider_model_id="qwen3-32b"), 0.665),  # ties with HARI
    (
        FakeModel("acme/very-long", "Meta-Llama-3.1-70B-Instruct-Turbo-AWQ-INT4 fine-tuned on Korean clinical notes"),
        0.60,
    ),
    (FakeModel("snuh/ko-clinic-8b", "서울대병원 임상 한국어 모델 8B"), 0.58),
    (FakeModel("evil/xss", '<script>alert(1)</script>"><img src=x onerror=alert(2)>'), 0.45),
]
# What a page's layout must hold: overflow of the page, and cells or SVGs wider than the box they sit in.
MEASURE = """() => {
  const clipped = [...document.querySelectorAll('td, th, svg')].filter(el => {
    let box = el.parentElement;  // the nearest ancestor that hides or scrolls what sticks out
    while (box && box !== document.body && getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
    return box && box.getBoundingClientRect().width > 1  // a visually hidden header is no clipped content
    && el.getBoundingClientRect().right > box.getBoundingClientRect().right + 1;
  }).length;
  return [document.documentElement.scrollWidth - window.innerWidth, clipped];
}"""


async def seed(directory: Path) -> tuple[Settings, dict[str, str]]:
    settings = Settings(db=directory / "benchtoward.db")
    store = await Store.open(settings.db)
    await sync_specs(store)
    try:
        registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
        run_ids = await populate(registry, directory / "bundles")
        for model, quality in EXTRA:
            bundle = write_bundle(
                directory / model.slug.replace("/", "_"), task="clinicalqa@0", model=model, quality=quality
            )
            run_ids[f"{model.slug}@clinicalqa@0"] = (await import_result(registry, bundle)).run_id
        return settings, run_ids
    finally:
        await store.close()


def pages(run_ids: dict[str, str]) -> dict[str, str]:
    return {
        "home": "/",
        "tasks": "/tasks",
        "task-clinicalqa": "/tasks/clinicalqa",
        "task-clinicalqa-sorted-cost": "/tasks/clinicalqa?sort=cost",
        "task-vitaldb-ioh": "/tasks/vitaldb-ioh",
        "task-clinicalqa-upstream-demo": "/tasks/clinicalqa-upstream-demo",
        "task-vitaldb-ioh-synthetic": "/tasks/vitaldb-ioh-synthetic",
        "result-hari": f"/r/{run_ids[f'{HARI.slug}@clinicalqa@0']}",
        "model-medgemma": f"/models/{MEDGEMMA.slug}",
        "datasets": "/datasets",
        "benchmarks": "/benchmarks",
        "benchmarks-korean": "/benchmarks?language=Korean",
        "benchmark-medbench": "/benchmarks/medbench",
        "benchmark-clinicalqa": "/benchmarks/clinicalqa",
        "about": "/about",
        "authors": "/authors",
        "privacy": "/privacy",
        "disclaimer": "/disclaimer",
        "error-404": "/nope",
        "error-version": "/tasks/clinicalqa?version=9",
        "error-task-typo": "/tasks/clinicalq",
    }


def shoot(page: Page, base: str, out: Path, name: str, path: str, size: str) -> str:
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    response = page.goto(base + path)
    overflow, clipped = page.evaluate(MEASURE)
    file = out / f"{size}-{re.sub(r'[^A-Za-z0-9_-]+', '_', name)}.png"
    page.screenshot(path=str(file), full_page=True)
    status = response.status if response else 0
    return f"{size:8} {status} overflow {overflow:>4} px  clipped {clipped:>2}  {path}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".cache/screenshots")
    parser.add_argument("--only", default="", help="only the pages whose name contains this")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(max_workers=1) as pool:
        settings, run_ids = pool.submit(asyncio.run, seed(Path(scratch))).result()
        with LiveServer(settings) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            bad = 0
            for name, path in pages(run_ids).items():
                if args.only not in name:
                    continue
                for size in SIZES:
                    line = shoot(page, server.url, args.out, name, path, size)
                    bad += " overflow    0 px  clipped  0 " not in line
                    print(line, flush=True)
            browser.close()
    print(f"screenshots in {args.out}; pages overflowing or clipping: {bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
