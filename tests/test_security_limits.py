"""Limits that punish the attacker, not the owner (issue 15, findings 1, 6 and 7 of the security review): wrong
tokens from any number of visitors never lock out a valid token or session; failures are limited per visitor and
per key id; an IPv6 /64 is one visitor; one visitor cannot close the withdrawal channel, and repeated requests for
one result are folded into one. Also the informational findings: a login right after a logout lives, `?notice=`
shows only known notices, and a new database is readable by the service alone."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from asgi_lifespan import LifespanManager

from server.app import build_app
from server.settings import Settings
from store import Store
from tests.conftest import PUBLIC_URL
from tests.populate import GPT_OSS, MEDGEMMA
from tests.review_support import bearer, make_maintainer, query
from tools.usage import visitor_for

pytestmark = pytest.mark.anyio
REASON = "Our model was loaded without its chat template; the answers are truncated."
Visitors = Callable[[str], httpx.AsyncClient]


@asynccontextmanager
async def visitors(settings: Settings) -> AsyncIterator[Visitors]:
    """The real app with its lifespan, and clients that each connect from a given address."""
    application = build_app(settings)
    async with LifespanManager(application):
        opened: list[httpx.AsyncClient] = []

        def client(address: str) -> httpx.AsyncClient:
            transport = httpx.ASGITransport(app=application, client=(address, 40000))
            opened.append(httpx.AsyncClient(transport=transport, base_url=PUBLIC_URL))
            return opened[-1]

        try:
            yield client
        finally:
            for http in opened:
                await http.aclose()


@pytest.fixture
async def token(settings: Settings, run_ids: dict[str, str]) -> str:
    return await make_maintainer(settings)


async def form_token(http: httpx.AsyncClient) -> str:
    page = (await http.get("/review/login")).text
    return page.split('name="form_token" value="', 1)[1].split('"', 1)[0]


async def test_wrong_tokens_from_many_visitors_never_lock_out_a_valid_token_or_login(
    settings: Settings, token: str
) -> None:
    """Finding 1: 120 wrong tokens from 12 addresses fill every failed-login limit; the maintainer's valid token
    still gets in, on the API and at the login form, from a new address and from an attacker's own."""
    async with visitors(settings) as client:
        for n in range(12):
            attacker = client(f"198.51.100.{n}")
            for attempt in range(10):
                wrong = f"btm_{n:012x}_{'C' * 42}{attempt}"
                assert (await attacker.get("/v1/review/queue", headers=bearer(wrong))).status_code in (401, 429)
        newcomer, attacker = client("192.0.2.200"), client("198.51.100.3")
        assert (await newcomer.get("/v1/review/queue", headers=bearer("btm_wrong"))).status_code == 429
        for http in (newcomer, attacker):
            assert (await http.get("/v1/review/queue", headers=bearer(token))).status_code == 200
            login = await http.post("/review/login", data={"token": token, "form_token": await form_token(http)})
            assert login.status_code == 303 and "bt_session" in login.headers["set-cookie"]
            assert (await http.get("/review")).status_code == 200


async def test_wrong_secrets_for_one_key_id_are_limited_across_visitors(settings: Settings, token: str) -> None:
    """Finding 1 (per key id): guesses at one maintainer's token from many addresses are refused after 20, while
    that maintainer's own token still gets in."""
    key_id = token.split("_")[1]
    async with visitors(settings) as client:
        statuses = []
        for n in range(22):
            guess = f"btm_{key_id}_{'x' * 40}{n:03d}"
            response = await client(f"203.0.113.{n}").get("/v1/review/queue", headers=bearer(guess))
            statuses.append(response.status_code)
        assert statuses == [401] * 20 + [429] * 2
        assert (await client("203.0.113.99").get("/v1/review/queue", headers=bearer(token))).status_code == 200


async def test_an_ipv6_64_is_one_visitor_for_the_limits(settings: Settings, token: str) -> None:
    """Finding 7 (IPv6): eleven addresses of one /64 are one visitor; another /64 is another."""
    async with visitors(settings) as client:
        statuses = [
            (await client(f"2001:db8:1:2::{n:x}").get("/v1/review/queue", headers=bearer("btm_x"))).status_code
            for n in range(1, 12)
        ]
        assert statuses == [401] * 10 + [429]
        other = await client("2001:db8:1:3::1").get("/v1/review/queue", headers=bearer("btm_x"))
        assert other.status_code == 401


