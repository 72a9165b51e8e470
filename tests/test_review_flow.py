"""End to end on a real uvicorn: the hari-q3-8b model card is read, the evaluator agent proposes the model and its
runs, a maintainer approves the run on the demo ClinicalQA task with a loopback OpenAI-compatible endpoint, the
server's worker runs it, the result waits in review, the maintainer publishes it, and it is on the leaderboard,
in MCP `lookup` (the SDK's client) and on the task page."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from mcp import Client

from server.settings import Settings
from tests.conftest import LiveServer
from tests.fake_llm import FakeLLM, Reply, Script
from tests.review_support import DEMO, HARI_CARD, bearer, make_maintainer, poll, query

pytestmark = pytest.mark.anyio
HARI = "snuh/hari-q3-8b"


def by_task(items: list[dict[str, Any]]) -> dict[str | None, dict[str, Any]]:
    return {item["task"]: item for item in items if item["model"] == HARI}


async def read_card(http: httpx.AsyncClient) -> dict[str, Any]:
    response = await http.post("/v1/review/papers", files={"file": (HARI_CARD.name, HARI_CARD.read_bytes())})
    assert response.status_code == 201, response.text
    return dict(response.json())


def check_proposals(reading: dict[str, Any]) -> dict[str | None, dict[str, Any]]:
    subject = next(m for m in reading["record"]["models"] if m["role"] == "subject")
    assert subject["name"] == HARI and subject["weights"] == "https://huggingface.co/snuh/hari-q3-8b"
    assert subject["base_model"] == "Qwen/Qwen3-8B-Base" and subject["license"] == "Apache-2.0"
    kormed = [c for c in reading["record"]["claims"] if c["dataset"] == "KorMedMCQA" and c["model"] == HARI]
    assert len(kormed) == 4 and all(c["mapping"]["task"] is None for c in kormed)
    assert all("different dataset" in c["mapping"]["reason"] for c in kormed)
    items = by_task(reading["items"])
    model = items[None]
    assert model["action"] == "proposed" and model["kind"] == "model" and "Qwen/Qwen3-8B-Base" in model["reason"]
    assert HARI in model["excerpt"]
    for task in ("clinicalqa@0", DEMO):  # a released LLM: a run on every published multiple-choice task
        run = items[task]
        assert run["action"] == "proposed" and run["tier"] == "agent" and len(run["run_key"]) == 64
        assert f"no published claim maps to {task}" in run["reason"]
        assert "KorMedMCQA" in run["reason"] and "KMLE" in run["reason"] and HARI in run["excerpt"]
    assert "not on this server" in items["clinicalqa@0"]["reason"]  # clinicalqa@0's data is not shipped
    assert reading["proposed"] == 3
    return items


async def wait_for_job(http: httpx.AsyncClient, item_id: int) -> dict[str, Any]:
    async def finished() -> dict[str, Any] | None:
        item = (await http.get(f"/v1/review/items/{item_id}")).json()
        return item if item["job"]["status"] in ("done", "failed") else None

    return await poll(finished, timeout=240)


async def test_a_model_card_becomes_a_published_result_through_review(settings: Settings) -> None:
    token = await make_maintainer(settings)
    script = Script({}, default=Reply("정답: B"))
    with LiveServer(settings) as server, FakeLLM(script) as llm:
        async with httpx.AsyncClient(base_url=server.url, headers=bearer(token), timeout=30) as http:
            items = check_proposals(await read_card(http))
            run = items[DEMO]
            proposed = (await http.get(f"/v1/lookup?model={HARI}&task={DEMO}")).json()
            assert proposed["status"] == "requested" and proposed["model_known"] is False  # never not_evaluated

            approved = await http.post(
                f"/v1/review/items/{run['proposal_id']}/approve",
                json={"endpoint": llm.url, "why": "the demo task ships its data"},
            )
            assert approved.status_code == 200, approved.text
            assert approved.json()["status"] == "approved" and approved.json()["job"]["endpoint"] == llm.url
            model_item = (await http.get(f"/v1/review/items/{items[None]['proposal_id']}")).json()
            assert model_item["status"] == "approved"  # the model was registered with its run

            done = await wait_for_job(http, run["proposal_id"])
            assert done["job"]["status"] == "done", done["job"]["message"]
            run_id = done["job"]["run_id"]
            assert run_id == run["run_id"]  # the harness computed exactly the run key that was approved
            assert query(settings.db, "SELECT status FROM models WHERE slug = ?", (HARI,)) == [("in_review",)]
            waiting = (await http.get(f"/v1/lookup?model={HARI}&task={DEMO}")).json()
            assert waiting["status"] == "in_review" and waiting["result"]["tier"] == "agent"
            board = (await http.get(f"/v1/leaderboard?task={DEMO}")).json()
            assert run_id not in {row["run_id"] for row in board["rows"]}
            assert run_id in {r["run_id"] for r in (await http.get("/v1/review/results")).json()["results"]}

            published = await http.post(f"/v1/review/results/{run_id}/publish", json={"why": "checked"})
            assert published.status_code == 200 and published.json()["status"] == "published"
            accuracy = next(m for m in published.json()["metrics"] if m["name"] == "accuracy")
            assert accuracy["value"] == pytest.approx(315 / 862)  # always "B": the majority letter of the test split

            board = (await http.get(f"/v1/leaderboard?task={DEMO}")).json()
            row = next(r for r in board["rows"] if r["run_id"] == run_id)
            assert row["tier"] == "agent" and row["model"]["slug"] == HARI and row["rank_range"] is not None
            page = await http.get("/tasks/clinicalqa-upstream-demo?version=0")
            assert f"/r/{run_id}" in page.text and "hari-q3-8b" in page.text
            assert query(settings.db, "SELECT status FROM models WHERE slug = ?", (HARI,)) == [("published",)]
            actions = [(e["actor"], e["action"]) for e in (await http.get("/v1/review/log")).json()["entries"]]
            assert actions[:4] == [
                ("alice", "publish"),
                ("evaluator", "job_done"),
                ("alice", "approve"),
                ("alice", "approve"),
            ]
            assert ("alice", "read_paper") in actions

        async with Client(f"{server.url}/mcp") as mcp:
            found = await mcp.call_tool("lookup", {"model": HARI, "task": DEMO})
            tools = {tool.name for tool in (await mcp.list_tools()).tools}
    assert not found.is_error and found.structured_content is not None
    assert found.structured_content["status"] == "evaluated"
    assert found.structured_content["result"]["run_id"] == run_id
    assert not any("review" in name or "approve" in name for name in tools)  # review stays off MCP
