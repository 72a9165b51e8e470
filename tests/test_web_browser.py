"""The website in a real browser: Debian's Chromium driven by Playwright against the real app on a live uvicorn.

Scenarios: home → task → hover a rank → result → copy BibTeX → download predictions; keyboard-only use of the
leaderboard; the beacon from a real browser (and none from a plain fetch); axe-core on every page type; a
phone-width layout; a hostile model name that must not execute. A failing test leaves a screenshot in
test-artifacts/.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pyarrow.parquet as pq
import pytest

from server.settings import Settings
from store import Store
from tests.conftest import LiveServer
from tests.factory import FakeModel, write_bundle
from tests.populate import HARI, MEDGEMMA, PENDING, populate
from tools.bundles import import_result
from tools.registry import Registry
from tools.seed import sync_specs

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / ".cache/npm/node_modules/axe-core/axe.min.js"
ARTIFACTS = ROOT / "test-artifacts"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# A person's desktop browser. Headless Chromium announces itself as HeadlessChrome, which the bot list (rightly)
# does not count; these tests stand for a person, so they present an ordinary Chrome user agent.
PERSON = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
HOSTILE = FakeModel("evil/xss", '<script>alert(1)</script>"><img src=x onerror=alert(2)>')
WAIT_SECONDS = 15.0

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed (make test installs it as root)"),
]

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, expect, sync_playwright


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


def seed_site(directory: Path) -> tuple[Settings, dict[str, str]]:
    """A database with the fixture results and a model whose name is an injection attempt."""
    settings = Settings(db=directory / "benchtoward.db")

    async def fill() -> dict[str, str]:
        store = await Store.open(settings.db)
        await sync_specs(store)
        try:
            registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
            run_ids = await populate(registry, directory / "bundles")
            bundle = write_bundle(directory / "hostile", task="clinicalqa@0", model=HOSTILE, quality=0.45)
            run_ids[f"{HOSTILE.slug}@clinicalqa@0"] = (await import_result(registry, bundle)).run_id
            return run_ids
        finally:
            await store.close()

    with ThreadPoolExecutor(max_workers=1) as pool:  # Playwright's sync API holds this thread's event loop
        return settings, pool.submit(asyncio.run, fill()).result()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    """One live server for the read-only scenarios of this module."""
    settings, run_ids = seed_site(tmp_path_factory.mktemp("site"))
    with LiveServer(settings) as server:
        yield server, run_ids


def new_page(browser: Browser, server: LiveServer, request: pytest.FixtureRequest, **options: Any) -> Iterator[Page]:
    context = browser.new_context(base_url=server.url, user_agent=PERSON, **options)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = context.new_page()
    try:
        yield page
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', request.node.name)}.png"))
        context.close()


@pytest.fixture
def page(browser: Browser, site: tuple[LiveServer, dict[str, str]], request: pytest.FixtureRequest) -> Iterator[Page]:
    yield from new_page(browser, site[0], request)


def leaderboard(server: LiveServer, task: str = "clinicalqa@0") -> dict[str, Any]:
    return httpx.get(f"{server.url}/v1/leaderboard", params={"task": task}).json()  # type: ignore[no-any-return]


def range_text(row: dict[str, Any]) -> str:
    """What the rank's tooltip must say: the range the API serves (computed when the results were imported)."""
    assert row["rank_range"] is not None, row
    best, worst = row["rank_range"]
    assert best <= row["rank"] <= worst
    return f"95% rank range: {best}–{worst}"


def test_home_to_task_to_result_then_copy_bibtex_and_download_predictions(
    page: Page, site: tuple[LiveServer, dict[str, str]], tmp_path: Path
) -> None:
    server, run_ids = site
    rows = leaderboard(server)["rows"]
    page.goto("/")
    page.get_by_role("link", name="ClinicalQA", exact=True).click()
    expect(page).to_have_url(re.compile(r"/tasks/clinicalqa\?version=0$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("ClinicalQA")

    second = page.locator(".rk").nth(1)
    second.hover()
    tooltip = page.locator(f"#{second.get_attribute('aria-describedby')}")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_have_text(range_text(rows[1]))
    page.mouse.move(0, 0)
    expect(tooltip).to_be_hidden()

    page.get_by_role("link", name=HARI.name).first.click()
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    expect(page).to_have_url(re.compile(rf"/r/{run_id}$"))
    copy = page.get_by_role("button", name="Copy BibTeX")
    copy.click()
    expect(page.locator(".copied")).to_have_text("Copied to the clipboard.")
    clipboard = page.evaluate("navigator.clipboard.readText()")
    assert clipboard.startswith(f"@misc{{benchtoward_{run_id},") and clipboard == page.locator("#bibtex").inner_text()

    with page.expect_download() as download_info:
        page.get_by_role("link", name=re.compile("Per-item predictions")).click()
    download = download_info.value
    assert download.suggested_filename == f"{run_id}-predictions.parquet"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert pq.read_table(saved).num_rows == 1045


def test_the_leaderboard_works_with_the_keyboard_alone(page: Page, site: tuple[LiveServer, dict[str, str]]) -> None:
    server, _ = site
    rows = leaderboard(server)["rows"]
    page.goto("/tasks/clinicalqa")
    for _ in range(60):  # bounded: Tab through the page until the first rank has focus
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('rk')"):
            break
    first = page.locator(".rk").first
    expect(first).to_be_focused()
    expect(first).to_have_accessible_description(range_text(rows[0]))  # what a screen reader announces
    tooltip = page.locator(f"#{first.get_attribute('aria-describedby')}")
    expect(tooltip).to_be_visible()
    page.keyboard.press("Escape")
    expect(tooltip).to_be_hidden()
    page.keyboard.press("Tab")  # on to the model's link in the same row
    expect(page.get_by_role("link", name=rows[0]["model"]["name"]).first).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(tooltip).to_be_visible()

    page.get_by_label("Tag").select_option("baseline")  # the filters: a form, submitted from the keyboard
    page.get_by_role("button", name="Filter").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"tier=baseline"))
    expect(page.locator("table.board tbody tr")).to_have_count(1)


