"""GET /v1/benchmarks and /v1/benchmarks/{id}: filters, full-text search, revisions, and the links between tasks
and catalog entries, on the real app."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.settings import Settings
from store import Store
from store import tasks as task_store
from tests.catalog_factory import entry_with, seed_entry, write_entry
from tests.conftest import running
from tools.catalog_files import SHIPPED_DIR, import_catalog
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio


@pytest.fixture
async def catalog_client(settings: Settings, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The app on a store with the shipped entries, two more entries and a second revision of MedBench."""
    store = await Store.open(settings.db)
    try:
        await sync_specs(store)
        extra = [
            entry_with(
                "medbench-2023",
                "MedBench (Cai et al., 2023)",
                aliases=["MedBench: A Large-Scale Chinese Benchmark"],
                tags=["medical", "chinese", "licensing-exam"],
                summary="Forty thousand Chinese licensing examination questions.",
                lineage={"family": "", "predecessor": "", "successors": ["MedBench"], "variants": ["clinicalqa"]},
            ),
            entry_with(
                "ophthobench",
                "OphthoBench",
                aliases=["Retina QA"],
                tags=["ophthalmology"],
                summary="Fundus photograph questions for eye-care models.",
                dataset={**seed_entry()["page"]["dataset"], "languages": ["en"]},
            ),
        ]
        for index, entry in enumerate(extra):
            await import_catalog(store, write_entry(tmp_path / f"extra{index}.json", entry))
        revised = seed_entry()
        revised["page"]["saturation"]["top_score"] = 71.5
        await import_catalog(store, write_entry(tmp_path / "revised.json", revised))
    finally:
        await store.close()
    async with running(settings) as client:
        yield client


# The entries the fixtures below are about; the shipped catalog holds more, so list assertions look at these only.
FIXTURE_IDS = {"medbench", "medbench-2023", "ophthobench", "clinicalqa", "vitaldb-ioh"}


async def test_the_list_shows_every_shipped_entry_with_what_benchtoward_derives(client: httpx.AsyncClient) -> None:
    body = (await client.get("/v1/benchmarks?limit=1000")).json()
    shipped = sorted(path.name.split("-", 1)[1].removesuffix(".json") for path in SHIPPED_DIR.glob("*.json"))
    assert body["total"] == len(shipped) >= 28
    rows = {row["id"]: row for row in body["benchmarks"]}
    assert sorted(rows) == shipped
    assert rows["medbench"]["name_collision"] is True and rows["medbench"]["runs_here"] is False
    assert rows["medbench"]["disposition"] == "unassessed" and rows["medbench"]["tasks"] == []
    assert rows["clinicalqa"]["runs_here"] is True and rows["clinicalqa"]["tasks"] == ["clinicalqa@0"]
    assert rows["vitaldb-ioh"]["tasks"] == ["vitaldb-ioh@0"] and rows["vitaldb-ioh"]["name_collision"] is False
    assert rows["clinicalqa"]["url"] == "http://testserver/benchmarks/clinicalqa"


async def test_benchmarks_run_here_stand_in_the_sites_words_and_the_others_say_why_not(
    client: httpx.AsyncClient,
) -> None:
    rows = {row["id"]: row for row in (await client.get("/v1/benchmarks?limit=1000")).json()["benchmarks"]}
    assert rows["clinicalqa"]["standing"] == "published" and rows["vitaldb-ioh"]["standing"] == "published"
    not_run = [row for row in rows.values() if not row["runs_here"]]
    assert len(not_run) == len(rows) - 2 and all(row["standing"] is None for row in not_run)
    for id in ("kmle", "kormedmcqa", "hpi-hypotension", "vitaldb-ioh-other-definitions"):
        detail = (await client.get(f"/v1/benchmarks/{id}")).json()
        assert detail["standing"] is None and detail["entry"]["disposition"]["status"] == "not_run_here"
        reasons = " ".join(detail["entry"]["disposition"]["reasons"])
        assert ("clinicalqa@0" in reasons) != ("vitaldb-ioh@0" in reasons), id  # says which of our tasks it is not


async def test_the_standing_follows_the_task_versions_status(settings: Settings) -> None:
    store = await Store.open(settings.db)
    try:
        await sync_specs(store)
        await task_store.set_task_status(store, "vitaldb-ioh", 0, "building")
        await task_store.set_task_status(store, "clinicalqa", 0, "in_review")
    finally:
        await store.close()
    async with running(settings) as client:
        assert (await client.get("/v1/benchmarks/vitaldb-ioh")).json()["standing"] == "building"
        rows = (await client.get("/v1/benchmarks?runs_here=true")).json()["benchmarks"]
        assert {row["id"]: row["standing"] for row in rows} == {"clinicalqa": "in_review", "vitaldb-ioh": "building"}
        page = await client.get("/benchmarks/clinicalqa")
        assert "BenchToward runs this benchmark (in review)." in page.text


