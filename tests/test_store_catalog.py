"""Catalog imports into a real store: round trip, idempotence, revisions, all-or-nothing refusals, the search index
kept in step, and the shipped entries loaded at start."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from store import Store
from store import catalog as catalog_store
from tests.catalog_factory import SEED_FILE, catalog_snapshot, entry_with, seed_entry, write_entry
from tools.catalog import catalog_entry_for
from tools.catalog_files import SHIPPED_DIR, export_catalog, export_text, import_catalog, sync_catalog
from tools.errors import BadRequest, BenchmarkNotFound
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh store with an empty catalog (no shipped entries loaded)."""
    opened = await Store.open(tmp_path / "catalog.db")
    try:
        yield opened
    finally:
        await opened.close()


def search_ids(store: Store, words: str) -> list[str]:
    rows = store.read("SELECT id FROM catalog_search WHERE catalog_search MATCH ? ORDER BY id", (words,))
    return [row["id"] for row in rows]


async def test_importing_the_seed_then_exporting_it_gives_the_same_json_field_for_field(
    store: Store, tmp_path: Path
) -> None:
    imported = await import_catalog(store, SEED_FILE)
    assert [(i.id, i.revision, i.created) for i in imported] == [("medbench", 1, True)]
    written = export_catalog(store, tmp_path / "out")
    assert written == [tmp_path / "out" / "medbench.json"]
    exported = json.loads(written[0].read_text(encoding="utf-8"))
    assert exported == json.loads(SEED_FILE.read_text(encoding="utf-8"))
    assert exported["build"] == {  # a field BenchToward does not model, kept
        "built_at": "2026-09-09T16:56:50+00:00",
        "commit": "0a599558854c0e238c03a0f0d725239cb28f9d11",
        "eligibility_as_of": "2026-09-09",
    }
    assert written[0].read_bytes() == SEED_FILE.read_bytes()


async def test_an_entry_with_extra_fields_everywhere_exports_with_every_one_of_them(
    store: Store, tmp_path: Path
) -> None:
    entry = seed_entry()
    entry["x_top"] = 1
    entry["page"]["x_page"] = [1.5, "two"]
    entry["page"]["metric"]["x_metric"] = {"deep": {"deeper": None}}
    entry["page"]["sources"][0]["x_source"] = True
    entry["disposition"]["verified_results"] = [{"model": "m", "score": 0.5}]
    await import_catalog(store, write_entry(tmp_path / "extras.json", entry))
    assert json.loads(export_text(store, "medbench")) == entry


async def test_reimporting_an_identical_entry_changes_nothing(store: Store) -> None:
    await import_catalog(store, SEED_FILE)
    before = catalog_snapshot(store)
    again = await import_catalog(store, SEED_FILE)
    assert [(i.revision, i.created) for i in again] == [(1, False)]
    assert catalog_snapshot(store) == before


async def test_a_reformatted_but_equal_entry_is_not_a_new_revision(store: Store, tmp_path: Path) -> None:
    await import_catalog(store, SEED_FILE)
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(seed_entry(), separators=(",", ":")), encoding="utf-8")
    assert [i.created for i in await import_catalog(store, compact)] == [False]


async def test_a_changed_entry_becomes_a_new_revision_and_the_old_one_stays_readable(
    store: Store, tmp_path: Path
) -> None:
    await import_catalog(store, SEED_FILE)
    changed = seed_entry()
    changed["page"]["saturation"]["top_score"] = 70.1
    changed["page"]["summary"] = "A rewritten summary about ophthalmology."
    imported = await import_catalog(store, write_entry(tmp_path / "changed.json", changed))
    assert [(i.revision, i.created) for i in imported] == [(2, True)]
    assert [r.revision for r in catalog_store.list_revisions(store, "medbench")] == [1, 2]
    assert json.loads(export_text(store, "medbench")) == changed
    assert json.loads(export_text(store, "medbench", revision=1)) == seed_entry()
    assert search_ids(store, "ophthalmology") == ["medbench"]  # the index follows the newest revision
    assert search_ids(store, "OpenCompass") == []


async def test_going_back_to_an_old_content_is_a_new_revision_of_it(store: Store, tmp_path: Path) -> None:
    await import_catalog(store, SEED_FILE)
    changed = seed_entry()
    changed["page"]["status"] = "retired"
    await import_catalog(store, write_entry(tmp_path / "changed.json", changed))
    back = await import_catalog(store, SEED_FILE)
    assert [(i.revision, i.created) for i in back] == [(3, True)]
    assert json.loads(export_text(store, "medbench")) == seed_entry()


