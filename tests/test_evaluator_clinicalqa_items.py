"""ClinicalQA loader: every accepted format and layout gives the same items; bad items are named."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest

from evaluator.clinicalqa.items import (
    DataError,
    Item,
    answer_letter,
    find_data_files,
    load_items,
    parse_items,
    read_file,
    read_records,
    select_records,
)

FIXTURES = Path(__file__).parent / "data" / "clinicalqa"
UPSTREAM = Path(__file__).parent.parent / "data" / "clinicalqa-upstream"
ID_FIELDS = ("question_id", "uid", "id")


def content(items: list[Item]) -> list[tuple[str, str, str, tuple[str, ...], str]]:
    return sorted((i.instance_id, i.question, i.exam, i.options, i.answer) for i in items)


def load_file(path: Path) -> list[Item]:
    return load_items([path], {}, ID_FIELDS)


EXPECTED = content(load_file(FIXTURES / "hf_nested.jsonl"))


def test_hf_jsonl_fixture_loads_three_items_with_ids_letters_and_stripped_texts() -> None:
    items = {item.instance_id: item for item in load_file(FIXTURES / "hf_nested.jsonl")}
    assert sorted(items) == ["101", "102", "103"]
    assert [items[i].answer for i in ("101", "102", "103")] == ["A", "B", "E"]
    assert items["101"].options[0] == "심전도 반복 검사와 심근효소 측정"
    assert items["101"].exam.startswith("활력징후") and "\n심전도" in items["101"].exam
    assert items["102"].exam == "" and items["103"].exam == ""
    assert items["101"].source == "hf_nested.jsonl:1"


@pytest.mark.parametrize(
    "name",
    ["columns.json", "wrapped.json", "lines_named.json", "hf_train/data/train-00000-of-00001.parquet"],
)
def test_every_accepted_format_loads_to_the_same_items(name: str) -> None:
    assert content(load_file(FIXTURES / name)) == EXPECTED


def test_gzipped_json_lines_load_like_plain_ones(tmp_path: Path) -> None:
    target = tmp_path / "test.jsonl.gz"
    target.write_bytes(gzip.compress((FIXTURES / "hf_nested.jsonl").read_bytes()))
    assert content(load_file(target)) == EXPECTED


def test_hugging_face_directory_layout_finds_the_split_shard() -> None:
    files = find_data_files(FIXTURES / "hf_train", "train")
    assert [f.name for f in files] == ["train-00000-of-00001.parquet"]


def test_split_shards_are_read_together_in_sorted_order(tmp_path: Path) -> None:
    table = pq.read_table(FIXTURES / "hf_train" / "data" / "train-00000-of-00001.parquet")
    (tmp_path / "data").mkdir()
    pq.write_table(table.slice(1, 2), tmp_path / "data" / "test-00001-of-00002.parquet")
    pq.write_table(table.slice(0, 1), tmp_path / "data" / "test-00000-of-00002.parquet")
    shutil.copy(FIXTURES / "columns.json", tmp_path / "train.json")  # another split: ignored
    files = find_data_files(tmp_path, "test")
    assert [f.name for f in files] == ["test-00000-of-00002.parquet", "test-00001-of-00002.parquet"]
    assert content(load_items(files, {}, ID_FIELDS)) == EXPECTED


def test_a_file_named_for_the_split_wins_over_other_files(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "hf_nested.jsonl", tmp_path / "test.jsonl")
    shutil.copy(FIXTURES / "columns.json", tmp_path / "validation.json")
    assert find_data_files(tmp_path, "test") == [tmp_path / "test.jsonl"]


def test_a_single_data_file_with_any_name_is_used(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "columns.json", tmp_path / "clinicalqa_export.json")
    (tmp_path / "notes.txt").write_text("not data")
    assert find_data_files(tmp_path, "test") == [tmp_path / "clinicalqa_export.json"]


def test_several_unnamed_files_are_refused_with_the_candidates_listed(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "columns.json", tmp_path / "a.json")
    shutil.copy(FIXTURES / "hf_nested.jsonl", tmp_path / "b.jsonl")
    with pytest.raises(DataError, match=r"a\.json, b\.jsonl") as raised:
        find_data_files(tmp_path, "test")
    assert raised.value.problems[0].kind == "ambiguous_files"


def test_the_split_in_two_formats_is_refused(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "hf_nested.jsonl", tmp_path / "test.jsonl")
    shutil.copy(FIXTURES / "columns.json", tmp_path / "test.json")
    with pytest.raises(DataError, match="several formats"):
        find_data_files(tmp_path, "test")


def test_an_empty_directory_and_a_missing_path_say_there_is_no_data(tmp_path: Path) -> None:
    for path in (tmp_path, tmp_path / "absent"):
        with pytest.raises(DataError) as raised:
            find_data_files(path, "test")
        assert raised.value.problems[0].kind == "no_data"


def test_listed_files_are_taken_relative_to_the_directory(tmp_path: Path) -> None:
    assert find_data_files(tmp_path, None, ["x/y.jsonl"]) == [tmp_path / "x" / "y.jsonl"]


def test_invalid_items_are_each_named_with_file_line_and_id() -> None:
    items, problems = parse_items(read_records([FIXTURES / "invalid.jsonl"]), ID_FIELDS)
    messages = [p.message for p in problems]
    assert [i.instance_id for i in items] == ["201", "201"]
    assert "invalid.jsonl:2 (202): option E is empty" in messages
    assert "invalid.jsonl:3 (203): answer 'F' is not A-E or 1-5" in messages
    assert "invalid.jsonl:5 (204): question is NoneType, not text" in messages
    assert "invalid.jsonl:6 (205): option E is missing" in messages
    assert "duplicate id '201' in 2 records: invalid.jsonl:1, invalid.jsonl:4" in messages
    assert sorted({p.kind for p in problems}) == ["answer", "duplicate_ids", "options", "schema"]


def test_load_items_raises_one_error_listing_every_problem() -> None:
    with pytest.raises(DataError) as raised:
        load_items([FIXTURES / "invalid.jsonl"], {}, ID_FIELDS)
    assert len(raised.value.problems) == 5
    assert str(raised.value).startswith("5 problem(s) in the data:")
    assert "(202): option E is empty" in str(raised.value)


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


OPTIONS = {"A": "가", "B": "나", "C": "다", "D": "라", "E": "마"}


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"question": "q", "options": OPTIONS, "answer": "A"}, "no id: none of the fields"),
        ({"question_id": True, "question": "q", "options": OPTIONS, "answer": "A"}, "id field 'question_id'"),
        (
            {"id": 1, "question": "q", "options": {**OPTIONS, "F": "바"}, "answer": "A"},
            "unexpected option key",
        ),
        (
            {"id": 1, "question": "q", "options": {**OPTIONS, "option_a": "x"}, "answer": "A"},
            "option A given twice",
        ),
        ({"id": 1, "question": "q", "options": "{not json", "answer": "A"}, "options is text that is not"),
        ({"id": 1, "question": "q", "options": ["가"], "answer": "A"}, "options is list"),
        ({"id": 1, "question": "q", "options": {**OPTIONS, "C": 3}, "answer": "A"}, "option C is int"),
        ({"id": 1, "question": "  ", "options": OPTIONS, "answer": "A"}, "question is empty"),
        ({"id": 1, "question": "q", "exam": 5, "options": OPTIONS, "answer": "A"}, "exam is int"),
        ({"id": 1, "question": "q", "options": OPTIONS, "answer": 0}, "answer 0 is not A-E"),
        ({"id": 1, "question": "q", "options": OPTIONS}, "answer None is not A-E"),
    ],
)
def test_each_malformed_record_gets_a_clear_problem(tmp_path: Path, record: dict[str, object], expected: str) -> None:
    with pytest.raises(DataError, match=r"data\.jsonl:1") as raised:
        load_items([write_jsonl(tmp_path / "data.jsonl", [record])], {}, ID_FIELDS)
    assert expected in raised.value.problems[0].message


@pytest.mark.parametrize(
    ("value", "letter"),
    [("C", "C"), (" c ", "C"), ("option_C", "C"), (3, "C"), ("3", "C"), (1, "A"), ("5", "E")],
)
def test_answers_as_letters_option_keys_and_numbers_map_to_letters(value: object, letter: str) -> None:
    assert answer_letter(value) == letter


@pytest.mark.parametrize("value", ["F", "", "0", "6", 0, 6, True, 2.0, None, "CC"])
def test_answers_outside_a_to_e_and_one_to_five_are_rejected(value: object) -> None:
    assert answer_letter(value) is None


def test_id_falls_back_from_question_id_to_uid_to_id(tmp_path: Path) -> None:
    records: list[dict[str, object]] = [
        {"question_id": 7, "uid": "u-1", "id": "x", "question": "q", "options": OPTIONS, "answer": "A"},
        {"question_id": None, "uid": "u-2", "id": "y", "question": "q", "options": OPTIONS, "answer": "A"},
        {"id": "z", "question": "q", "options": OPTIONS, "answer": "A"},
    ]
    items = load_items([write_jsonl(tmp_path / "d.jsonl", records)], {}, ID_FIELDS)
    assert [i.instance_id for i in items] == ["7", "u-2", "z"]


def test_unreadable_files_are_refused_with_their_name(tmp_path: Path) -> None:
    bad_line = tmp_path / "bad.jsonl"
    bad_line.write_text('{"id": 1}\n{oops\n')
    with pytest.raises(DataError, match=r"bad\.jsonl:2: not JSON"):
        read_file(bad_line)
    scalar = tmp_path / "scalar.json"
    scalar.write_text("42")
    with pytest.raises(DataError, match="expected a list of records"):
        read_file(scalar)
    not_object = tmp_path / "list.jsonl"
    not_object.write_text("[1, 2]\n")
    with pytest.raises(DataError, match=r"list\.jsonl:1: a record must be a JSON object"):
        read_file(not_object)
    with pytest.raises(DataError, match="file not found"):
        read_file(tmp_path / "absent.parquet")


def test_parquet_with_options_as_columns_and_integer_answers_loads(tmp_path: Path) -> None:
    rows = [{"question_id": 9, "question": "q", "exam": None, **OPTIONS, "answer": 4}]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "test.parquet")
    (item,) = load_file(tmp_path / "test.parquet")
    assert (item.instance_id, item.options, item.answer, item.source) == (
        "9",
        tuple(OPTIONS.values()),
        "D",
        "test.parquet:row 1",
    )


def test_the_upstream_demo_file_loads_through_the_same_loader() -> None:
    records = read_records([UPSTREAM / "clinicalqa_upstream.jsonl.gz"])
    assert len(records) == 1324
    # The one invalid upstream record (an empty option E) is refused by name when not filtered out ...
    _, problems = parse_items(records, ["uid"])
    assert [p.message for p in problems if p.kind == "options"] == [
        "clinicalqa_upstream.jsonl.gz:980 (cqa-up-00980): option E is empty"
    ]
    # ... and the spec's filter keeps the 1,258 valid, unique items.
    items = load_items([UPSTREAM / "clinicalqa_upstream.jsonl.gz"], {"valid": True, "dup_of": None}, ["uid"])
    assert len(items) == 1258 and len({i.instance_id for i in items}) == 1258
    letters = [i.answer for i in items]
    counts = {letter: letters.count(letter) for letter in "ABCDE"}
    assert counts == {"A": 354, "B": 442, "C": 343, "D": 89, "E": 30}  # PROVENANCE.md's figures


def test_the_fifty_item_sample_loads_and_is_a_subset_of_the_full_file() -> None:
    sample = load_items([UPSTREAM / "clinicalqa_upstream_sample50.jsonl"], {}, ["uid"])
    full = load_items([UPSTREAM / "clinicalqa_upstream.jsonl.gz"], {"valid": True, "dup_of": None}, ["uid"])
    by_id = {item.instance_id: item for item in full}
    assert len(sample) == 50
    assert all(content([by_id[item.instance_id]]) == content([item]) for item in sample)


def test_a_filter_on_a_field_the_records_lack_is_refused() -> None:
    records = read_records([FIXTURES / "hf_nested.jsonl"])
    with pytest.raises(DataError, match=r"hf_nested\.jsonl:1: field 'valid' missing") as raised:
        select_records(records, {"valid": True})
    assert raised.value.problems[0].kind == "filter_field"


def test_corrupt_gzip_parquet_and_utf8_are_unreadable_not_crashes(tmp_path: Path) -> None:
    not_gzip = tmp_path / "test.jsonl.gz"
    not_gzip.write_text('{"id": 1}\n')
    not_parquet = tmp_path / "test.parquet"
    not_parquet.write_bytes(b"PAR1 but not really")
    latin1 = tmp_path / "test.jsonl"
    latin1.write_bytes('{"question": "caf\xe9"}\n'.encode("latin-1"))
    for path, message in (
        (not_gzip, "cannot be read"),
        (not_parquet, "not a readable parquet"),
        (latin1, "cannot be read"),
    ):
        with pytest.raises(DataError, match=message) as raised:
            read_file(path)
        assert raised.value.problems[0].kind == "unreadable"
