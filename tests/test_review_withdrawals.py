"""Authors' rights: anyone may ask for a withdrawal (no account, rate-limited, size-limited, no address stored);
a maintainer's withdrawal takes the result off the leaderboard and out of the rank ranges at once, while its page
and JSON stay with the notice and reason, its run key stays taken and nothing is deleted."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from server.settings import Settings
from store import Store
from tests.conftest import running
from tests.factory import FakeModel, write_bundle
from tests.populate import GPT_OSS, MEDGEMMA
from tests.review_support import bearer, make_maintainer, query, snapshot
from tools.bundles import import_result
from tools.registry import Registry

pytestmark = pytest.mark.anyio
REASON = "Our model was loaded without its chat template; the answers are truncated."


@pytest.fixture
async def token(settings: Settings, run_ids: dict[str, str]) -> str:
    return await make_maintainer(settings)


@pytest.fixture
async def app(settings: Settings, token: str) -> AsyncIterator[httpx.AsyncClient]:
    async with running(settings) as http:
        yield http


def board_ids(board: dict[str, object]) -> set[str]:
    return {row["run_id"] for row in board["rows"]}  # type: ignore[attr-defined, index]


async def test_a_withdrawal_request_needs_no_account_and_stores_no_address(
    app: httpx.AsyncClient, settings: Settings, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    response = await app.post("/v1/withdrawals", json={"run_id": run_id, "reason": REASON, "contact": ""})
    assert response.status_code == 202 and response.json()["status"] == "open"
    assert "set-cookie" not in response.headers
    rows = query(settings.db, "SELECT * FROM withdrawal_requests")
    assert len(rows) == 1 and "127.0.0.1" not in repr(rows)  # the client's address (ASGITransport's) is nowhere
    stored = b"".join(path.read_bytes() for path in Path(settings.db).parent.glob(f"{settings.db.name}*"))
    assert b"127.0.0.1" not in stored


async def test_withdrawal_requests_are_rate_limited_and_size_limited(
    app: httpx.AsyncClient, settings: Settings, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{GPT_OSS.slug}@clinicalqa@0"]
    statuses = [
        (await app.post("/v1/withdrawals", json={"run_id": run_id, "reason": REASON})).status_code for _ in range(6)
    ]
    assert statuses == [202] * 5 + [429]
    before = snapshot(settings.db)
    huge = await app.post(
        "/v1/withdrawals", content=b"{" + b" " * 20_000 + b"}", headers={"content-type": "application/json"}
    )
    assert huge.status_code == 413  # the size limit is checked before the rate limit counts anything
    for body, code in (
        ({"run_id": "nope", "reason": REASON}, "bad_request"),
        ({"run_id": run_id, "reason": "short"}, "bad_request"),
    ):
        assert (await app.post("/v1/withdrawals", json=body)).json()["error"] in (code, "rate_limited")
    assert snapshot(settings.db) == before


async def test_an_oversized_request_is_refused_by_its_length(app: httpx.AsyncClient) -> None:
    pulled = []

    async def body() -> AsyncIterator[bytes]:
        for chunk in range(10):
            pulled.append(chunk)
            yield b" " * 65536

    response = await app.post(
        "/v1/withdrawals",
        content=body(),
        headers={"content-type": "application/json", "content-length": str(10 * 65536)},
    )
    assert response.status_code == 413 and response.json()["error"] == "payload_too_large" and pulled == []
    unknown = await app.post("/v1/withdrawals", json={"run_id": "000000000000", "reason": REASON})
    assert unknown.status_code == 404 and unknown.json()["error"] == "run_not_found"


async def test_a_withdrawn_result_leaves_the_leaderboard_and_rank_ranges_but_its_page_and_json_stay(
    app: httpx.AsyncClient, settings: Settings, token: str, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    await app.post("/v1/withdrawals", json={"run_id": run_id, "reason": REASON})
    board = (await app.get("/v1/leaderboard?task=clinicalqa@0")).json()
    assert run_id in board_ids(board) and all(row["rank_range"] for row in board["rows"])
    results_before = query(settings.db, "SELECT COUNT(*) FROM results")

    withdrawn = await app.post(
        f"/v1/review/results/{run_id}/withdraw", json={"why": "checking the chat template"}, headers=bearer(token)
    )
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"

    board = (await app.get("/v1/leaderboard?task=clinicalqa@0")).json()
    assert run_id not in board_ids(board) and board["rows"][0]["rank"] == 1
    assert all(row["rank_range"] is not None and row["rank_range"][1] <= len(board["rows"]) for row in board["rows"])
    covers = query(settings.db, "SELECT covers_json FROM rank_range_sets WHERE task_slug = 'clinicalqa'")[0][0]
    assert run_id not in covers and query(
        settings.db, "SELECT COUNT(*) FROM rank_ranges WHERE run_id = ?", (run_id,)
    ) == [(0,)]
    result = (await app.get(f"/v1/results/{run_id}")).json()
    assert result["status"] == "withdrawn" and result["status_reason"] == "checking the chat template"
    page = await app.get(f"/r/{run_id}")
    assert page.status_code == 200 and "withdrawn" in page.text and "checking the chat template" in page.text
    lookup = (await app.get(f"/v1/lookup?model={MEDGEMMA.slug}&task=clinicalqa@0")).json()
    assert lookup["status"] == "withdrawn" and lookup["result"]["run_id"] == run_id
    assert query(settings.db, "SELECT COUNT(*) FROM results") == results_before  # nothing deleted
    assert query(settings.db, "SELECT status FROM withdrawal_requests") == [("withdrawn",)]
    again = await app.post(f"/v1/review/results/{run_id}/withdraw", json={"why": "again"}, headers=bearer(token))
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    request_again = await app.post("/v1/withdrawals", json={"run_id": run_id, "reason": REASON})
    assert request_again.status_code == 409

    reinstated = await app.post(
        f"/v1/review/results/{run_id}/publish", json={"why": "template was right"}, headers=bearer(token)
    )
    assert reinstated.status_code == 200
    assert run_id in board_ids((await app.get("/v1/leaderboard?task=clinicalqa@0")).json())


async def test_the_withdrawal_form_is_public_signed_and_limited(
    app: httpx.AsyncClient, settings: Settings, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    assert f'href="/withdraw?run_id={run_id}"' in (await app.get(f"/r/{run_id}")).text
    page = await app.get(f"/withdraw?run_id={run_id}")
    assert page.status_code == 200 and f'value="{run_id}"' in page.text and "set-cookie" not in page.headers
    form_token = page.text.split('name="form_token" value="', 1)[1].split('"', 1)[0]
    before = snapshot(settings.db)
    assert (await app.post("/withdraw", data={"run_id": run_id, "reason": REASON})).status_code == 403
    foreign = await app.post(
        "/withdraw",
        data={"run_id": run_id, "reason": REASON, "form_token": form_token},
        headers={"origin": "https://evil.example"},
    )
    assert foreign.status_code == 403 and snapshot(settings.db) == before
    sent = await app.post("/withdraw", data={"run_id": run_id, "reason": REASON, "form_token": form_token})
    assert sent.status_code == 202 and "is open" in sent.text


async def test_a_maintainer_can_decline_a_request(app: httpx.AsyncClient, token: str, run_ids: dict[str, str]) -> None:
    run_id = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    request_id = (await app.post("/v1/withdrawals", json={"run_id": run_id, "reason": REASON})).json()["id"]
    listed = (await app.get("/v1/review/withdrawals", headers=bearer(token))).json()["requests"]
    assert [r["id"] for r in listed] == [request_id]
    declined = await app.post(
        f"/v1/review/withdrawals/{request_id}/decline", json={"why": "the run was right"}, headers=bearer(token)
    )
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    assert (await app.get("/v1/review/withdrawals", headers=bearer(token))).json()["requests"] == []
    assert run_id in board_ids((await app.get("/v1/leaderboard?task=clinicalqa@0")).json())


async def test_the_official_tag_stays_reserved(settings: Settings, token: str, tmp_path: Path) -> None:
    official = FakeModel("acme/self-run", "Self-run")
    bundle = write_bundle(
        tmp_path / "official", task="clinicalqa@0", model=official, quality=0.6, tier="official", status="in_review"
    )
    store = await Store.open(settings.db)
    try:
        registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
        run_id = (await import_result(registry, bundle)).run_id
    finally:
        await store.close()
    async with running(settings) as http:
        refused = await http.post(f"/v1/review/results/{run_id}/publish", json={}, headers=bearer(token))
    assert refused.status_code == 409 and "submissions are not open" in refused.json()["message"]
