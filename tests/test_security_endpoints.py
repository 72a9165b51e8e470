"""Secrets by allowlist (issue 15, finding 5 of the security review): an approval could name any environment
variable as `api_key_env` and any URL as the endpoint, and the worker sent that variable's value to it as a bearer
token. Now the variable must start with BENCHTOWARD_KEY_ or be listed in `--endpoint-key-envs`, the endpoint's
host must be in `--endpoint-hosts` when the operator lists any; a refusal is `bad_request`, audited, and changes
nothing else, on the API and the web form; a job queued before the rule never reads the variable."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import httpx
import orjson
import pytest

from server.cli import main
from server.settings import Settings
from tests.conftest import running
from tests.fake_llm import FakeLLM, Script
from tests.review_support import bearer, make_maintainer, poll, query
from tests.test_review_auth import log_in, propose_hari

pytestmark = pytest.mark.anyio
CANARY = "canary-value-7f3a"


@pytest.fixture
async def token(settings: Settings, run_ids: dict[str, str]) -> str:
    await propose_hari(settings)
    return await make_maintainer(settings)


async def run_item(http: httpx.AsyncClient, token: str) -> int:
    items = (await http.get("/v1/review/queue", headers=bearer(token))).json()["items"]
    return int(next(item["id"] for item in items if item["kind"] == "run"))


def refusals(settings: Settings) -> list[tuple[Any, ...]]:
    return query(settings.db, "SELECT action, target FROM audit_log WHERE action = 'refuse_endpoint'")


async def test_an_approval_naming_an_unlisted_variable_or_host_is_refused_and_audited(
    settings: Settings, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 5 on the API: SECRET_CANARY (not listed, no prefix) and a host not on the list are refused."""
    monkeypatch.setenv("SECRET_CANARY", CANARY)
    listed = replace(settings, endpoint_hosts="llm.example.org, 127.0.0.1", review_workers=0)
    async with running(listed) as http:
        item = await run_item(http, token)
        for body in (
            {"endpoint": "http://127.0.0.1:9/v1", "api_key_env": "SECRET_CANARY"},
            {"endpoint": "http://evil.example:9/v1", "api_key_env": "BENCHTOWARD_KEY_LLM"},
            {"endpoint": "http://evil.example:9/v1"},
        ):
            refused = await http.post(f"/v1/review/items/{item}/approve", json=body, headers=bearer(token))
            assert refused.status_code == 400 and refused.json()["error"] == "bad_request", refused.text
        assert len(refusals(settings)) == 3 and query(settings.db, "SELECT count(*) FROM jobs") == [(0,)]
        allowed = {"endpoint": "http://127.0.0.1:9/v1", "api_key_env": "BENCHTOWARD_KEY_LLM"}
        accepted = await http.post(f"/v1/review/items/{item}/approve", json=allowed, headers=bearer(token))
        assert accepted.status_code == 200 and accepted.json()["job"]["api_key_env"] == "BENCHTOWARD_KEY_LLM"


async def test_the_operator_can_list_a_variable_by_name(settings: Settings, token: str) -> None:
    """Finding 5: `--endpoint-key-envs` names variables without the prefix that an approval may use."""
    async with running(replace(settings, endpoint_key_envs="OPENAI_API_KEY,OTHER", review_workers=0)) as http:
        item = await run_item(http, token)
        body = {"endpoint": "http://127.0.0.1:9/v1", "api_key_env": "OPENAI_API_KEY"}
        assert (await http.post(f"/v1/review/items/{item}/approve", json=body, headers=bearer(token))).is_success


async def test_the_web_form_refuses_an_unlisted_variable_too(settings: Settings, token: str) -> None:
    """Finding 5 on the web form `/review/items/{id}/approve`."""
    async with running(replace(settings, review_workers=0)) as http:
        item = await run_item(http, token)
        csrf = await log_in(http, token)
        form = {"csrf": csrf, "endpoint": "http://127.0.0.1:9/v1", "api_key_env": "SECRET_CANARY"}
        refused = await http.post(f"/review/items/{item}/approve", data=form)
        assert refused.status_code == 400 and "BENCHTOWARD_KEY_" in refused.text
        assert len(refusals(settings)) == 1 and query(settings.db, "SELECT count(*) FROM jobs") == [(0,)]


async def test_a_job_queued_before_the_rule_never_sends_the_variable(
    settings: Settings, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 5 at the worker: a job approved while the operator allowed SECRET_CANARY, run after they stopped
    allowing it, fails with `bad_request` and the endpoint never hears from it."""
    monkeypatch.setenv("SECRET_CANARY", CANARY)
    with FakeLLM(Script({})) as llm:
        async with running(replace(settings, endpoint_key_envs="SECRET_CANARY", review_workers=0)) as http:
            item = await run_item(http, token)
            body = {"endpoint": llm.url, "api_key_env": "SECRET_CANARY"}
            assert (await http.post(f"/v1/review/items/{item}/approve", json=body, headers=bearer(token))).is_success
        async with running(replace(settings, review_workers=1)) as http:

            async def failed() -> dict[str, Any] | None:
                job = (await http.get(f"/v1/review/items/{item}", headers=bearer(token))).json()["job"]
                return job if job["status"] == "failed" else None

            job = await poll(failed, timeout=60)
        assert job["message"].startswith("bad_request: api_key_env 'SECRET_CANARY' is not allowed")
        assert llm.script.total() == 0


async def test_the_command_line_approval_follows_the_same_allowlist(
    settings: Settings, token: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 5 on `benchtoward review approve`: refused and audited without the flag, accepted with it (the
    command runs its own event loop, so it runs in a thread here)."""
    db = str(settings.db)
    item = next(row[0] for row in query(settings.db, "SELECT id FROM proposals WHERE kind = 'run' ORDER BY id"))
    approve = ["review", "approve", str(item), "--db", db, "--endpoint", "http://127.0.0.1:9/v1"]
    assert await asyncio.to_thread(main, [*approve, "--api-key-env", "SECRET_CANARY"]) == 2
    assert orjson.loads(capsys.readouterr().err)["error"] == "bad_request"
    assert len(refusals(settings)) == 1 and query(settings.db, "SELECT count(*) FROM jobs") == [(0,)]
    allowed = [*approve, "--api-key-env", "SECRET_CANARY", "--endpoint-key-envs", "SECRET_CANARY"]
    assert await asyncio.to_thread(main, allowed) == 0
    assert query(settings.db, "SELECT api_key_env FROM jobs") == [("SECRET_CANARY",)]
