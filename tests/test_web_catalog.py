"""The catalog pages: the list with its search form and filters, an entry page with every section and the naming
collision warning, links between tasks and entries both ways, and escaping of whatever an entry holds."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from server.settings import Settings
from store import Store
from tests.catalog_factory import entry_with, seed_entry, write_entry
from tests.conftest import running
from tests.populate import MEDGEMMA
from tools.catalog_files import import_catalog
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio

SECTIONS = [
    "At BenchToward",
    "What it measures",
    "Task format",
    "Metric",
    "Dataset",
    "Harness implementations",
    "Contamination",
    "Saturation",
    "Lineage",
    "Publisher and paper",
    "Sources",
    "Tags",
    "Research notes",
    "Freshness",
    "Revisions",
]


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


async def import_entries(settings: Settings, tmp_path: Path, *entries: dict) -> None:  # type: ignore[type-arg]
    store = await Store.open(settings.db)
    try:
        await sync_specs(store)
        for index, entry in enumerate(entries):
            await import_catalog(store, write_entry(tmp_path / f"entry{index}.json", entry))
    finally:
        await store.close()


async def test_the_nav_links_the_catalog(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert '<a href="/benchmarks">Benchmark catalog</a>' in page.text


async def test_the_list_page_shows_every_entry_and_a_search_form(client: httpx.AsyncClient) -> None:
    page = await client.get("/benchmarks")
    assert page.status_code == 200
    assert '<form class="catalog-search" method="get" action="/benchmarks" role="search">' in page.text
    assert 'name="q"' in page.text and 'name="runs_here"' in page.text and 'name="language"' in page.text
    for id in ("medbench", "clinicalqa", "vitaldb-ioh"):
        assert f'href="/benchmarks/{id}"' in page.text
    assert "name shared with another benchmark" in page.text
    assert 'href="/tasks/clinicalqa?version=0"' in page.text
    assert "runs here (published):" in page.text and "not run here (unassessed)" in page.text  # MedBench
    assert "(not_run_here)" not in page.text and "(not run here)" not in page.text  # said once, in words


async def test_the_list_page_searches_and_filters_like_the_api(client: httpx.AsyncClient) -> None:
    searched = await client.get("/benchmarks?q=hypotension")
    assert 'href="/benchmarks/vitaldb-ioh"' in searched.text and 'href="/benchmarks/medbench"' not in searched.text
    assert 'value="hypotension"' in searched.text
    not_run = await client.get("/benchmarks?runs_here=false")
    assert 'href="/benchmarks/medbench"' in not_run.text and 'href="/benchmarks/clinicalqa"' not in not_run.text
    assert '<option value="false" selected>' in not_run.text
    korean = await client.get("/benchmarks?language=ko")
    assert 'href="/benchmarks/clinicalqa"' in korean.text and 'href="/benchmarks/medbench"' not in korean.text
    assert '<option value="ko" selected>Korean (' in korean.text  # a select of the languages that occur
    nothing = await client.get("/benchmarks?q=zzzzzz")
    assert "No entry matches" in nothing.text
    empty = await client.get("/benchmarks?q=&tag=&language=ko", follow_redirects=False)
    assert empty.status_code == 303 and empty.headers["location"] == "/benchmarks?language=ko"


async def test_the_list_page_reads_filters_leniently(client: httpx.AsyncClient) -> None:
    for path in (
        "/benchmarks?language=Korean",
        "/benchmarks?language=KO",
        "/benchmarks?language=%ED%95%9C%EA%B5%AD%EC%96%B4",
    ):
        page = await client.get(path)
        assert page.status_code == 200 and 'href="/benchmarks/clinicalqa"' in page.text, path
        assert 'href="/benchmarks/medbench"' not in page.text, path
    runs = await client.get("/benchmarks?status=Runs%20here")
    assert 'href="/benchmarks/clinicalqa"' in runs.text and 'href="/benchmarks/medbench"' not in runs.text
    unknown = await client.get("/benchmarks?language=Klingon%20%28tlh%29&runs_here=perhaps")
    assert unknown.status_code == 200 and "No entry matches" in unknown.text
    assert "^[A-Za-z]" not in unknown.text and "bad_request" not in unknown.text  # no regex, no error code


async def test_the_medbench_page_shows_every_section_and_the_collision_warning(client: httpx.AsyncClient) -> None:
    page = await client.get("/benchmarks/medbench")
    assert page.status_code == 200
    for section in SECTIONS:
        assert f"<h2>{section}</h2>" in page.text, section
    warning = page.text[page.text.index('id="name-collision"') :]
    warning = warning[: warning.index("</div>")]
    assert page.text.index('id="name-collision"') < page.text.index("<h2>At BenchToward</h2>")  # prominent
    assert 'role="alert"' in page.text
    assert "Naming collision" in warning and "arXiv:2312.12806" in warning
    assert 'href="https://arxiv.org/abs/2312.12806"' in warning
    assert "text rule in body: Lineage" in warning


async def test_the_medbench_page_renders_each_section_readably(client: httpx.AsyncClient) -> None:
    page = (await client.get("/benchmarks/medbench")).text
    text = text_of(page)
    assert "BenchToward does not run this benchmark." in text
    assert "decision about this benchmark: unassessed" in text  # the disposition, the record behind <details>
    assert "Canonical id medbench" in text
    assert "Direction higher is better" in text and "Maximum score 100" in text
    assert "Random baseline not published Human baseline not published" in text
    assert "Languages zh Licence no licence stated Modalities text, image Public test set no Size 700,000" in text
    assert "URL https://medbench.opencompass.org.cn" in text
    assert "OpenCompass MedBench (opencompass/configs/datasets/MedBench/medbench_gen.py" in text
    assert "Risk low" in text
    assert "Status open Top score 62.5 As of 2025-11" in text
    assert "Family none recorded Predecessor none recorded" in text
    assert "Authors Mianxin Liu, Jinru Ding" in text and "arXiv 2407.10990" in text
    assert "— accessed 2026-09-08" in text
    assert "Researched 2026-09-08 Reviewed not reviewed yet" in text
    assert "<summary>Who researched it</summary><p>sonnet-5 agent, batch 3, slice A</p></details>" in page
    assert "Other fields" in text and "2026-09-09T16:56:50+00:00" in text  # the unmodelled build field
    assert text.count("predates this one by seven months") == 1  # the collision paragraph once, in the banner
    assert "2025) and v5 (June 2026)" in text  # the hard-wrapped year kept
    assert '<a href="https://opencompass.org.cn/policy">' in page
    assert '<a class="badge" href="/benchmarks?tag=information-extraction">information-extraction</a>' in page
    assert "<h3>Lineage</h3>" in page and "<code>./data/MedBench/&lt;subset&gt;</code>" in page


async def test_an_entry_without_a_collision_shows_no_warning(client: httpx.AsyncClient) -> None:
    page = await client.get("/benchmarks/vitaldb-ioh")
    assert page.status_code == 200 and 'id="name-collision"' not in page.text
    assert "Naming collision" not in page.text


async def test_an_entry_that_states_a_collision_shows_it_as_stated(settings: Settings, tmp_path: Path) -> None:
    stated = entry_with("ocr-med", "OCR-Med", name_collision="Another OCR-Med (2022) scores handwriting.", body="")
    await import_entries(settings, tmp_path, stated)
    async with running(settings) as client:
        page = await client.get("/benchmarks/ocr-med")
    assert "Another OCR-Med (2022) scores handwriting." in page.text
    assert "Stated by the entry (page.name_collision)." in page.text


async def test_a_task_page_links_its_catalog_entry_and_the_entry_links_back_with_the_leaderboard(
    data_client: httpx.AsyncClient,
) -> None:
    task_page = await data_client.get("/tasks/clinicalqa")
    assert 'Catalog entry: <a href="/benchmarks/clinicalqa">ClinicalQA</a>' in task_page.text
    entry_page = await data_client.get("/benchmarks/clinicalqa")
    assert "BenchToward runs this benchmark (published)." in entry_page.text  # seed 002's word for where it stands
    assert 'href="/tasks/clinicalqa?version=0"' in entry_page.text
    assert 'href="/v1/leaderboard?task=clinicalqa%400"' in entry_page.text
    assert MEDGEMMA.name in entry_page.text  # the top of the leaderboard
    assert "ClinicalQA has been public on Hugging Face, answers included, since 2025-04-04" in entry_page.text


async def test_a_task_without_a_catalog_entry_shows_no_catalog_link(client: httpx.AsyncClient) -> None:
    page = await client.get("/tasks/vitaldb-ioh-synthetic")
    assert page.status_code == 200 and "Catalog entry:" not in page.text


async def test_an_older_revision_page_says_so_and_links_the_newest(settings: Settings, tmp_path: Path) -> None:
    changed = seed_entry()
    changed["page"]["summary"] = "Second revision."
    await import_entries(settings, tmp_path, changed)
    async with running(settings) as client:
        old = await client.get("/benchmarks/medbench?revision=1")
        newest = await client.get("/benchmarks/medbench")
        missing = await client.get("/benchmarks/medbench?revision=9")
    assert (
        "This is revision 1 of this entry" in old.text and '<a href="/benchmarks/medbench">revision 2</a>' in old.text
    )
    assert "Second revision." in newest.text and "This is revision" not in newest.text
    assert 'href="/benchmarks/medbench?revision=1"' in newest.text
    assert missing.status_code == 404 and "benchmark_not_found" in missing.text


async def test_lineage_names_link_to_other_entries_on_the_page(settings: Settings, tmp_path: Path) -> None:
    lineage = {"family": "", "predecessor": "MedBench", "successors": ["Unknown Bench"], "variants": []}
    await import_entries(settings, tmp_path, entry_with("medbench-next", "MedBench Next", lineage=lineage))
    async with running(settings) as client:
        page = await client.get("/benchmarks/medbench-next")
    assert 'Predecessor</dt><dd><a href="/benchmarks/medbench">MedBench</a>' in page.text
    assert "<dd>Unknown Bench</dd>" in page.text


async def test_hostile_entry_content_is_escaped_everywhere(settings: Settings, tmp_path: Path) -> None:
    evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    hostile = entry_with("evil", f"Evil {evil}", summary=evil, tags=[evil], aliases=[evil], measures=evil)
    hostile["page"]["sources"] = [{"title": evil, "url": "javascript:alert(3)", "accessed": evil}]
    hostile["page"]["dataset"] = {"license": evil, "license_url": "javascript:alert(4)", "url": "data:x"}
    hostile["page"]["x_unknown"] = evil
    hostile["body"] = f"## {evil}\n\n[click](javascript:alert(5)) {evil}\n"
    await import_entries(settings, tmp_path, hostile)
    async with running(settings) as client:
        for path in ("/benchmarks", "/benchmarks/evil", "/benchmarks?q=evil"):
            page = await client.get(path)
            assert page.status_code == 200, path
            assert "<script>alert(1)" not in page.text and "<img src=x" not in page.text
            assert 'href="javascript:' not in page.text and 'href="data:' not in page.text
        detail = await client.get("/benchmarks/evil")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in detail.text


async def test_the_list_page_sorts_by_a_column_heading(client: httpx.AsyncClient) -> None:
    page = (await client.get("/benchmarks?sort=-name")).text
    table = page.split("<tbody>", 1)[1]
    names = ["VitalDB intraoperative", "MedBench", "ClinicalQA"]
    assert [table.index(name) for name in names] == sorted(table.index(name) for name in names)
    assert 'aria-sort="descending"' in page and 'href="/benchmarks?sort=name"' in page  # the next click reverses
