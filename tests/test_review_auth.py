"""Maintainer authentication: a missing or wrong token, a forged or expired session, a missing CSRF token or a
foreign origin are all refused and change nothing (every table compared before and after); logins are
rate-limited; the session cookie has the promised attributes; visitors never get a cookie; no token reaches a
log, an error or the database."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from server.settings import Settings
from store import Store
from tests.conftest import running
from tests.populate import MEDGEMMA
from tests.review_support import HARI_CARD, bearer, keys_for, make_maintainer, query, snapshot
from tools.maintainers import Actor
from tools.reading import read_and_propose
from tools.registry import Registry
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio
CSRF_FIELD = 'name="csrf" value="'


async def propose_hari(settings: Settings) -> None:
    """Pending review items (a model and its runs) before the app starts."""
    store = await Store.open(settings.db)
    try:
        await sync_specs(store)
        registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
        await read_and_propose(registry, Actor("cli:test"), HARI_CARD.read_bytes(), HARI_CARD.name)
    finally:
        await store.close()


@pytest.fixture
async def token(settings: Settings, run_ids: dict[str, str]) -> str:
    await propose_hari(settings)
    return await make_maintainer(settings)


@pytest.fixture
async def app(settings: Settings, token: str) -> AsyncIterator[httpx.AsyncClient]:
    async with running(settings) as http:
        yield http


async def log_in(http: httpx.AsyncClient, token: str) -> str:
    """Log in through the form like a browser; return the CSRF token the review page's forms carry."""
    form = (await http.get("/review/login")).text
    form_token = form.split('name="form_token" value="', 1)[1].split('"', 1)[0]
    response = await http.post("/review/login", data={"token": token, "form_token": form_token})
    assert response.status_code == 303, response.text
    page = await http.get("/review")
    assert page.status_code == 200 and "alice" in page.text
    return page.text.split(CSRF_FIELD, 1)[1].split('"', 1)[0]


def refused_api_calls(run_id: str) -> list[tuple[str, str, dict[str, str]]]:
    return [
        ("POST", "/v1/review/items/1/approve", {"endpoint": "http://127.0.0.1:9/v1"}),
        ("POST", "/v1/review/items/1/reject", {"why": "no"}),
        ("POST", f"/v1/review/results/{run_id}/publish", {"why": "x"}),
        ("POST", f"/v1/review/results/{run_id}/withdraw", {"why": "x"}),
        ("POST", "/v1/review/tasks/clinicalqa@0/status", {"status": "building"}),
        ("GET", "/v1/review/queue", {}),
        ("GET", "/v1/review/log", {}),
    ]