async def ids(client: httpx.AsyncClient, query: str) -> list[str]:
    response = await client.get(f"/v1/benchmarks?{query}")
    assert response.status_code == 200, response.text
    return [row["id"] for row in response.json()["benchmarks"]]


async def fixture_ids(client: httpx.AsyncClient, query: str) -> list[str]:
    return [id for id in await ids(client, f"{query}&limit=1000") if id in FIXTURE_IDS]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("korean medical question answering", {"clinicalqa", "kormedmcqa", "kmle"}),
        ("hypotension prediction", {"vitaldb-ioh", "vitaldb-ioh-other-definitions", "hpi-hypotension"}),
        ("MedQA USMLE", {"medqa"}),
        ("ICU mortality", {"mimic3-benchmarks", "eicu-crd", "yaib"}),
        ("korea licensing exam", {"kmle", "kormedmcqa", "clinicalqa"}),
    ],
)
async def test_search_ranks_entries_sharing_more_and_rarer_words_first(
    client: httpx.AsyncClient, query: str, first: set[str]
) -> None:
    found = await ids(client, f"q={query}&limit=1000")
    assert set(found[: len(first)]) == first, found[:6]


async def test_search_finds_an_entry_that_shares_any_word_and_none_that_shares_no_word(
    client: httpx.AsyncClient,
) -> None:
    assert await ids(client, "q=usmle kardiologie") == ["medqa"]  # one word of two is enough
    assert await ids(client, "q=kardiologie zzzz") == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("q=MedBench", ["medbench", "medbench-2023"]),  # by name
        ("q=retina", ["ophthobench"]),  # by alias
        ("q=Standardized Reliable", ["medbench"]),  # by alias words
        ("q=ophthalmology", ["ophthobench"]),  # by tag
        ("q=fundus photograph", ["ophthobench"]),  # by summary words
        ("q=oph", ["ophthobench"]),  # word prefixes
        ("q=chinese licensing", ["medbench-2023", "medbench", "clinicalqa"]),  # both words first, then either
        ("q=hypotension", ["vitaldb-ioh"]),
        ("q=kardiologie", []),
    ],
)
async def test_search_finds_entries_by_name_alias_tag_and_summary_words(
    catalog_client: httpx.AsyncClient, query: str, expected: list[str]
) -> None:
    assert await fixture_ids(catalog_client, query) == expected


async def test_fts5_syntax_in_q_is_read_as_plain_words(catalog_client: httpx.AsyncClient) -> None:
    response = await catalog_client.get('/v1/benchmarks?q=NEAR(medbench) OR "*')
    assert response.status_code == 200
    assert {row["id"] for row in response.json()["benchmarks"][:2]} == {"medbench", "medbench-2023"}


async def test_search_ranks_by_any_word_so_a_described_benchmark_is_found(catalog_client: httpx.AsyncClient) -> None:
    # every word was required before: "korean medical question answering" found nothing
    found = await ids(catalog_client, "q=korean medical question answering")
    assert "clinicalqa" in found[:3]  # beside KorMedMCQA and KMLE, the catalog's other Korean medical QA entries


async def test_search_follows_the_newest_revision_only(catalog_client: httpx.AsyncClient) -> None:
    assert (await catalog_client.get("/v1/benchmarks?q=medbench")).json()["benchmarks"][0]["revision"] == 2


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tag=chinese", ["medbench", "medbench-2023"]),
        ("tag=CHINESE", ["medbench", "medbench-2023"]),
        ("tag=korean", ["clinicalqa"]),
        ("language=zh", ["medbench", "medbench-2023"]),
        ("language=ko", ["clinicalqa"]),
        ("language=en", ["ophthobench"]),
        ("status=runs_here", ["clinicalqa", "vitaldb-ioh"]),
        ("status=unassessed", ["medbench", "medbench-2023", "ophthobench"]),
        ("runs_here=true", ["clinicalqa", "vitaldb-ioh"]),
        ("runs_here=false", ["medbench", "medbench-2023", "ophthobench"]),
        ("runs_here=false&tag=chinese&q=forty", ["medbench-2023"]),
        ("tag=nothing-has-this", []),
    ],
)
async def test_filters_combine_and_keep_the_order_by_name(
    catalog_client: httpx.AsyncClient, query: str, expected: list[str]
) -> None:
    assert await fixture_ids(catalog_client, query) == expected


