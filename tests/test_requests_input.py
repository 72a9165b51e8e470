"""Asking for runs and finding models, on the real app with its lifespan: the rate limit, the body limit, bad input
with stable codes (and nothing stored), "did you mean" on unknown tasks and models, model names in any case and
Hugging Face repo ids, the model list with paging, and `benchtoward mcp` refusing a database that does not exist."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from server.settings import Settings
from tests.conftest import LiveServer, running
from tests.review_support import DEMO, query, snapshot
from tools.models import ModelSpec, add_model
from tools.ratelimit import EVALUATION_REQUESTS
from tools.registry import Registry

pytestmark = pytest.mark.anyio
HF_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"


async def test_new_requests_past_the_limit_are_rate_limited_and_repeats_are_not_counted(
    client: httpx.AsyncClient,
) -> None:
    for n in range(EVALUATION_REQUESTS.per_visitor):
        created = await client.post("/v1/requests", json={"model": f"acme/model-{n}", "task": DEMO})
        assert created.status_code == 201, created.text
    repeat = await client.post("/v1/requests", json={"model": "acme/model-0", "task": DEMO})
    assert repeat.status_code == 200 and repeat.json()["created"] is False
    refused = await client.post("/v1/requests", json={"model": "acme/one-more", "task": DEMO})
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert int(refused.headers["retry-after"]) > 0
    lookup = await client.get("/v1/lookup", params={"model": "acme/one-more", "task": DEMO})
    assert lookup.json()["status"] == "not_evaluated"  # nothing was stored for the refused request


async def test_a_request_body_over_16_kb_is_payload_too_large(client: httpx.AsyncClient, settings: Settings) -> None:
    before = snapshot(settings.db)
    body = {"model": "acme/big", "task": DEMO, "note": "x" * (16 * 1024)}
    response = await client.post("/v1/requests", json=body)
    assert response.status_code == 413 and response.json()["error"] == "payload_too_large"
    assert snapshot(settings.db) == before


BAD_BODIES: list[tuple[Any, int, str]] = [
    ({"task": DEMO}, 400, "bad_request"),  # no model
    ({"model": "acme/x"}, 400, "bad_request"),  # no task
    ({"model": "acme/x", "task": DEMO, "extra": 1}, 400, "bad_request"),
    ({"model": "acme x!", "task": DEMO}, 400, "bad_request"),
    ({"model": "acme/x", "task": "Clinical QA"}, 400, "bad_request"),
    ({"model": "acme/x", "task": DEMO, "source_url": "file:///etc/passwd"}, 400, "bad_request"),
    ({"model": "acme/x", "task": DEMO, "note": "n" * 4001}, 400, "bad_request"),
    ({"model": 42, "task": DEMO}, 400, "bad_request"),
    ([1, 2], 400, "bad_request"),
    ({"model": "acme/x", "task": "clinicaqa@0"}, 404, "task_not_found"),
]


@pytest.mark.parametrize(("body", "status", "code"), BAD_BODIES, ids=[str(b)[:50] for b, _, _ in BAD_BODIES])
async def test_a_bad_request_body_gets_a_stable_code_and_stores_nothing(
    client: httpx.AsyncClient, settings: Settings, body: Any, status: int, code: str
) -> None:
    before = snapshot(settings.db)
    response = await client.post("/v1/requests", json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"] == code and "Traceback" not in response.text
    assert snapshot(settings.db) == before


async def test_a_body_that_is_not_json_is_bad_request(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/requests", content=b"model=acme", headers={"content-type": "text/plain"})
    assert response.status_code == 400 and response.json()["error"] == "bad_request"


async def test_unknown_tasks_and_models_name_up_to_three_close_ones(client: httpx.AsyncClient) -> None:
    task = await client.get("/v1/lookup", params={"model": "baseline/majority", "task": "clinicaqa@0"})
    assert task.status_code == 404
    assert task.json()["error"] == "task_not_found" and task.json()["suggestions"][0] == "clinicalqa@0"
    assert "did you mean clinicalqa@0" in task.json()["message"]
    bare = await client.get("/v1/leaderboard", params={"task": "vitaldb-iho"})
    assert bare.json()["suggestions"][0] == "vitaldb-ioh"
    await client.get("/v1/lookup", params={"model": "baseline/majority", "task": "clinicalqa@0"})
    await add(client, ModelSpec(slug="baseline/majority", name="Majority", type="baseline"))
    model = await client.get("/v1/model", params={"model": "baseline/majorty"})
    assert model.status_code == 404 and model.json()["suggestions"] == ["baseline/majority"]
    assert "did you mean baseline/majority" in model.json()["message"]
    nothing = await client.get("/v1/model", params={"model": "zzzzzz/qqqqqq"})
    assert "suggestions" not in nothing.json() and nothing.json()["error"] == "model_not_found"


async def add(client: httpx.AsyncClient, spec: ModelSpec) -> None:
    """Register a model through the tools, on the running app's own store."""
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport)
    runtime = transport.app.state.runtime  # type: ignore[attr-defined]
    registry: Registry = runtime.registry
    await add_model(registry, spec)