def visits_on(database: Path) -> list[str]:
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return [row[0] for row in connection.execute("SELECT path FROM visits ORDER BY path")]
    finally:
        connection.close()


@pytest.fixture
def fresh_site(tmp_path: Path) -> Iterator[LiveServer]:
    """A live server of its own, whose visits no other test adds to."""
    settings, _ = seed_site(tmp_path)
    with LiveServer(settings) as server:
        yield server


def test_a_real_browser_sends_the_beacon_and_a_plain_fetch_records_no_visit(
    browser: Browser, fresh_site: LiveServer, request: pytest.FixtureRequest
) -> None:
    data_live_server = fresh_site
    for path in ("/", "/about", "/tasks/clinicalqa"):
        assert httpx.get(f"{data_live_server.url}{path}", headers={"user-agent": PERSON}).status_code == 200
    for page in new_page(browser, data_live_server, request):
        with page.expect_response("**/v1/beacon") as beacon:
            page.goto("/tasks")
        assert beacon.value.status == 204 and beacon.value.request.post_data == "/tasks"
        assert beacon.value.headers.get("set-cookie") is None
    deadline = time.monotonic() + WAIT_SECONDS  # the server writes visits every few seconds: poll, bounded
    while time.monotonic() < deadline and not visits_on(data_live_server.settings.db):
        time.sleep(0.1)
    assert visits_on(data_live_server.settings.db) == ["/tasks"]
    assert httpx.get(f"{data_live_server.url}/v1/stats").json()["visits"] == 1


def axe_violations(page: Page) -> list[dict[str, Any]]:
    page.evaluate(AXE.read_text(encoding="utf-8"))  # evaluated through the DevTools protocol: not an inline script
    result = page.evaluate(
        "axe.run(document, {runOnly: {type: 'tag', values: "
        "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']}})"
    )
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in result["violations"]
    ]


def page_types(run_ids: dict[str, str]) -> list[str]:
    return [
        "/",
        "/tasks",
        "/tasks/clinicalqa",
        "/tasks/clinicalqa?tier=baseline",
        "/tasks/clinicalqa-upstream-demo",
        f"/r/{run_ids[f'{HARI.slug}@clinicalqa@0']}",
        f"/r/{run_ids[f'{PENDING.slug}@clinicalqa@0']}",
        f"/models/{MEDGEMMA.slug}",
        "/datasets",
        "/about",
        "/authors",
        "/privacy",
        "/disclaimer",
        "/benchmarks",
        "/benchmarks/clinicalqa",
        f"/withdraw?run_id={run_ids[f'{HARI.slug}@clinicalqa@0']}",
        "/tasks/no-such-task",
    ]


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is missing: run `make browser` (npm install into .cache/npm)")
@pytest.mark.parametrize("width", [1280, 375])
def test_axe_finds_no_violation_on_any_page_type(
    page: Page, site: tuple[LiveServer, dict[str, str]], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    found = {}
    for path in page_types(site[1]):
        page.goto(path)
        violations = axe_violations(page)
        if violations:
            found[path] = violations
    assert not found, "\n".join(f"{path}: {violations}" for path, violations in found.items())


def test_every_page_type_fits_a_phone_screen(page: Page, site: tuple[LiveServer, dict[str, str]]) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    for path in page_types(site[1]):
        page.goto(path)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, (path, overflow)  # wide tables and the plot scroll inside their own boxes


def test_a_hostile_model_name_executes_nothing(page: Page, site: tuple[LiveServer, dict[str, str]]) -> None:
    run_id = site[1][f"{HOSTILE.slug}@clinicalqa@0"]
    dialogs: list[str] = []
    console: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("console", lambda message: console.append(message.text))
    page.on("pageerror", lambda error: console.append(str(error)))
    for path in ("/", "/tasks/clinicalqa", f"/r/{run_id}", f"/models/{HOSTILE.slug}"):
        page.goto(path)
        page.wait_for_load_state("load")
        assert page.locator("img[src='x']").count() == 0, path
        injected = page.evaluate("[...document.scripts].filter(s => s.textContent.includes('alert')).length")
        assert injected == 0, path
        assert page.get_by_text(HOSTILE.name).count() >= 1, path  # shown as text
    assert dialogs == []
    assert console == []  # no script ran, and the CSP had nothing to refuse
