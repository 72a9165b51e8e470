"""Reading papers for review: the same paper twice proposes nothing new; claims on a differently defined task are
not mapped and say why; what exists is reused, not queued; texts without released weights propose nothing; the
upload limit is enforced before the body is read; URLs are fetched within limits, never from private addresses
or while offline."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from server.settings import Settings
from tests.conftest import free_port, running
from tests.populate import HARI
from tests.review_support import DEMO, HARI_CARD, PAPERS, bearer, make_maintainer, snapshot
from tools.errors import BadRequest, PayloadTooLarge
from tools.reading import MAX_DOCUMENT_BYTES, fetch_document

pytestmark = pytest.mark.anyio


@pytest.fixture
async def token(settings: Settings) -> str:
    return await make_maintainer(settings)


@pytest.fixture
async def app(settings: Settings, token: str) -> AsyncIterator[httpx.AsyncClient]:
    async with running(settings) as http:
        http.headers.update(bearer(token))
        yield http


async def read(http: httpx.AsyncClient, path: Path) -> dict[str, Any]:
    response = await http.post("/v1/review/papers", files={"file": (path.name, path.read_bytes())})
    assert response.status_code == 201, response.text
    return dict(response.json())


async def test_the_same_paper_read_twice_proposes_nothing_new(app: httpx.AsyncClient) -> None:
    first = await read(app, HARI_CARD)
    queue = (await app.get("/v1/review/queue")).json()["items"]
    second = await read(app, HARI_CARD)
    assert first["proposed"] == 3 and second["proposed"] == 0
    assert second["reading_id"] != first["reading_id"]  # every reading is kept
    again = {(i["kind"], i["task"]): i for i in second["items"] if i["model"] == "snuh/hari-q3-8b"}
    assert {i["action"] for i in again.values()} == {"already_proposed"}
    assert {i["proposal_id"] for i in again.values()} == {i["proposal_id"] for i in first["items"] if i["proposal_id"]}
    assert (await app.get("/v1/review/queue")).json()["items"] == queue


async def test_a_rejected_proposal_is_not_proposed_again(app: httpx.AsyncClient) -> None:
    first = await read(app, HARI_CARD)
    run = next(i for i in first["items"] if i["task"] == "clinicalqa@0")
    rejected = await app.post(f"/v1/review/items/{run['proposal_id']}/reject", json={"why": "no data here"})
    assert rejected.status_code == 200
    second = await read(app, HARI_CARD)
    again = next(i for i in second["items"] if i["task"] == "clinicalqa@0")
    assert again["action"] == "already_proposed" and again["proposal_status"] == "rejected"


async def test_a_claim_on_a_differently_defined_task_is_not_mapped_and_says_why(app: httpx.AsyncClient) -> None:
    reading = await read(app, PAPERS / "ioh_scalogram_preprint_abstract.md")
    claims = reading["record"]["claims"]
    assert claims and all(c["mapping"]["task"] is None for c in claims)
    assert all("different hypotension definition" in c["mapping"]["reason"] for c in claims)
    assert reading["proposed"] == 0 and (await app.get("/v1/review/queue")).json()["items"] == []


async def test_a_time_series_model_is_proposed_but_its_run_needs_a_maintainer(app: httpx.AsyncClient) -> None:
    reading = await read(app, PAPERS / "written_ioh_vitaldb_abstract.md")
    model = next(i for i in reading["items"] if i["kind"] == "model")
    run = next(i for i in reading["items"] if i["kind"] == "run")
    assert model["action"] == "proposed" and model["model"] == "example-lab/HypoNet-2"
    assert run["action"] == "not_proposed" and run["task"] == "vitaldb-ioh@0" and "--command" in run["reason"]
    assert "AUROC of 0.91" in run["excerpt"]
    item = (await app.get(f"/v1/review/items/{model['proposal_id']}")).json()
    assert item["details"]["type"] == "timeseries" and item["details"]["provider_model_id"] == "example-lab/HypoNet-2"


async def test_a_model_without_released_weights_is_not_proposed(app: httpx.AsyncClient) -> None:
    reading = await read(app, PAPERS / "written_press_release_medimind.md")
    medimind = next(i for i in reading["items"] if i["model"] == "MediMind-7B")
    assert medimind["action"] == "not_proposed" and "weights not released" in medimind["reason"]
    assert reading["proposed"] == 0


async def test_what_is_evaluated_already_is_reused_not_queued(
    settings: Settings, run_ids: dict[str, str], token: str
) -> None:
    async with running(settings) as http:
        http.headers.update(bearer(token))
        reading = await read(http, HARI_CARD)
    items = {(i["kind"], i["task"]): i for i in reading["items"] if i["model"] == HARI.slug}
    assert items[("model", None)]["action"] == "reuse" and "already registered" in items[("model", None)]["reason"]
    evaluated = items[("run", "clinicalqa@0")]
    assert evaluated["action"] == "reuse" and evaluated["run_id"] == run_ids[f"{HARI.slug}@clinicalqa@0"]
    assert evaluated["reason"].startswith("already evaluated — reuse")
    assert items[("run", DEMO)]["action"] == "proposed" and reading["proposed"] == 1


async def test_an_upload_over_the_limit_is_refused_before_its_body_is_read(
    app: httpx.AsyncClient, settings: Settings
) -> None:
    pulled = []

    async def body() -> AsyncIterator[bytes]:
        for chunk in range(100):
            pulled.append(chunk)
            yield b"x" * 1024

    before = snapshot(settings.db)
    declared = str(MAX_DOCUMENT_BYTES * 2)
    response = await app.post(
        "/v1/review/papers",
        content=body(),
        headers={"content-type": "multipart/form-data; boundary=x", "content-length": declared},
    )
    assert response.status_code == 413 and response.json()["error"] == "payload_too_large"
    assert pulled == []  # refused on its Content-Length alone
    assert snapshot(settings.db) == before


async def test_a_document_that_is_not_what_it_claims_is_bad_document(app: httpx.AsyncClient) -> None:
    response = await app.post("/v1/review/papers", files={"file": ("paper.pdf", b"<html>not a pdf</html>")})
    assert response.status_code == 400 and response.json()["error"] == "bad_document"
    empty = await app.post("/v1/review/papers", json={})
    assert empty.status_code == 400 and empty.json()["error"] == "bad_request"


async def test_urls_are_refused_for_private_addresses_and_while_offline(settings: Settings, token: str) -> None:
    async with running(settings) as http:
        loopback = await http.post(
            "/v1/review/papers", json={"url": "http://127.0.0.1:9/card.md"}, headers=bearer(token)
        )
        assert loopback.status_code == 400 and "not a public address" in loopback.json()["message"]
    async with running(replace(settings, offline=True)) as http:
        offline = await http.post(
            "/v1/review/papers", json={"url": "https://huggingface.co/snuh/hari-q3-8b"}, headers=bearer(token)
        )
    assert offline.status_code == 409 and offline.json()["error"] == "conflict"
    assert "offline" in offline.json()["message"]


class FileServer:
    """A loopback HTTP server for the fetcher: the card, a lying Content-Length, an endless chunked body."""

    def __init__(self) -> None:
        async def card(request: Request) -> Response:
            return Response(HARI_CARD.read_bytes(), media_type="text/markdown")

        async def huge(request: Request) -> Response:
            return Response(b"x", headers={"content-length": str(MAX_DOCUMENT_BYTES + 1)})

        async def endless(request: Request) -> Response:
            async def chunks() -> AsyncIterator[bytes]:
                for _ in range(64):
                    yield b"y" * 65536

            return StreamingResponse(chunks(), media_type="text/plain")

        async def moved(request: Request) -> Response:
            return Response(status_code=302, headers={"location": "/model-card"})

        app = Starlette(
            routes=[
                Route("/model-card", card),
                Route("/huge", huge),
                Route("/endless", endless),
                Route("/moved", moved),
            ]
        )
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> FileServer:
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                return self
            threading.Event().wait(0.02)
        raise TimeoutError("the file server did not start")

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def files() -> Iterator[FileServer]:
    with FileServer() as server:
        yield server


async def test_the_fetcher_reads_a_document_within_its_limits(files: FileServer) -> None:
    content, name = await fetch_document(f"{files.url}/moved", allow_private=True)
    assert content == HARI_CARD.read_bytes() and name == "model-card.md"
    with pytest.raises(PayloadTooLarge):
        await fetch_document(f"{files.url}/huge", allow_private=True)
    with pytest.raises(PayloadTooLarge):
        await fetch_document(f"{files.url}/endless", allow_private=True, max_bytes=1_000_000)
    with pytest.raises(BadRequest, match="not a public address"):
        await fetch_document(f"{files.url}/model-card")


FOO_CARD = b"""# Foo-7B: a Korean clinical LLM

