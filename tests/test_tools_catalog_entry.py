"""The catalog entry format: the seed is accepted as it is, extra fields are kept at every level, wrong types and
oversized or ambiguous JSON are refused with a message naming the problem, and the naming-collision rule."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.catalog_factory import SEED_FILE, seed_entry
from tools.catalog_entry import (
    MAX_ENTRY_BYTES,
    MAX_TEXT_CHARS,
    CatalogEntry,
    entry_file_text,
    name_collision,
    parse_entry,
    parse_json,
)
from tools.errors import BadRequest


def refused(value: Any) -> str:
    with pytest.raises(BadRequest) as caught:
        parse_entry(value, "entry.json")
    return caught.value.message


def test_the_seed_entry_is_accepted_and_its_file_layout_is_reproduced_byte_for_byte() -> None:
    data = SEED_FILE.read_bytes()
    parsed = parse_entry(parse_json(data, "seed"), "seed")
    assert parsed.id == "medbench" and parsed.entry.page.name == "MedBench"
    assert entry_file_text(json.loads(parsed.canonical)).encode() == data


def test_the_canonical_form_keeps_every_field_including_unknown_ones() -> None:
    entry = seed_entry()
    entry["build"]["pipeline"] = {"nested": [1, 2.5, None, True]}
    parsed = parse_entry(entry, "x")
    assert json.loads(parsed.canonical) == entry
    assert json.loads(parsed.canonical)["build"]["pipeline"] == {"nested": [1, 2.5, None, True]}


@pytest.mark.parametrize(
    "path",
    [
        (),
        ("page",),
        ("page", "metric"),
        ("page", "dataset"),
        ("page", "lineage"),
        ("page", "harness"),
        ("page", "sources", 0),
        ("disposition",),
    ],
    ids=lambda path: ".".join(map(str, path)) or "top",
)
def test_an_unknown_field_is_kept_at_every_modelled_level(path: tuple[Any, ...]) -> None:
    entry = seed_entry()
    target = entry
    for part in path:
        target = target[part]
    target["x_added_by_someone_else"] = {"kept": ["as", "written"]}
    parsed = parse_entry(entry, "x")
    model: Any = parsed.entry
    for part in path:
        model = model[part] if isinstance(part, int) else getattr(model, part)
    assert model.extras()["x_added_by_someone_else"] == {"kept": ["as", "written"]}
    stored = json.loads(parsed.canonical)
    for part in path:
        stored = stored[part]
    assert stored["x_added_by_someone_else"] == {"kept": ["as", "written"]}


def test_the_model_dump_of_the_seed_loses_nothing() -> None:
    entry = seed_entry()
    assert CatalogEntry.model_validate(entry).model_dump(mode="json", exclude_unset=True) == entry


def test_an_entry_without_an_id_is_refused_naming_the_field() -> None:
    entry = seed_entry()
    del entry["page"]["id"]
    assert "page.id: Field required" in refused(entry)


def test_an_entry_without_a_page_is_refused() -> None:
    assert "page: Field required" in refused({"body": "no page"})


@pytest.mark.parametrize(
    ("field", "value", "where"),
    [
        (("page", "dataset", "size"), "700000", "page.dataset.size"),
        (("page", "dataset", "size"), 7.5, "page.dataset.size"),
        (("page", "tags"), "medical", "page.tags"),
        (("page", "tags"), ["ok", 3], "page.tags.1"),
        (("page", "dataset", "public_test_set"), "no", "page.dataset.public_test_set"),
        (("page", "saturation", "top_score"), "62.5", "page.saturation.top_score"),
        (("page", "name"), 5, "page.name"),
        (("page", "name"), "", "page.name"),
        (("page", "id"), "Has Spaces", "page.id"),
        (("page", "sources"), [{"url": 5}], "page.sources.0.url"),
        (("disposition", "status"), ["runs_here"], "disposition.status"),
        (("page", "metric"), "accuracy", "page.metric"),
    ],
    ids=lambda value: str(value)[:30],
)
def test_a_wrongly_typed_field_is_refused_naming_it_and_nothing_is_coerced(
    field: tuple[str, ...], value: Any, where: str
) -> None:
    entry = seed_entry()
    target = entry
    for part in field[:-1]:
        target = target[part]
    target[field[-1]] = value
    assert where in refused(entry)


def test_null_optional_fields_read_as_empty() -> None:
    entry = seed_entry()
    entry["page"]["tags"] = None
    entry["page"]["freshness"]["reviewed"] = None
    parsed = parse_entry(entry, "x")
    assert parsed.entry.page.tags == [] and parsed.entry.page.freshness.reviewed == ""
    assert json.loads(parsed.canonical)["page"]["tags"] is None  # stored as written


def test_a_five_megabyte_text_field_is_refused_with_the_field_and_the_limit() -> None:
    entry = seed_entry()
    entry["page"]["measures"] = "x" * (5 * 1024 * 1024)
    message = refused(entry)
    assert "page.measures" in message and f"{MAX_TEXT_CHARS:,}" in message


def test_a_long_text_in_an_unknown_field_is_refused_too() -> None:
    entry = seed_entry()
    entry["build"]["log"] = "y" * (MAX_TEXT_CHARS + 1)
    assert "build.log" in refused(entry)


def test_an_entry_over_the_size_limit_is_refused_even_when_each_field_is_small() -> None:
    entry = seed_entry()
    entry["page"]["aliases"] = ["z" * 50_000] * 25
    assert f"{MAX_ENTRY_BYTES:,}" in refused(entry)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"page": ', "invalid JSON"),
        (b"", "invalid JSON"),
        (b'{"page": {"id": "a", "id": "b", "name": "x"}}', "appears twice"),
        (b'{"page": {"id": "a", "name": "x", "size": NaN}}', "NaN is not a JSON number"),
        (b'{"page": {"id": "a", "name": "x", "size": Infinity}}', "not a JSON number"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
    ids=["truncated", "empty", "repeated-key", "nan", "infinity", "not-utf8", "deep"],
)
def test_invalid_json_is_refused_with_a_clear_message(data: bytes, expected: str) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_json(data, "bad.json")
    assert expected in caught.value.message and caught.value.message.startswith("bad.json: ")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1e400, "too large"), (2**64, "beyond 64 bits"), (-(2**63) - 1, "beyond 64 bits")],
    ids=["huge-float", "big-int", "small-int"],
)
def test_numbers_canonical_json_cannot_keep_exactly_are_refused(value: Any, expected: str) -> None:
    entry = seed_entry()
    entry["build"]["number"] = value
    assert expected in refused(entry)


def test_an_array_or_a_string_is_not_an_entry() -> None:
    assert "a JSON object, not list" in refused([seed_entry()])
    assert "a JSON object, not str" in refused("medbench")


def test_medbench_has_a_naming_collision_found_in_its_lineage_text() -> None:
    collision = name_collision(CatalogEntry.model_validate(seed_entry()))
    assert collision is not None
    assert collision.detected_from == "body: Lineage"
    assert collision.note.startswith('"MedBench" is not a unique name')
    assert "arXiv:2312.12806" in collision.note
    assert [source.url for source in collision.other_sources] == ["https://arxiv.org/abs/2312.12806"]


def test_an_entry_that_states_its_collision_uses_that_statement() -> None:
    entry = seed_entry()
    entry["page"]["name_collision"] = "Another benchmark, X (2021), is also called MedBench."
    collision = name_collision(CatalogEntry.model_validate(entry))
    assert collision is not None and collision.detected_from == "page.name_collision"
    assert collision.note == "Another benchmark, X (2021), is also called MedBench."


def test_an_entry_without_collision_wording_has_no_collision() -> None:
    entry = seed_entry()
    entry["body"] = "## Lineage\n\nThis name is used by one benchmark only.\n"
    entry["page"]["measures"] = "Chinese medical knowledge."
    entry["page"]["summary"] = "A Chinese benchmark."
    entry["page"]["sources"] = []
    assert name_collision(CatalogEntry.model_validate(entry)) is None


def test_the_collision_rule_also_reads_the_measures_field() -> None:
    entry = seed_entry()
    entry["body"] = ""
    collision = name_collision(CatalogEntry.model_validate(entry))
    assert collision is not None and collision.detected_from == "page.measures"