async def test_model_names_match_in_any_case_and_hugging_face_ids_are_slugs(client: httpx.AsyncClient) -> None:
    await add(client, ModelSpec(slug=f"  {HF_ID} ", name="SmolLM2 135M", provider_model_id="smollm2-135m"))
    await add(client, ModelSpec(slug=HF_ID.lower(), name="SmolLM2 135M Instruct", provider_model_id="smollm2-135m"))
    listed = (await client.get("/v1/models")).json()
    assert [m["slug"] for m in listed["models"]] == [HF_ID]  # one model; its first form is kept
    assert listed["models"][0]["name"] == "SmolLM2 135M Instruct" and listed["models"][0]["aliases"] == ["smollm2-135m"]
    for name in (HF_ID, HF_ID.upper(), f" {HF_ID.lower()} ", "SmolLM2-135M"):
        found = await client.get("/v1/model", params={"model": name})
        assert found.status_code == 200 and found.json()["slug"] == HF_ID, (name, found.text)
        lookup = await client.get("/v1/lookup", params={"model": name, "task": " ClinicalQA@0 "})
        assert lookup.json()["status"] == "not_evaluated" and lookup.json()["model_known"] is True
    results = await client.get("/v1/results", params={"model": HF_ID.upper()})
    assert results.status_code == 200


