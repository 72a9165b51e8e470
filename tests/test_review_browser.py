"""The review pages in a real Chromium (Playwright, the system's browser): log in with a token, upload a model
card, reject an item, log out — under the site's CSP and `Referrer-Policy: no-referrer` (so the browser posts
our own forms with `Origin: null`), with no script on any page."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from server.settings import Settings
from tests.conftest import LiveServer
from tests.review_support import HARI_CARD, make_maintainer, query

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine")]


def test_a_maintainer_logs_in_reads_a_card_rejects_an_item_and_logs_out(settings: Settings) -> None:
    from playwright.sync_api import sync_playwright

    token = asyncio.run(make_maintainer(settings))
    with LiveServer(settings) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(f"{server.url}/review")
            assert page.url.endswith("/review/login?next=/review")
            page.fill("#token", token)
            page.click("button[type=submit]")
            assert page.url == f"{server.url}/review"
            cookie = next(c for c in page.context.cookies() if c["name"] == "bt_session")
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/review"
            page.set_input_files("#file", str(HARI_CARD))
            page.click("text=Read and propose")
            assert page.url == f"{server.url}/review/readings/1" and "already evaluated" not in page.content()
            page.goto(f"{server.url}/review/items/2")
            page.fill("input[name=why][required]", "no data here")
            page.click("text=Reject")
            assert "rejected" in page.url
            page.click("text=Log out")
            assert page.url == f"{server.url}/review/login"
            assert not [c for c in page.context.cookies() if c["name"] == "bt_session"]
        finally:
            browser.close()
    assert query(settings.db, "SELECT status, decided_by FROM proposals WHERE id = 2") == [("rejected", "alice")]