@pytest.mark.parametrize(
    "spoil",
    [
        lambda entry: entry["page"].pop("id"),
        lambda entry: entry["page"]["dataset"].update(size="700000"),
        lambda entry: entry["page"].update(measures="x" * (5 * 1024 * 1024)),
        lambda entry: entry["page"].update(tags="medical"),
    ],
    ids=["missing-id", "size-as-text", "five-megabyte-text", "tags-as-text"],
)
async def test_a_bad_entry_is_refused_and_nothing_is_stored(store: Store, tmp_path: Path, spoil) -> None:  # type: ignore[no-untyped-def]
    await import_catalog(store, SEED_FILE)
    before = catalog_snapshot(store)
    entry = seed_entry()
    entry["page"]["summary"] = "changed, so that a valid import would add a revision"
    spoil(entry)
    with pytest.raises(BadRequest, match=r"bad\.json: "):
        await import_catalog(store, write_entry(tmp_path / "bad.json", entry))
    assert catalog_snapshot(store) == before


async def test_invalid_json_is_refused_and_nothing_is_stored(store: Store, tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"page": {"id": "x", "name": "X"}', encoding="utf-8")
    with pytest.raises(BadRequest, match=r"broken\.json: invalid JSON"):
        await import_catalog(store, bad)
    assert catalog_snapshot(store) == {table: [] for table in catalog_snapshot(store)}


async def test_a_directory_with_one_bad_file_stores_none_of_its_entries(store: Store, tmp_path: Path) -> None:
    write_entry(tmp_path / "in" / "a.json", entry_with("bench-a", "Bench A"))
    write_entry(tmp_path / "in" / "b.json", entry_with("bench-b", "Bench B", tags=[1, 2]))
    with pytest.raises(BadRequest, match=r"b\.json: .*page\.tags"):
        await import_catalog(store, tmp_path / "in")
    assert catalog_store.all_entries(store) == []


async def test_a_directory_of_good_files_is_imported_in_one_go(store: Store, tmp_path: Path) -> None:
    write_entry(tmp_path / "in" / "a.json", entry_with("bench-a", "Bench A"))
    write_entry(tmp_path / "in" / "b.json", [entry_with("bench-b", "Bench B"), entry_with("bench-c", "Bench C")])
    (tmp_path / "in" / "notes.txt").write_text("not an entry", encoding="utf-8")
    imported = await import_catalog(store, tmp_path / "in")
    assert [i.id for i in imported] == ["bench-a", "bench-b", "bench-c"]


async def test_the_same_id_twice_in_one_import_is_refused(store: Store, tmp_path: Path) -> None:
    write_entry(tmp_path / "twice.json", [entry_with("bench-a", "Bench A"), entry_with("bench-a", "Bench A2")])
    with pytest.raises(BadRequest, match="more than once"):
        await import_catalog(store, tmp_path / "twice.json")
    assert catalog_store.all_entries(store) == []


async def test_a_file_over_the_file_limit_is_refused_before_it_is_parsed(store: Store, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (8 * 1024 * 1024 + 1))
    with pytest.raises(BadRequest, match="a catalog file may hold at most 8,388,608 bytes"):
        await import_catalog(store, big)


async def test_a_missing_path_and_an_empty_directory_are_refused(store: Store, tmp_path: Path) -> None:
    with pytest.raises(BadRequest, match="no such file"):
        await import_catalog(store, tmp_path / "absent.json")
    (tmp_path / "empty").mkdir()
    with pytest.raises(BadRequest, match=r"no \.json files"):
        await import_catalog(store, tmp_path / "empty")


async def test_exporting_an_unknown_entry_or_revision_is_benchmark_not_found(store: Store) -> None:
    await import_catalog(store, SEED_FILE)
    with pytest.raises(BenchmarkNotFound):
        export_text(store, "nope")
    with pytest.raises(BenchmarkNotFound):
        export_text(store, "medbench", revision=2)


async def test_export_to_a_json_file_writes_an_array_that_imports_back(store: Store, tmp_path: Path) -> None:
    await import_catalog(store, SEED_FILE)
    await import_catalog(store, write_entry(tmp_path / "a.json", entry_with("bench-a", "Bench A")))
    [written] = export_catalog(store, tmp_path / "all.json")
    assert [entry["page"]["id"] for entry in json.loads(written.read_text(encoding="utf-8"))] == ["medbench", "bench-a"]
    assert [i.created for i in await import_catalog(store, written)] == [False, False]


async def test_the_search_index_has_one_row_per_entry_with_name_aliases_tags_and_summary(store: Store) -> None:
    await import_catalog(store, SEED_FILE)
    rows = store.read("SELECT id, name, aliases, tags, summary FROM catalog_search")
    assert len(rows) == 1 and rows[0]["name"] == "MedBench"
    assert "Comprehensive, Standardized" in rows[0]["aliases"] and "information-extraction" in rows[0]["tags"]
    assert search_ids(store, "name: medbench") == ["medbench"]


async def test_a_fresh_database_starts_with_the_shipped_entries_medbench_first(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "fresh.db")
    try:
        await sync_specs(store)
        entries = catalog_store.all_entries(store)
        assert [entry.id for entry in entries][:3] == ["medbench", "clinicalqa", "vitaldb-ioh"]
        assert len(entries) == len(list(SHIPPED_DIR.glob("*.json")))
        assert entries[0].seq == 1 and entries[0].origin == "shipped"
        assert json.loads(export_text(store, "medbench")) == seed_entry()
    finally:
        await store.close()


async def test_starting_again_does_not_undo_a_newer_import_of_a_shipped_entry(store: Store, tmp_path: Path) -> None:
    await sync_catalog(store)
    newer = seed_entry()
    newer["page"]["freshness"]["reviewed"] = "2026-11-01"
    await import_catalog(store, write_entry(tmp_path / "newer.json", newer))
    before = catalog_snapshot(store)
    again = await sync_catalog(store)
    assert len(again) == len(list(SHIPPED_DIR.glob("*.json"))) and not any(i.created for i in again)
    assert catalog_snapshot(store) == before
    assert json.loads(export_text(store, "medbench"))["page"]["freshness"]["reviewed"] == "2026-11-01"


async def test_every_shipped_entry_is_valid_and_names_a_file_of_its_own_id() -> None:
    for path in sorted(SHIPPED_DIR.glob("*.json")):
        entry = json.loads(path.read_text(encoding="utf-8"))
        assert path.stem.split("-", 1)[1] == entry["page"]["id"]
    assert (SHIPPED_DIR / "01-medbench.json").is_file()


async def test_every_shipped_entry_cites_its_sources_and_says_whether_and_why_it_runs_here() -> None:
    for path in sorted(SHIPPED_DIR.glob("*.json")):
        entry = json.loads(path.read_text(encoding="utf-8"))
        page, disposition = entry["page"], entry["disposition"]
        assert page["sources"] and all(source["title"] for source in page["sources"]), path.name
        assert disposition["canonical_id"] == page["id"] and disposition["status"], path.name
        if disposition["status"] != "unassessed":  # MedBench, the imported seed entry, is not assessed yet
            assert disposition["reasons"], path.name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("MedQA", "medqa"),
        ("MedQA-USMLE", "medqa"),  # an alias, with case, spacing and punctuation ignored
        ("medqa usmle", "medqa"),
        ("KorMedMCQA", "kormedmcqa"),
        ("KMLE", "kmle"),
        ("Korean Medical Licensing Examination", "kmle"),
        ("한국 의사국가시험", "kmle"),
        ("ClinicalQA", "clinicalqa"),
        ("snuh/ClinicalQA", "clinicalqa"),
        ("VitalDB IOH", "vitaldb-ioh"),
        ("eICU-CRD", "eicu-crd"),
        ("HiRID", "hirid-icu-benchmark"),
        ("MMLU clinical knowledge", "mmlu-medical"),
        ("vitaldb-ioh-other-definitions", "vitaldb-ioh-other-definitions"),  # an id
        ("MedBench", "medbench"),
        ("Ophthobench", None),
        ("", None),
        ("---", None),
        ("Medical", None),  # a word many entries share is no entry's name
    ],
)
async def test_a_benchmark_a_paper_names_is_found_by_its_name_or_an_alias(
    store: Store, name: str, expected: str | None
) -> None:
    await sync_catalog(store)
    assert catalog_entry_for(store, name) == expected


async def test_an_id_or_name_wins_over_an_alias_and_a_name_two_entries_claim_links_to_neither(
    store: Store, tmp_path: Path
) -> None:
    await sync_catalog(store)
    for index, entry in enumerate(
        [
            entry_with("medqa-tw", "MedQA Taiwan", aliases=["MedQA", "Taiwan medical exam"]),
            entry_with("exam-a", "Exam A", aliases=["Board exam"]),
            entry_with("exam-b", "Exam B", aliases=["Board exam"]),
        ]
    ):
        await import_catalog(store, write_entry(tmp_path / f"e{index}.json", entry))
    assert catalog_entry_for(store, "MedQA") == "medqa"  # its own id beats another entry's alias
    assert catalog_entry_for(store, "taiwan medical exam") == "medqa-tw"
    assert catalog_entry_for(store, "Board exam") is None  # two entries claim it: better unlinked than wrong
    assert catalog_entry_for(store, "exam b") == "exam-b"