async def test_the_model_list_filters_and_pages_to_the_end(client: httpx.AsyncClient) -> None:
    for n in range(5):
        await add(
            client, ModelSpec(slug=f"acme/med-{n}", name=f"Med {n}", status="evaluating" if n % 2 else "published")
        )
    await add(client, ModelSpec(slug="other/tab", name="Tabular", type="tabular"))
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params = {"limit": "2", "q": "acme", **({"cursor": cursor} if cursor else {})}
        page = (await client.get("/v1/models", params=params)).json()
        assert page["total"] == 5
        seen += [m["slug"] for m in page["models"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == [f"acme/med-{n}" for n in range(5)]
    evaluating = (await client.get("/v1/models", params={"status": "Evaluating"})).json()
    assert [m["slug"] for m in evaluating["models"]] == ["acme/med-1", "acme/med-3"]
    tabular = (await client.get("/v1/models", params={"type": "TABULAR"})).json()
    assert [m["slug"] for m in tabular["models"]] == ["other/tab"]
    for bad in ({"type": "nope"}, {"status": "gone"}, {"cursor": "zz"}, {"limit": "0"}):
        refused = await client.get("/v1/models", params=bad)
        assert refused.status_code == 400 and refused.json()["error"] == "bad_request", bad


async def test_over_mcp_requests_and_model_lists_answer_as_over_http(settings: Settings) -> None:
    with LiveServer(settings) as server:
        async with httpx.AsyncClient(base_url=server.url) as http, Client(f"{server.url}/mcp") as mcp:
            made = await mcp.call_tool("request_evaluation", {"model": "acme/mcp-7b", "task": DEMO})
            assert not made.is_error and made.structured_content is not None
            assert made.structured_content["status"] == "requested" and made.structured_content["created"]
            over_http = (await http.get("/v1/models")).json()
            over_mcp = await mcp.call_tool("list_models", {})
            assert over_mcp.structured_content == over_http
            typo = await mcp.call_tool("lookup", {"model": "acme/mcp-7b", "task": "clinicaqa@0"})
            assert typo.is_error and typo.content[0].text.startswith("task_not_found")  # type: ignore[union-attr]
            assert "did you mean clinicalqa@0" in typo.content[0].text  # type: ignore[union-attr]


def benchtoward_mcp(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "server.cli", "mcp", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, cwd=cwd, input="")


def test_stdio_refuses_a_database_that_does_not_exist_in_one_line(tmp_path: Path) -> None:
    done = benchtoward_mcp("--db", "benchtoward.db", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and str(tmp_path / "benchtoward.db") in done.stderr
    assert "Traceback" not in done.stderr and "--create" in done.stderr
    nested = benchtoward_mcp("--db", str(tmp_path / "nowhere" / "x.db"), "--create", cwd=tmp_path)
    assert nested.returncode == 2 and nested.stderr.count("\n") == 1 and "nowhere" in nested.stderr
    assert list(tmp_path.iterdir()) == []  # neither a database, a secret nor a folder was made


def test_stdio_with_create_makes_the_database_and_says_what_it_serves(tmp_path: Path) -> None:
    db = tmp_path / "made.db"
    done = benchtoward_mcp("--db", "made.db", "--create", "--public-url", "https://bench.example.org", cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # stdin was empty: the session ended at once
    assert db.is_file()
    assert f"serving {db}; links use https://bench.example.org" in done.stderr


async def test_stdio_serves_an_existing_database_with_links_at_the_public_url(settings: Settings) -> None:
    from mcp.client.stdio import StdioServerParameters

    async with running(settings) as http:  # makes the database, then stops
        assert (await http.get("/v1/tasks")).status_code == 200
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "server.cli", "mcp", "--db", str(settings.db), "--public-url", "https://bench.example.org"],
    )
    async with Client(parameters) as mcp:
        made = await mcp.call_tool("request_evaluation", {"model": HF_ID, "task": DEMO})
        models = await mcp.call_tool("list_models", {})
    assert made.structured_content is not None and made.structured_content["status"] == "requested"
    assert models.structured_content is not None
    assert all(m["url"].startswith("https://bench.example.org/") for m in models.structured_content["models"])


def benchtoward(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "server.cli", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=240, check=False)


def test_the_cli_registers_a_hugging_face_id_once_and_evaluates_names_in_any_case(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    first = benchtoward("models", "add", HF_ID, "--provider-model-id", "smollm2-135m", "--db", db)
    assert first.returncode == 0 and f"registered {HF_ID}" in first.stdout, first.stderr
    again = benchtoward("models", "add", f" {HF_ID.lower()} ", "--name", "SmolLM2", "--db", db)
    assert again.returncode == 0 and f"registered {HF_ID}" in again.stdout, again.stderr  # its first form is kept
    bad = benchtoward("models", "add", "no-slash", "--db", db)
    assert bad.returncode == 2 and bad.stderr.startswith('{"error":"bad_request"') and "Traceback" not in bad.stderr
    task = "ClinicalQA-Upstream-Demo@0"
    ran = benchtoward("eval", "--model", " BASELINE/Majority", "--task", task, "--limit", "5", "--db", db)
    assert ran.returncode == 0, ran.stderr
    models = query(tmp_path / "cli.db", "SELECT slug, name FROM models ORDER BY slug")
    assert models == [(HF_ID, "SmolLM2"), ("baseline/majority", "Most common answer (reference split)")]


async def test_a_source_url_the_server_cannot_read_still_enters_the_queue_with_the_reason(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    body = {"model": "acme/local-7b", "task": DEMO, "source_url": "http://127.0.0.1:9/card.md", "note": "see card"}
    response = await client.post("/v1/requests", json=body)
    assert response.status_code == 201, response.text
    assert response.json()["source_read"].startswith("not read: bad_request: 127.0.0.1 is not a public address")
    reasons = query(settings.db, "SELECT kind, reason, excerpt FROM proposals ORDER BY id")
    assert [kind for kind, _, _ in reasons] == ["model", "run"]
    assert all("not a public address" in reason for _, reason, _ in reasons)
    assert "note: see card" in reasons[1][1] and "source_url: http://127.0.0.1:9/card.md" in reasons[1][2]
    assert query(settings.db, "SELECT actor, action FROM audit_log") == [("request", "request_evaluation")]


async def test_the_evaluator_reads_the_source_and_names_the_model_after_its_weights(registry: Registry) -> None:
    """The network fetch is the boundary replaced here: the reader reads the real model card the URL would give."""
    from dataclasses import replace

    from tests.review_support import HARI_CARD
    from tools.reading import read_record
    from tools.requests import EvaluationRequestBody, request_evaluation

    async def read(url: str) -> Any:
        assert url == "https://huggingface.co/snuh/hari-q3-8b"
        return await read_record(HARI_CARD.read_bytes(), HARI_CARD.name)

    reading = replace(registry, source_reader=read)
    body = EvaluationRequestBody(model="hari-q3-8b", task=DEMO, source_url="https://huggingface.co/snuh/hari-q3-8b")
    receipt = await request_evaluation(reading, body)
    assert receipt.created and receipt.status == "requested" and receipt.model == "hari-q3-8b"
    assert receipt.source_read.startswith("read (rules): snuh/hari-q3-8b (weights https://huggingface.co/snuh/")
    proposals = query(registry.store.path, "SELECT kind, model_slug, payload_json FROM proposals ORDER BY id")
    assert [(kind, slug) for kind, slug, _ in proposals] == [("model", "snuh/hari-q3-8b"), ("run", "snuh/hari-q3-8b")]
    assert '"aliases":["hari-q3-8b"]' in proposals[0][2]  # the name asked for finds the model once registered


async def test_a_declined_request_is_not_evaluated_with_the_reason_and_is_not_made_again(registry: Registry) -> None:
    from tools.lookup import LookupQuery, lookup
    from tools.maintainers import Actor
    from tools.requests import EvaluationRequestBody, request_evaluation
    from tools.review import RejectRequest, reject

    first = await request_evaluation(registry, EvaluationRequestBody(model="acme/closed-70b", task=DEMO))
    run = query(registry.store.path, "SELECT id FROM proposals WHERE kind = 'run'")[0][0]
    await reject(registry, Actor("alice"), run, RejectRequest(why="no released weights"))
    answer = await lookup(registry, LookupQuery(model="ACME/closed-70b", task=DEMO))
    assert answer.status == "not_evaluated" and answer.request_id == first.request_id
    assert answer.hint is not None and "declined" in answer.hint and "no released weights" in answer.hint
    again = await request_evaluation(registry, EvaluationRequestBody(model="acme/closed-70b", task=DEMO))
    assert again.request_id == first.request_id and not again.created and again.status == "not_evaluated"
    assert query(registry.store.path, "SELECT COUNT(*) FROM evaluation_requests") == [(1,)]


async def test_a_request_typed_with_surrounding_spaces_is_found_again_by_lookup_and_by_a_repeat(
    client: httpx.AsyncClient,
) -> None:
    created = await client.post("/v1/requests", json={"model": "  Acme/Spaced-Model ", "task": DEMO})
    assert created.status_code == 201, created.text
    request_id = created.json()["request_id"]
    assert isinstance(request_id, int) and created.json()["model"] == "Acme/Spaced-Model"
    for name in ("Acme/Spaced-Model", "acme/spaced-model", " ACME/SPACED-MODEL"):
        lookup = await client.get("/v1/lookup", params={"model": name, "task": DEMO})
        assert lookup.json()["status"] == "requested" and lookup.json()["request_id"] == request_id, lookup.text
    repeat = await client.post("/v1/requests", json={"model": "acme/spaced-model", "task": DEMO})
    assert repeat.status_code == 200 and repeat.json()["request_id"] == request_id, repeat.text


async def test_a_query_asked_again_gets_the_same_answer_and_a_refused_one_is_refused_again(
    client: httpx.AsyncClient,
) -> None:
    """Parsed queries are remembered per route (an agent repeats its lookups); a refusal is never remembered."""
    for _ in range(3):
        refused = await client.get("/v1/lookup?model=acme/x&task=clinicalqa@0&bogus=1")
        assert refused.status_code == 400 and "bogus" in refused.json()["message"]
        found = await client.get("/v1/lookup?model=acme/x&task=clinicalqa@0")
        assert found.status_code == 200 and found.json()["status"] == "not_evaluated"
    await client.post("/v1/requests", json={"model": "acme/x", "task": "clinicalqa@0"})
    moved = await client.get("/v1/lookup?model=acme/x&task=clinicalqa@0")
    assert moved.json()["status"] == "requested"  # the same query string, a new answer: only the parse is kept
