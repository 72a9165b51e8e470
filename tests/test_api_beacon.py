"""POST /v1/beacon: visits are counted from beacons only, once per page, daily visitor and day, for our own
pages the server sent to that visitor that day; the store keeps the daily hash, never an address; bad beacons
get the JSON error shape."""

from __future__ import annotations

import httpx
import pytest

from tests.populate import HARI, MEDGEMMA

pytestmark = pytest.mark.anyio
BROWSER = {"user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/156.0 Safari/537.36"}


async def flush_usage(client: httpx.AsyncClient) -> None:
    """Visits are written in batches (every few seconds and at shutdown); tests flush them directly."""
    runtime = client._transport.app.state.runtime  # type: ignore[attr-defined]
    await runtime.registry.usage.flush(runtime.registry.store)


def stored_visits(client: httpx.AsyncClient) -> list[tuple[str, str, str]]:
    store = client._transport.app.state.runtime.registry.store  # type: ignore[attr-defined]
    return [(row["day"], row["path"], row["visitor"]) for row in store.read("SELECT * FROM visits ORDER BY path")]


async def opened(client: httpx.AsyncClient, *paths: str) -> None:
    """What a browser does before its beacon: fetch the page (the server notes it was sent to this visitor)."""
    for path in paths:
        assert (await client.get(path, headers=BROWSER)).status_code == 200, path


async def visits(client: httpx.AsyncClient) -> int:
    await flush_usage(client)
    return int((await client.get("/v1/stats")).json()["visits"])


async def test_a_text_or_json_beacon_from_a_page_is_accepted_with_204(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    await opened(data_client, "/tasks/clinicalqa", f"/r/{run_id}")
    text = await data_client.post("/v1/beacon", content=b"/tasks/clinicalqa", headers=BROWSER)
    json = await data_client.post("/v1/beacon", json={"path": f"/r/{run_id}"}, headers=BROWSER)
    assert (text.status_code, json.status_code) == (204, 204)
    assert text.content == b"" and "set-cookie" not in text.headers
    assert await visits(data_client) == 2


async def test_visits_count_once_per_page_visitor_and_day(data_client: httpx.AsyncClient) -> None:
    pages = ["/", "/tasks", f"/models/{MEDGEMMA.slug}", "/benchmarks/clinicalqa", "/withdraw"]
    await opened(data_client, *pages)
    for _ in range(3):
        await data_client.post("/v1/beacon", content=b"/", headers=BROWSER)
    await data_client.post("/v1/beacon", content=b"/tasks?utm=x#top", headers=BROWSER)  # query and fragment dropped
    await data_client.post("/v1/beacon", content=b"/tasks", headers=BROWSER)
    await data_client.post("/v1/beacon", content=f"/models/{MEDGEMMA.slug}".encode(), headers=BROWSER)
    await data_client.post("/v1/beacon", content=b"/benchmarks/clinicalqa", headers=BROWSER)  # the catalog's pages too
    await data_client.post("/v1/beacon", content=b"/withdraw", headers=BROWSER)  # and the withdrawal form
    assert await visits(data_client) == 5
    other = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=data_client._transport.app, client=("10.1.2.3", 5555)),  # type: ignore[attr-defined]
        base_url="http://testserver",
    )
    async with other:
        await opened(other, "/")
        assert (await other.post("/v1/beacon", content=b"/", headers=BROWSER)).status_code == 204
    assert await visits(data_client) == 6  # another address is another visitor


async def test_the_store_keeps_the_daily_hash_never_the_address(data_client: httpx.AsyncClient) -> None:
    await opened(data_client, "/about")
    await data_client.post("/v1/beacon", content=b"/about", headers=BROWSER)
    await flush_usage(data_client)
    [(day, path, visitor)] = stored_visits(data_client)
    assert path == "/about" and len(day) == 10
    assert len(visitor) == 64 and int(visitor, 16) >= 0 and "127.0.0.1" not in visitor