async def test_the_api_refuses_no_token_a_wrong_token_and_a_malformed_one_and_changes_nothing(
    app: httpx.AsyncClient, settings: Settings, token: str, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    key_id = token.split("_", 2)[1]
    wrong = f"btm_{key_id}_{'A' * 43}"
    before = snapshot(settings.db)
    calls = refused_api_calls(run_id)
    attempts = [
        ({}, calls),
        ({"Authorization": f"Basic {token}"}, calls),  # no bearer token: not counted
        (bearer(wrong), calls[:4]),
        (bearer("not-a-token"), calls[4:]),
    ]  # 7 failures, under the limit
    for headers, some_calls in attempts:
        for method, path, body in some_calls:
            response = await app.request(method, path, json=body or None, headers=headers)
            assert response.status_code == 401, (path, response.text)
            assert response.json()["error"] == "unauthorized" and token not in response.text
            assert response.headers["www-authenticate"].startswith("Bearer")
    assert snapshot(settings.db) == before
    assert (await app.get("/v1/review/queue", headers=bearer(token))).status_code == 200


async def test_a_revoked_or_reissued_token_stops_working(settings: Settings, token: str) -> None:
    second = await make_maintainer(settings, "alice")  # a new token for the same name replaces the old one
    async with running(settings) as http:
        assert (await http.get("/v1/review/queue", headers=bearer(token))).status_code == 401
        assert (await http.get("/v1/review/queue", headers=bearer(second))).status_code == 200


async def test_web_forms_refuse_a_missing_forged_or_expired_session_and_a_missing_csrf_token(
    app: httpx.AsyncClient, settings: Settings, token: str
) -> None:
    keys = keys_for(settings)
    maintainer_id, key_id = query(settings.db, "SELECT id, key_id FROM maintainers WHERE name = 'alice'")[0]
    valid = keys.sign_session(maintainer_id, key_id)
    forged = valid.rsplit(".", 1)[0] + ".AAAA" + valid.rsplit(".", 1)[1][4:]
    expired = keys.sign_session(maintainer_id, key_id, now=time.time() - keys.session_seconds - 60)
    csrf = keys.csrf_token(keys.read_session(valid))  # type: ignore[arg-type]
    before = snapshot(settings.db)
    cases = [
        (None, {"csrf": csrf}, {}, 401),
        (forged, {"csrf": csrf}, {}, 401),
        (expired, {"csrf": csrf}, {}, 401),
        (valid, {}, {}, 403),  # no CSRF token
        (valid, {"csrf": csrf[:-2] + "xx"}, {}, 403),  # a wrong one
        (valid, {"csrf": csrf}, {"origin": "https://evil.example"}, 403),  # posted from another site
        (valid, {"csrf": csrf}, {"sec-fetch-site": "cross-site"}, 403),
        (valid, {"csrf": csrf}, {"sec-fetch-site": "same-site", "origin": "null"}, 403),  # a sibling subdomain
    ]
    for cookie, form, headers, status in cases:
        app.cookies.clear()
        if cookie is not None:
            app.cookies.set("bt_session", cookie, path="/review")
        for path in ("/review/items/1/approve", "/review/items/1/reject", "/review/tasks/clinicalqa@0/status"):
            response = await app.post(
                path,
                data={**form, "why": "x", "endpoint": "http://127.0.0.1:9/v1", "status": "building"},
                headers=headers,
            )
            assert response.status_code == status, (path, cookie is not None, form, response.text[:200])
            assert response.headers["content-type"].startswith("text/html")
    assert snapshot(settings.db) == before
    for cookie in (forged, expired):  # pages send anyone without a valid session to the login form
        app.cookies.set("bt_session", cookie, path="/review")
        page = await app.get("/review", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"].startswith("/review/login")


async def test_a_session_with_its_csrf_token_acts_and_logout_ends_it(
    app: httpx.AsyncClient, settings: Settings, token: str
) -> None:
    csrf = await log_in(app, token)
    rejected = await app.post("/review/items/1/reject", data={"csrf": csrf, "why": "not now"})
    assert rejected.status_code == 303
    assert query(settings.db, "SELECT status, decided_by FROM proposals WHERE id = 1") == [("rejected", "alice")]
    cookie = app.cookies.get("bt_session", path="/review")
    assert (await app.post("/review/logout", data={"csrf": csrf})).status_code == 303
    app.cookies.set("bt_session", str(cookie), path="/review")  # the old cookie, replayed
    assert (await app.get("/review", follow_redirects=False)).status_code == 303
    log = (await app.get("/v1/review/log", headers=bearer(token))).json()["entries"]
    assert [e["action"] for e in log[:3]] == ["logout", "reject", "login"]


async def test_the_session_cookie_is_httponly_strict_expiring_and_secure_behind_https(
    settings: Settings, token: str
) -> None:
    for public_url, secure in (("http://testserver", False), ("https://bench.example", True)):
        async with running(replace(settings, public_url=public_url)) as http:
            form = (await http.get("/review/login")).text
            form_token = form.split('name="form_token" value="', 1)[1].split('"', 1)[0]
            response = await http.post("/review/login", data={"token": token, "form_token": form_token})
        cookie = response.headers["set-cookie"].lower()
        assert cookie.startswith("bt_session=") and "httponly" in cookie and "samesite=strict" in cookie
        assert "path=/review" in cookie and "max-age=28800" in cookie
        assert ("secure" in cookie.split("; ")) is secure


async def test_visitors_get_no_cookie_anywhere(app: httpx.AsyncClient, run_ids: dict[str, str]) -> None:
    run_id = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    for path in (
        "/",
        "/tasks/clinicalqa",
        f"/r/{run_id}",
        "/withdraw",
        "/review/login",
        "/review",
        "/v1/tasks",
        "/v1/review/queue",
    ):
        response = await app.get(path, follow_redirects=False)
        assert "set-cookie" not in response.headers, path


async def test_failed_logins_are_rate_limited_per_visitor(app: httpx.AsyncClient, token: str) -> None:
    form = (await app.get("/review/login")).text
    form_token = form.split('name="form_token" value="', 1)[1].split('"', 1)[0]
    statuses = [
        (await app.post("/review/login", data={"token": f"wrong-{n}", "form_token": form_token})).status_code
        for n in range(11)
    ]
    assert statuses == [401] * 10 + [429]
    locked = await app.post("/review/login", data={"token": "wrong-again", "form_token": form_token})
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) > 0
    api = await app.get("/v1/review/queue", headers=bearer("btm_wrong"))
    assert api.status_code == 429 and api.json()["error"] == "rate_limited"
    # only failures are refused: the right token still gets in, on the form and on the API
    assert (await app.post("/review/login", data={"token": token, "form_token": form_token})).status_code == 303
    assert (await app.get("/v1/review/queue", headers=bearer(token))).status_code == 200


async def test_a_login_form_from_elsewhere_or_without_its_form_token_is_refused(
    app: httpx.AsyncClient, token: str
) -> None:
    assert (await app.post("/review/login", data={"token": token})).status_code == 403
    form = (await app.get("/review/login")).text
    form_token = form.split('name="form_token" value="', 1)[1].split('"', 1)[0]
    foreign = await app.post(
        "/review/login", data={"token": token, "form_token": form_token}, headers={"origin": "https://evil.example"}
    )
    assert foreign.status_code == 403 and "set-cookie" not in foreign.headers


async def test_no_token_reaches_a_log_or_the_database(
    app: httpx.AsyncClient, settings: Settings, token: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = token[:-4] + "AAAA"
    await app.get("/v1/review/queue", headers=bearer(wrong))
    await app.get("/v1/review/queue", headers=bearer(token))
    await log_in(app, token)
    secret = settings.secret_file.read_bytes()
    assert token not in caplog.text and wrong not in caplog.text and secret.hex() not in caplog.text
    stored = b"".join(path.read_bytes() for path in Path(settings.db).parent.glob(f"{settings.db.name}*"))
    assert token.encode() not in stored and token.split("_", 2)[2].encode() not in stored
    import hashlib

    assert hashlib.sha256(token.encode()).hexdigest().encode() not in stored  # the stored hash is keyed


async def test_review_routes_answer_json_errors_with_stable_codes(app: httpx.AsyncClient, token: str) -> None:
    cases = [
        ("GET", "/v1/review/items/999", None, 404, "proposal_not_found"),
        ("GET", "/v1/review/items/abc", None, 400, "bad_request"),
        ("GET", "/v1/review/queue?status=maybe", None, 400, "bad_request"),
        ("POST", "/v1/review/items/1/reject", {}, 400, "bad_request"),
        ("POST", "/v1/review/items/1/approve", {"endpoint": "ftp://x"}, 400, "bad_request"),
        ("POST", "/v1/review/items/1/approve", {"endpoint": "http://user:key@127.0.0.1:9/v1"}, 400, "bad_request"),
        ("POST", "/v1/review/items/1/approve", {}, 400, "bad_request"),  # no endpoint for the run
        ("POST", "/v1/review/results/000000000000/publish", {}, 404, "run_not_found"),
        ("POST", "/v1/review/withdrawals/5/decline", {"why": "x"}, 404, "withdrawal_not_found"),
        ("POST", "/v1/review/tasks/clinicalqa@0/status", {"status": "building"}, 409, "conflict"),
        ("POST", "/v1/review/tasks/clinicalqa/status", {"status": "published"}, 400, "bad_request"),
        ("GET", "/v1/review/log?limit=0", None, 400, "bad_request"),
    ]
    for method, path, body, status, code in cases:
        response = await app.request(method, path, json=body, headers=bearer(token))
        assert response.status_code == status, (path, response.text)
        assert response.json()["error"] == code and set(response.json()) == {"error", "message"}
    raw = await app.post("/v1/review/items/1/reject", content=b"{not json", headers=bearer(token))
    assert raw.status_code == 400 and raw.json()["error"] == "bad_request"
