"""An agent's whole journey with a model nobody has evaluated, over /v1 and over MCP (the SDK's client) on a real
uvicorn: lookup says not_evaluated (model_known false) → the agent requests a run → requested (asking again answers
the same request) → a maintainer approves it through the review API → queued → a worker claims it and runs it
against a loopback OpenAI-compatible endpoint held half way → evaluating with progress → in_review → the
maintainer publishes it → evaluated. Both transports give the same answer at every step."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx
import pytest
from mcp import Client

from server.settings import Settings
from store import Store
from tests.conftest import LiveServer
from tests.fake_llm import FakeLLM, Reply, Script
from tests.review_support import DEMO, bearer, make_maintainer, poll, query
from tools.jobs import JobWorker
from tools.registry import Registry

pytestmark = pytest.mark.anyio
MODEL = "HuggingFaceTB/SmolLM2-135M-Instruct"  # a Hugging Face repo id, mixed case, as people write it
HELD_AFTER = 40  # the fake endpoint answers this many items, then holds the run until the test releases it


def without_heartbeat(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer without the run's last heartbeat time, which moves between two calls."""
    if answer.get("progress"):
        return {**answer, "progress": {k: v for k, v in answer["progress"].items() if k != "heartbeat_at"}}
    return answer


async def both(http: httpx.AsyncClient, mcp: Client, model: str, task: str) -> dict[str, Any]:
    """lookup over /v1 and over MCP; they must agree."""
    over_http = await http.get("/v1/lookup", params={"model": model, "task": task})
    assert over_http.status_code == 200, over_http.text
    over_mcp = await mcp.call_tool("lookup", {"model": model, "task": task})
    assert not over_mcp.is_error and over_mcp.structured_content is not None, over_mcp.content
    assert without_heartbeat(over_mcp.structured_content) == without_heartbeat(over_http.json())
    return dict(over_http.json())


async def request_both(http: httpx.AsyncClient, mcp: Client, body: dict[str, Any]) -> tuple[Any, Any]:
    first = await http.post("/v1/requests", json=body)
    again = await mcp.call_tool("request_evaluation", body)
    assert not again.is_error, again.content
    return first, again.structured_content


async def start_worker(settings: Settings) -> tuple[asyncio.Task[None], Store]:
    """`benchtoward worker` in this process: its own store connection on the same database file."""
    store = await Store.open(settings.db)
    registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
    worker = JobWorker(registry, cache_root=settings.db.parent / "cache", poll_seconds=0.05)
    return asyncio.create_task(worker.drain()), store


@pytest.mark.timeout(600)
async def test_a_new_model_moves_from_not_evaluated_to_evaluated_with_the_same_answer_on_both_transports(
    settings: Settings,
) -> None:
    token = await make_maintainer(settings)
    settings = Settings(**{**vars(settings), "review_workers": 0, "offline": True})  # the test runs the worker
    script = Script({}, default=Reply("정답: B"), hold_after=HELD_AFTER)
    with LiveServer(settings) as server, FakeLLM(script) as llm:
        async with (
            httpx.AsyncClient(base_url=server.url, timeout=60) as http,
            Client(f"{server.url}/mcp") as mcp,
        ):
            start = await both(http, mcp, MODEL, DEMO)
            assert start["status"] == "not_evaluated" and start["model_known"] is False and start["result"] is None
            assert "request" in start["hint"]

            body = {"model": f" {MODEL} ", "task": DEMO, "source_url": "https://huggingface.co/" + MODEL}
            created, repeated = await request_both(http, mcp, body)
            assert created.status_code == 201, created.text
            receipt = created.json()
            assert receipt["status"] == "requested" and receipt["created"] is True and receipt["model"] == MODEL
            assert "offline" in receipt["source_read"]  # the request enters the queue with the reason
            assert repeated["created"] is False and {**repeated, "created": True} == receipt  # the same request
            again = await http.post("/v1/requests", json={"model": MODEL.lower(), "task": DEMO})
            assert again.status_code == 200 and again.json()["request_id"] == receipt["request_id"]

            requested = await both(http, mcp, MODEL.upper(), DEMO)
            assert requested["status"] == "requested" and requested["request_id"] == receipt["request_id"]

            review = httpx.AsyncClient(base_url=server.url, headers=bearer(token), timeout=60)
            async with review:
                queue = (await review.get("/v1/review/queue")).json()["items"]
                run = next(item for item in queue if item["kind"] == "run" and item["model"] == MODEL)
                model_item = next(item for item in queue if item["kind"] == "model" and item["model"] == MODEL)
                assert run["task"] == DEMO and "POST /v1/requests" in run["reason"] and MODEL in run["excerpt"]
                assert model_item["details"]["slug"] == MODEL
                approved = await review.post(
                    f"/v1/review/items/{run['id']}/approve", json={"endpoint": llm.url, "why": "requested"}
                )
                assert approved.status_code == 200, approved.text

                queued = await both(http, mcp, MODEL, DEMO)
                assert queued["status"] == "queued" and queued["model_known"] is True

                worker, store = await start_worker(settings)
                try:

                    async def evaluating() -> dict[str, Any] | None:
                        answer = (await http.get("/v1/lookup", params={"model": MODEL, "task": DEMO})).json()
                        progress = answer.get("progress") or {}
                        return answer if progress.get("items_done", 0) >= HELD_AFTER else None

                    await poll(evaluating, timeout=120, every=0.1)  # the run moves; once held, it stands still
                    held = await both(http, mcp, MODEL, DEMO)
                    assert held["status"] == "evaluating" and held["result"] is None
                    assert held["progress"]["items_total"] == 862 and not held["progress"]["stale"]
                    assert held["progress"]["started_at"]
                    script.release.set()
                    await asyncio.wait_for(worker, timeout=300)
                finally:
                    script.release.set()
                    worker.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await worker
                    await store.close()

                waiting = await both(http, mcp, MODEL, DEMO)
                assert waiting["status"] == "in_review" and waiting["result"]["tier"] == "agent"
                run_id = waiting["result"]["run_id"]
                published = await review.post(f"/v1/review/results/{run_id}/publish", json={"why": "checked"})
                assert published.status_code == 200, published.text

            done = await both(http, mcp, MODEL.lower(), DEMO)
            assert done["status"] == "evaluated" and done["result"]["run_id"] == run_id
            listed = (await http.get("/v1/models", params={"q": "smollm2"})).json()
            assert [m["slug"] for m in listed["models"]] == [MODEL] and listed["models"][0]["status"] == "published"
            after = await http.post("/v1/requests", json={"model": MODEL, "task": DEMO})
            assert after.status_code == 200 and after.json()["status"] == "evaluated"
    assert query(settings.db, "SELECT model, model_key FROM evaluation_requests") == [(MODEL, MODEL.lower())]
    assert script.total() == 862


async def test_a_request_for_a_model_already_queued_by_a_paper_is_not_stored_twice(client: httpx.AsyncClient) -> None:
    first = await client.post("/v1/requests", json={"model": "acme/med-7b", "task": "clinicalqa-upstream-demo"})
    assert first.status_code == 201, first.text
    assert first.json()["task"] == DEMO  # a bare slug is the latest published version
    second = await client.post("/v1/requests", json={"model": "ACME/Med-7B", "task": DEMO, "note": "please"})
    assert second.status_code == 200 and second.json()["request_id"] == first.json()["request_id"]
    assert second.json()["note"] == ""  # the first request is answered as it was stored
