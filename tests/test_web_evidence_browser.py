"""External evidence beside our result, in Debian's Chromium: the result page of a real demo run shows the Inspect
log imported for its model as "not computed here", with the items both share, on a phone (390×844) and a desktop
(1280×900) without horizontal overflow or axe violation (the model page too, which names the task each row is a
claim on); screenshots of the block are left in test-artifacts/ to look at."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from server.settings import Settings
from store import Store
from tests.conftest import LiveServer
from tests.test_web_browser import ARTIFACTS, AXE, CHROMIUM, PERSON, axe_violations, browser  # noqa: F401 (fixture)
from tools.eval_plan import EvalRequest
from tools.evaluate import evaluate
from tools.evidence import import_evidence
from tools.registry import Registry
from tools.seed import sync_specs

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed (make test installs it as root)"),
]
DATA = Path(__file__).parent / "data" / "evidence"
SIZES = [(390, 844), (1280, 900)]

if CHROMIUM.exists():
    from playwright.sync_api import Browser, expect


def seed(directory: Path) -> tuple[Settings, str]:
    """A demo run of the majority baseline, and an Inspect log and an lm-eval file imported for that model."""
    settings = Settings(db=directory / "benchtoward.db")

    async def fill() -> str:
        store = await Store.open(settings.db)
        await sync_specs(store)
        try:
            registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
            outcome = await evaluate(
                registry, EvalRequest(model="baseline/majority", task="clinicalqa-upstream-demo@0")
            )
            await import_evidence(registry, DATA / "inspect_clinicalqa-demo-items.json", "baseline/majority")
            await import_evidence(
                registry, DATA / "lm-eval_results_2025-01-21T00-40-03.356274.json", "baseline/majority"
            )
            return outcome.run_id
        finally:
            await store.close()

    with ThreadPoolExecutor(max_workers=1) as pool:  # Playwright's sync API holds this thread's event loop
        return settings, pool.submit(asyncio.run, fill()).result()


@pytest.fixture(scope="module")
def evidence_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    settings, run_id = seed(tmp_path_factory.mktemp("evidence"))
    with LiveServer(settings) as server:
        yield server, run_id


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("width", "height"), SIZES, ids=["phone", "desktop"])
def test_the_result_page_shows_evidence_on_its_dataset_labelled_not_computed_here(
    browser: Browser,  # noqa: F811 (the fixture imported above)
    evidence_site: tuple[LiveServer, str],
    width: int,
    height: int,
) -> None:
    server, run_id = evidence_site
    context = browser.new_context(base_url=server.url, user_agent=PERSON, viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(f"/r/{run_id}")
        section = page.locator("section.external-evidence")
        expect(section.get_by_role("heading", name="External evidence on this dataset")).to_be_visible()
        expect(section.get_by_role("note")).to_contain_text("Not computed here.")
        expect(section.locator("tbody tr")).to_have_count(1)  # the MMLU file is about another dataset
        expect(section).to_contain_text("clinicalqa_demo_items")
        expect(section).to_contain_text("12: both right")
        ARTIFACTS.mkdir(exist_ok=True)
        section.screenshot(path=str(ARTIFACTS / f"evidence-result-{width}.png"))
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        assert (axe_violations(page) if AXE.exists() else []) == []
        page.goto("/models/baseline/majority")  # the model page names the task each row is a claim on
        expect(page.get_by_role("link", name="clinicalqa-upstream-demo@0").last).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        assert (axe_violations(page) if AXE.exists() else []) == []
    finally:
        context.close()
