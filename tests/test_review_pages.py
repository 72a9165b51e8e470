"""The maintainers' pages through a browser's eyes (form posts with the session cookie and CSRF token): read a
paper by upload, see the reading and the queue, approve from the item page, and read the audit log; the audit log
itself refuses to be changed."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import AsyncIterator

import httpx
import pytest

from server.settings import Settings
from tests.conftest import running
from tests.review_support import DEMO, HARI_CARD, make_maintainer, query
from tests.test_review_auth import log_in

pytestmark = pytest.mark.anyio


@pytest.fixture
async def browser(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    token = await make_maintainer(settings)
    async with running(settings) as http:
        yield http, await log_in(http, token)


async def test_a_maintainer_reads_a_paper_and_approves_a_run_from_the_pages(
    browser: tuple[httpx.AsyncClient, str], settings: Settings
) -> None:
    http, csrf = browser
    uploaded = await http.post(
        "/review/papers", data={"csrf": csrf}, files={"file": (HARI_CARD.name, HARI_CARD.read_bytes(), "text/markdown")}
    )
    assert uploaded.status_code == 303 and uploaded.headers["location"] == "/review/readings/1"
    reading = await http.get("/review/readings/1")
    assert reading.status_code == 200
    assert "no published claim maps to clinicalqa@0" in reading.text and "different dataset" in reading.text
    assert "KorMedMCQA" in reading.text and "Qwen/Qwen3-8B-Base" in reading.text
    queue = await http.get("/review")
    assert all(f'href="/review/items/{n}"' in queue.text for n in (1, 2, 3))
    run_item = query(settings.db, "SELECT id FROM proposals WHERE task_ref = ?", (DEMO,))[0][0]
    page = await http.get(f"/review/items/{run_item}")
    assert "Endpoint (base URL)" in page.text and "agent" in page.text

    refused = await http.post(f"/review/items/{run_item}/approve", data={"csrf": csrf, "why": "demo"})
    assert refused.status_code == 400 and "endpoint" in refused.text  # no endpoint: the error page says so
    approved = await http.post(
        f"/review/items/{run_item}/approve",  # port 9: nothing listens; the job fails cleanly
        data={"csrf": csrf, "why": "demo", "endpoint": "http://127.0.0.1:9/v1"},
    )
    assert approved.status_code == 303
    assert query(settings.db, "SELECT status FROM proposals WHERE id = ?", (run_item,)) == [("approved",)]
    log = await http.get("/review/log")
    assert log.status_code == 200 and "read_paper" in log.text and "approve" in log.text
    assert "<script" not in log.text.lower()


async def test_the_upload_form_needs_its_csrf_token(browser: tuple[httpx.AsyncClient, str], settings: Settings) -> None:
    http, _ = browser
    response = await http.post("/review/papers", files={"file": (HARI_CARD.name, HARI_CARD.read_bytes())})
    assert response.status_code == 403
    assert query(settings.db, "SELECT COUNT(*) FROM paper_readings") == [(0,)]


async def test_pages_carry_no_inline_script_or_style(browser: tuple[httpx.AsyncClient, str]) -> None:
    http, _ = browser
    for path in ("/review", "/review/log", "/review/login", "/withdraw"):
        page = await http.get(path)
        assert page.status_code == 200, path
        assert "style=" not in page.text and "<style" not in page.text
        # The only script a page may load is the public pages' visit beacon, from our own origin (never inline);
        # the maintainers' pages load none.
        scripts = re.findall(r"<script[^>]*>", page.text)
        assert scripts == ([] if path.startswith("/review") else ['<script src="/static/beacon.js" defer>']), path


async def test_the_audit_log_refuses_updates_and_deletes(
    browser: tuple[httpx.AsyncClient, str], settings: Settings
) -> None:
    connection = sqlite3.connect(settings.db)
    try:
        assert connection.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0] >= 2  # maintainer add, login
        for statement in ("UPDATE audit_log SET actor = 'mallory'", "DELETE FROM audit_log"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                connection.execute(statement)
    finally:
        connection.close()


async def test_ids_beyond_sqlite_s_integers_are_refused_not_a_server_error(
    browser: tuple[httpx.AsyncClient, str],
) -> None:
    http, csrf = browser
    huge = str(2**63)
    assert (await http.get(f"/review/readings/{huge}")).status_code == 404
    assert (await http.get(f"/review/log?before={huge}")).status_code == 200  # an unusable cursor: the newest
    declined = await http.post(f"/review/withdrawals/{huge}/decline", data={"csrf": csrf, "why": "no"})
    assert declined.status_code == 400