def test_the_visitor_hash_groups_ipv6_by_64_and_reads_mapped_ipv4_as_ipv4() -> None:
    """Finding 7 (IPv6): the hash of an IPv6 address is the hash of its /64; ::ffff:a.b.c.d is a.b.c.d."""
    secret = b"s" * 32

    def hashed(address: str) -> str | None:
        return visitor_for(secret, address, None).hash

    assert hashed("2001:db8:1:2::1") == hashed("2001:db8:1:2:ffff:ffff:ffff:ffff") == hashed("2001:db8:1:2::1%eth0")
    assert hashed("2001:db8:1:2::1") != hashed("2001:db8:1:3::1")
    assert hashed("::ffff:203.0.113.7") == hashed("203.0.113.7") != hashed("203.0.113.8")


async def test_one_visitor_cannot_close_the_withdrawal_channel_and_repeats_are_folded(
    settings: Settings, run_ids: dict[str, str], token: str
) -> None:
    """Finding 6: 50 addresses sending 5 requests each for one result leave one open request, and a new author
    asking about another result is still heard; a sixth request from one visitor is refused."""
    spammed, wanted = run_ids[f"{GPT_OSS.slug}@clinicalqa@0"], run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    async with visitors(settings) as client:
        ids = set()
        for n in range(50):
            http = client(f"10.1.{n}.1")
            for _ in range(5):
                response = await http.post("/v1/withdrawals", json={"run_id": spammed, "reason": REASON})
                assert response.status_code == 202, response.text
                ids.add(response.json()["id"])
        assert len(ids) == 1
        refused = await client("10.1.0.1").post("/v1/withdrawals", json={"run_id": wanted, "reason": REASON})
        assert refused.status_code == 429
        author = await client("192.0.2.9").post("/v1/withdrawals", json={"run_id": wanted, "reason": REASON})
        assert author.status_code == 202 and author.json()["id"] not in ids
    assert query(settings.db, "SELECT run_id FROM withdrawal_requests WHERE status = 'open' ORDER BY id") == [
        (spammed,),
        (wanted,),
    ]


async def test_a_login_right_after_a_logout_opens_a_session_that_lives(settings: Settings, token: str) -> None:
    """Informational finding: logout dated sessions_after one second ahead, so a login in that second was dead."""
    async with visitors(settings) as client:
        http = client("192.0.2.1")
        assert (
            await http.post("/review/login", data={"token": token, "form_token": await form_token(http)})
        ).is_redirect
        page = (await http.get("/review")).text
        csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert (await http.post("/review/logout", data={"csrf": csrf})).status_code == 303
        assert (await http.get("/review")).status_code == 303  # the old session ended
        again = await http.post("/review/login", data={"token": token, "form_token": await form_token(http)})
        assert again.status_code == 303
        assert (await http.get("/review")).status_code == 200  # at once, in the same second


async def test_a_maintainer_page_shows_only_known_notices(settings: Settings, token: str) -> None:
    """Informational finding: `?notice=` free text was shown in the banner of a trusted page."""
    lure = "Your token expired, paste it at https://evil.example"
    async with visitors(settings) as client:
        http = client("192.0.2.1")
        await http.post("/review/login", data={"token": token, "form_token": await form_token(http)})
        assert "evil.example" not in (await http.get("/review", params={"notice": lure})).text
        crafted = await http.get("/review", params={"notice": "approved", "subject": "3 https://evil.example"})
        assert "evil.example" not in crafted.text
        known = await http.get("/review", params={"notice": "approved", "subject": "3"})
        assert "item 3 approved" in known.text


async def test_a_new_database_and_its_wal_are_readable_by_the_service_alone(settings: Settings) -> None:
    """Informational finding: the database and WAL were created 0644."""
    store = await Store.open(settings.db)
    try:
        async with store.transaction() as db:
            await db.execute("CREATE TABLE IF NOT EXISTS probe (x)")
        wal = settings.db.with_name(settings.db.name + "-wal")
        for path in (settings.db, wal):
            assert os.path.exists(path) and stat.S_IMODE(path.stat().st_mode) == 0o600, path
    finally:
        await store.close()
