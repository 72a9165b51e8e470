"""The result, model, model-index and compare pages in Debian's Chromium: no horizontal overflow and no axe
violation on a phone (390×844) and a desktop (1280×900); the compare form works without JavaScript."""

from __future__ import annotations

import pytest

from tests.conftest import LiveServer
from tests.populate import HARI, LAST_MAP, MAJORITY, MEDGEMMA
from tests.test_web_browser import AXE, CHROMIUM, axe_violations, browser, page, site  # noqa: F401 (fixtures)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed (make test installs it as root)"),
]
SIZES = [(390, 844), (1280, 900)]

if CHROMIUM.exists():
    from playwright.sync_api import Page


def feature_pages(run_ids: dict[str, str]) -> list[str]:
    a, b = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"], run_ids[f"{MAJORITY.slug}@clinicalqa@0"]
    return [
        f"/r/{run_ids[f'{HARI.slug}@clinicalqa@0']}",
        f"/r/{run_ids[f'{HARI.slug}@clinicalqa@0']}?wrong=1&page=2",
        f"/r/{run_ids[f'{LAST_MAP.slug}@vitaldb-ioh@0']}",
        "/models",
        "/models?q=zzz",
        f"/models/{MEDGEMMA.slug}",
        "/compare",
        "/compare?task=clinicalqa@0",
        f"/compare?task=clinicalqa@0&a={a}&b={b}",
        "/tasks/clinicalqa?version=0",
    ]


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("width", "height"), SIZES, ids=["phone", "desktop"])
def test_feature_pages_fit_the_screen_and_pass_axe(
    page: Page,  # noqa: F811 (the fixture imported above)
    site: tuple[LiveServer, dict[str, str]],  # noqa: F811
    width: int,
    height: int,
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    problems = {}
    for path in feature_pages(site[1]):
        page.goto(path)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        clipped = page.evaluate(
            "[...document.querySelectorAll('svg.plot')].filter(s => s.getBoundingClientRect().right > "
            "s.parentElement.getBoundingClientRect().right + 1).length"
        )
        violations = axe_violations(page) if AXE.exists() else []
        if overflow > 0 or clipped or violations:
            problems[path] = {"overflow": overflow, "clipped svg": clipped, "axe": violations}
    assert not problems, problems


def test_two_results_are_compared_by_choosing_them_in_the_form(
    page: Page,  # noqa: F811 (the fixture imported above)
    site: tuple[LiveServer, dict[str, str]],  # noqa: F811
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/tasks/clinicalqa?version=0")
    page.get_by_role("link", name="Compare two models on this task").click()
    page.get_by_role("button", name="Compare").click()  # the first two rows are preselected
    page.get_by_label("Result B").select_option(site[1][f"{MAJORITY.slug}@clinicalqa@0"])
    page.get_by_role("button", name="Compare").click()
    assert page.get_by_role("heading", name="Item by item").is_visible()
    assert "McNemar" in page.inner_text("main") and f"b={site[1][f'{MAJORITY.slug}@clinicalqa@0']}" in page.url