async def test_the_limit_keeps_the_order_by_name_and_the_total_counts_matches_before_it(
    catalog_client: httpx.AsyncClient,
) -> None:
    assert await ids(catalog_client, "runs_here=true&limit=1") == ["clinicalqa"]
    body = (await catalog_client.get("/v1/benchmarks?tag=medical&limit=2")).json()
    everything = (await catalog_client.get("/v1/benchmarks?tag=medical&limit=1000")).json()
    assert body["total"] == everything["total"] == len(everything["benchmarks"]) > 2 and len(body["benchmarks"]) == 2
    assert [row["id"] for row in body["benchmarks"]] == [row["id"] for row in everything["benchmarks"][:2]]


async def test_an_entry_comes_back_exactly_as_imported(client: httpx.AsyncClient) -> None:
    body = (await client.get("/v1/benchmarks/medbench")).json()
    assert body["entry"] == seed_entry()
    assert body["revision"] == body["latest_revision"] == 1
    assert body["runs_here"] is False and body["tasks"] == []
    assert body["name_collision"]["detected_from"] == "body: Lineage"
    assert body["name_collision"]["other_sources"][0]["url"] == "https://arxiv.org/abs/2312.12806"


async def test_an_older_revision_is_retrievable_and_the_newest_is_the_default(
    catalog_client: httpx.AsyncClient,
) -> None:
    newest = (await catalog_client.get("/v1/benchmarks/medbench")).json()
    first = (await catalog_client.get("/v1/benchmarks/medbench?revision=1")).json()
    assert newest["revision"] == newest["latest_revision"] == 2
    assert newest["entry"]["page"]["saturation"]["top_score"] == 71.5
    assert first["revision"] == 1 and first["latest_revision"] == 2
    assert first["entry"] == seed_entry()
    assert [(r["revision"], r["origin"]) for r in newest["revisions"]] == [(1, "shipped"), (2, "import")]


async def test_lineage_names_link_to_entries_that_exist(catalog_client: httpx.AsyncClient) -> None:
    body = (await catalog_client.get("/v1/benchmarks/medbench-2023")).json()
    links = {(link["relation"], link["name"]): link for link in body["lineage"]}
    assert links[("successor", "MedBench")]["id"] == "medbench"
    assert links[("successor", "MedBench")]["url"] == "http://testserver/benchmarks/medbench"
    assert links[("variant", "clinicalqa")]["id"] == "clinicalqa"


async def test_a_task_names_its_catalog_entry_and_the_entry_lists_the_task(data_client: httpx.AsyncClient) -> None:
    task = (await data_client.get("/v1/tasks/clinicalqa")).json()
    assert task["catalog_id"] == "clinicalqa"
    entry = (await data_client.get(f"/v1/benchmarks/{task['catalog_id']}")).json()
    assert entry["runs_here"] is True
    [linked] = entry["tasks"]
    assert linked["task"] == "clinicalqa@0" and linked["n_results"] == 4
    assert linked["url"] == "http://testserver/tasks/clinicalqa?version=0"
    board = await data_client.get(linked["leaderboard_url"].removeprefix("http://testserver"))
    assert board.status_code == 200 and board.json()["task"] == "clinicalqa@0"


async def test_the_shipped_entries_of_benchtoward_tasks_carry_the_seed_facts(client: httpx.AsyncClient) -> None:
    clinicalqa = (await client.get("/v1/benchmarks/clinicalqa")).json()["entry"]["page"]
    assert "2025-04-04" in clinicalqa["contamination"]["note"]
    assert clinicalqa["dataset"]["license"] == "CC BY 4.0 (KHDP); Apache-2.0 upstream (Hugging Face)"
    assert "doi:10.23421/2026.0800" in clinicalqa["citation"]
    vitaldb: dict[str, Any] = (await client.get("/v1/benchmarks/vitaldb-ioh")).json()["entry"]
    assert "MAP < 65 mmHg for at least 60 s" in vitaldb["page"]["summary"]
    assert "doi:10.1038/s41597-022-01411-5" in vitaldb["page"]["citation"]
    assert vitaldb["disposition"]["status"] == "runs_here"


async def test_the_openapi_document_describes_both_catalog_routes(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/v1/openapi.json")).json()["paths"]
    listed = {p["name"] for p in paths["/v1/benchmarks"]["get"]["parameters"]}
    assert listed == {"tag", "language", "status", "runs_here", "q", "limit", "cursor"}
    detail = paths["/v1/benchmarks/{id}"]["get"]
    assert {p["name"]: p["in"] for p in detail["parameters"]} == {"id": "path", "revision": "query"}
    assert "benchmark_not_found" in json.dumps(detail["responses"]["404"])


async def test_a_task_spec_links_to_its_catalog_entry(client) -> None:  # type: ignore[no-untyped-def]
    task = (await client.get("/v1/tasks/clinicalqa")).json()
    assert task["catalog_id"] == "clinicalqa"
    assert task["catalog_url"] == "http://testserver/benchmarks/clinicalqa"
    entry = await client.get(f"/v1/benchmarks/{task['catalog_id']}")
    assert entry.status_code == 200