We release Foo-7B, fine-tuned from Qwen/Qwen2.5-7B, under the Apache-2.0 licence.
Weights: https://huggingface.co/acme/Foo-7B/tree/9f8e7d6c5b4a
Foo-7B reaches 71.2% accuracy on ClinicalQA (zero-shot).
"""


async def test_a_mapped_claim_is_what_its_run_checks_and_the_weights_revision_is_the_version(
    app: httpx.AsyncClient,
) -> None:
    response = await app.post("/v1/review/papers", files={"file": ("foo.md", FOO_CARD)})
    items = {(i["kind"], i["task"]): i for i in response.json()["items"]}
    model = (await app.get(f"/v1/review/items/{items[('model', None)]['proposal_id']}")).json()
    assert model["details"]["version"] == "9f8e7d6c5b4a" and model["details"]["slug"] == "acme/Foo-7B"
    run = items[("run", "clinicalqa@0")]
    assert run["reason"].startswith("the text claims zero-shot ClinicalQA accuracy 71.2%")
    assert "this run checks it" in run["reason"] and "71.2% accuracy on ClinicalQA" in run["excerpt"]
    key = (await app.get(f"/v1/review/items/{run['proposal_id']}")).json()["details"]
    assert key["model"] == {"slug": "acme/Foo-7B", "version": "9f8e7d6c5b4a"}
    assert key["config"] == {"adapter": "openai-chat", "model_id": "acme/Foo-7B"}