async def test_page_fetches_and_crawler_beacons_are_not_visits(data_client: httpx.AsyncClient) -> None:
    for path in ("/", "/tasks", "/tasks/clinicalqa", "/about"):
        assert (await data_client.get(path, headers=BROWSER)).status_code == 200
    crawler = await data_client.post("/v1/beacon", content=b"/", headers={"user-agent": "Googlebot/2.1"})
    assert crawler.status_code == 204  # answered like any beacon, but not counted
    assert await visits(data_client) == 0


async def test_a_beacon_counts_only_for_a_page_sent_to_that_visitor_that_day(data_client: httpx.AsyncClient) -> None:
    """Finding 10 of the security review: scripted beacons, one per X-Forwarded-For, took the visit count from 2
    to 22. A beacon for a page the server never sent to its visitor now counts nothing, even when the page was
    sent to someone else; once the visitor has the page, its beacon counts."""
    app = data_client._transport.app  # type: ignore[attr-defined]
    for n in range(20):
        transport = httpx.ASGITransport(app=app, client=(f"203.0.113.{n}", 5555))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as script:
            assert (await script.post("/v1/beacon", content=b"/", headers=BROWSER)).status_code == 204
    await opened(data_client, "/tasks")
    other = httpx.ASGITransport(app=app, client=("198.51.100.1", 5555))
    async with httpx.AsyncClient(transport=other, base_url="http://testserver") as script:
        await script.post("/v1/beacon", content=b"/tasks", headers=BROWSER)
    assert await visits(data_client) == 0
    await data_client.post("/v1/beacon", content=b"/tasks", headers=BROWSER)
    assert await visits(data_client) == 1


@pytest.mark.parametrize(
    ("body", "headers", "status", "code"),
    [
        (b"/no-such-page", {}, 404, "not_found"),
        (b"/r/000000000000", {}, 404, "not_found"),  # the pattern of a page, but no such result
        (b"/tasks/nope", {}, 404, "not_found"),
        (b"/models/nobody/none", {}, 404, "not_found"),
        (b"/benchmarks/no-such-benchmark", {}, 404, "not_found"),
        (b"/v1/stats", {}, 404, "not_found"),  # an API route is not a page
        (b"/static/site.css", {}, 404, "not_found"),
        (b"/review", {}, 404, "not_found"),  # the maintainers' pages are not public visits
        (b"https://evil.example/", {}, 400, "bad_request"),
        (b"/<script>", {}, 400, "bad_request"),
        (b"", {}, 400, "bad_request"),
        (b'{"path": 3}', {"content-type": "application/json"}, 400, "bad_request"),
        (b"{not json", {"content-type": "application/json"}, 400, "bad_request"),
        (b'{"path": "/", "more": 1}', {"content-type": "application/json"}, 400, "bad_request"),
        (b" /tasks", {}, 400, "bad_request"),
        (b"/tasks?\xc3\xa9", {}, 400, "bad_request"),
        (b"\xff\xfe", {}, 400, "bad_request"),
        (b"/" + b"a" * 2000, {}, 413, "payload_too_large"),
        (b"/", {"sec-fetch-site": "cross-site"}, 400, "bad_request"),
    ],
    ids=lambda value: repr(value)[:40],
)
async def test_a_bad_beacon_gets_a_json_error_and_counts_nothing(
    data_client: httpx.AsyncClient, body: bytes, headers: dict[str, str], status: int, code: str
) -> None:
    response = await data_client.post("/v1/beacon", content=body, headers={**BROWSER, **headers})
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"] == code and response.json()["message"]
    assert await visits(data_client) == 0


async def test_a_body_that_claims_a_huge_length_is_refused_before_it_is_read(data_client: httpx.AsyncClient) -> None:
    response = await data_client.post("/v1/beacon", content=b"/", headers={"content-length": "999999"})
    assert response.status_code == 413 and response.json()["error"] == "payload_too_large"


async def test_a_beacon_from_our_own_origin_is_accepted(data_client: httpx.AsyncClient) -> None:
    response = await data_client.post("/v1/beacon", content=b"/", headers={**BROWSER, "sec-fetch-site": "same-origin"})
    assert response.status_code == 204


async def test_get_on_the_beacon_is_method_not_allowed(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/beacon")
    assert response.status_code == 405 and response.json()["error"] == "method_not_allowed"
