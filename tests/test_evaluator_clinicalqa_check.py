"""The data check says exactly what differs; load_instances refuses mismatching data unless partial."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evaluator.clinicalqa import (
    DataMismatch,
    check_data,
    instance_set_hash,
    load_instances,
)
from evaluator.clinicalqa.rules import DataRules
from evaluator.specs import TaskSpec, load_task_files

FIXTURES = Path(__file__).parent / "data" / "clinicalqa"
UPSTREAM = Path(__file__).parent.parent / "data" / "clinicalqa-upstream"
SPECS = {task_file.spec.task: task_file.spec for task_file in load_task_files()}
CLINICALQA = SPECS["clinicalqa@0"]
DEMO = SPECS["clinicalqa-upstream-demo@0"]


def with_dataset(spec: TaskSpec, **changes: Any) -> TaskSpec:
    data = spec.as_dict()
    data["dataset"] = {**data["dataset"], **changes}
    return TaskSpec.model_validate(data)


def kinds(report: Any) -> list[str]:
    return [difference.kind for difference in report.differences]


def copy_upstream(tmp_path: Path) -> Path:
    shutil.copy(UPSTREAM / "clinicalqa_upstream.jsonl.gz", tmp_path / "clinicalqa_upstream.jsonl.gz")
    return tmp_path


def rewrite_upstream(directory: Path, change: Any) -> None:
    path = directory / "clinicalqa_upstream.jsonl.gz"
    records = [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode().splitlines()]
    lines = [json.dumps(r, ensure_ascii=False) for r in change(records)]
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))


def test_the_shipped_upstream_data_matches_the_demo_spec_exactly() -> None:
    report = check_data(UPSTREAM, DEMO)
    assert report.ok, report.describe()
    assert report.differences == ()
    assert report.n_items == 862 == DEMO.dataset["expected_items"]
    assert report.instance_set_sha256 == DEMO.dataset["instance_set_sha256"]
    assert [(f.path, f.sha256) for f in report.files] == [
        ("clinicalqa_upstream.jsonl.gz", "14829baf0817e56f9bd552034dbc473a849548b0fac43e340df71b7fb115bc4a")
    ]
    assert report.as_dict()["ok"] is True and "OK" in report.describe()


def test_the_data_file_itself_can_be_given_instead_of_its_directory() -> None:
    report = check_data(UPSTREAM / "clinicalqa_upstream.jsonl.gz", DEMO)
    assert report.ok, report.describe()


def test_a_changed_data_file_is_refused_naming_hash_counts_and_instance_set(tmp_path: Path) -> None:
    directory = copy_upstream(tmp_path)
    rewrite_upstream(directory, lambda records: records[10:])
    report = check_data(directory, DEMO)
    assert not report.ok
    assert "file_sha256" in kinds(report) and "selected_count" in kinds(report) and "record_count" in kinds(report)
    assert "instance_set" in kinds(report) and "split_count" in kinds(report)
    messages = " | ".join(d.message for d in report.differences)
    assert "clinicalqa_upstream.jsonl.gz: sha256 " in messages
    assert "the spec pins 14829baf" in messages
    assert "records: found 1,314, the spec expects 1,324 (10 fewer)" in messages
    assert "selected items: found 1,248, the spec expects 1,258 (10 fewer)" in messages
    assert "DIFFERS from the spec" in report.describe()


def test_a_duplicated_id_is_named_with_both_records(tmp_path: Path) -> None:
    directory = copy_upstream(tmp_path)

    def duplicate_first(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        records[1]["uid"] = records[0]["uid"]
        return records

    rewrite_upstream(directory, duplicate_first)
    report = check_data(directory, DEMO)
    duplicates = [d.message for d in report.differences if d.kind == "duplicate_ids"]
    assert duplicates == [
        "duplicate id 'cqa-up-00001' in 2 records: clinicalqa_upstream.jsonl.gz:1, clinicalqa_upstream.jsonl.gz:2"
    ]
    with pytest.raises(DataMismatch, match="duplicate id 'cqa-up-00001'"):
        load_instances(directory, DEMO, allow_partial=True)


def test_a_missing_listed_file_is_reported_and_nothing_else_is_guessed(tmp_path: Path) -> None:
    report = check_data(tmp_path, DEMO)
    assert kinds(report) == ["missing_file"]
    assert report.differences[0].message.startswith("clinicalqa_upstream.jsonl.gz: listed in the spec, not found")
    assert report.instance_set_sha256 is None and report.n_items == 0


def test_clinicalqa_refuses_a_set_of_the_wrong_size_saying_by_how_much() -> None:
    report = check_data(FIXTURES / "hf_train", CLINICALQA)
    assert kinds(report) == ["count"]
    assert report.differences[0].message == "items: found 3, the spec expects 1,045 (1,042 fewer)"
    with pytest.raises(DataMismatch, match="1,042 fewer"):
        load_instances(FIXTURES / "hf_train", CLINICALQA)


def test_a_matching_set_passes_and_loads_instances_in_id_order() -> None:
    spec = with_dataset(CLINICALQA, expected_items=3)
    loaded = load_instances(FIXTURES / "hf_train", spec)
    assert not loaded.partial and loaded.report.ok
    assert [i.instance_id for i in loaded.instances] == ["101", "102", "103"]
    assert [i.label for i in loaded.instances] == ["A", "B", "E"]
    assert all(i.unit_id == i.instance_id for i in loaded.instances)
    assert loaded.report.instance_set_sha256 == instance_set_hash(["103", "101", "102"])


def test_every_format_gives_the_same_instance_set_hash() -> None:
    spec = with_dataset(CLINICALQA, expected_items=3)
    hashes = {
        check_data(FIXTURES / name, spec).instance_set_sha256
        for name in ("hf_nested.jsonl", "columns.json", "wrapped.json", "lines_named.json", "hf_train")
    }
    assert len(hashes) == 1 and None not in hashes


def test_a_pinned_instance_set_hash_that_differs_is_reported() -> None:
    spec = with_dataset(CLINICALQA, expected_items=3, instance_set_sha256="0" * 64)
    report = check_data(FIXTURES / "hf_train", spec)
    assert kinds(report) == ["instance_set"]
    assert report.differences[0].message.endswith("the spec pins " + "0" * 64)


def test_known_expected_ids_name_the_missing_and_unexpected_ones() -> None:
    spec = with_dataset(CLINICALQA, expected_items=3)
    report = check_data(FIXTURES / "hf_train", spec, expected_ids=["101", "102", "104"])
    assert [(d.kind, d.message) for d in report.differences] == [
        ("missing_ids", "1 id(s) missing: '104'"),
        ("unexpected_ids", "1 unexpected id(s): '103'"),
    ]


def test_partial_runs_get_the_valid_items_and_are_marked_partial() -> None:
    loaded = load_instances(FIXTURES / "hf_train", CLINICALQA, allow_partial=True)
    assert loaded.partial and [i.instance_id for i in loaded.instances] == ["101", "102", "103"]


def test_invalid_items_are_skipped_only_in_a_partial_run(tmp_path: Path) -> None:
    lines = (FIXTURES / "invalid.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "train.jsonl").write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    spec = with_dataset(CLINICALQA, expected_items=3)
    with pytest.raises(DataMismatch, match=r"train\.jsonl:2 \(202\): option E is empty"):
        load_instances(tmp_path, spec)
    loaded = load_instances(tmp_path, spec, allow_partial=True)
    assert [i.instance_id for i in loaded.instances] == ["201"]
    assert sorted(kinds(loaded.report)) == ["answer", "count", "options"]


def test_unreadable_data_is_refused_even_for_a_partial_run(tmp_path: Path) -> None:
    (tmp_path / "train.jsonl").write_text("{broken\n")
    with pytest.raises(DataMismatch, match="not JSON"):
        load_instances(tmp_path, CLINICALQA, allow_partial=True)


def test_instance_set_hash_depends_on_the_ids_not_their_order() -> None:
    assert instance_set_hash(["b", "a", "c"]) == instance_set_hash(["c", "b", "a"])
    assert instance_set_hash(["a", "b"]) != instance_set_hash(["a", "b", "c"])
    # The definition: sha256 of the canonical JSON of the sorted list, '["a","b"]'.
    assert instance_set_hash(["b", "a"]) == hashlib.sha256(b'["a","b"]').hexdigest()


def test_the_demo_split_rule_in_the_spec_is_the_one_the_code_applies() -> None:
    rule = DataRules.from_spec(DEMO).hash_split
    assert rule is not None
    assert (rule.key, rule.modulus, rule.reference_below, rule.scored) == (
        "clinicalqa-upstream-demo@0:{instance_id}",
        10,
        3,
        "test",
    )
    for uid in ("cqa-up-00001", "cqa-up-00002", "cqa-up-01324"):
        bucket = int(hashlib.sha256(f"clinicalqa-upstream-demo@0:{uid}".encode()).hexdigest(), 16) % 10
        assert rule.split_of(uid) == ("reference" if bucket < 3 else "test")


def test_an_unknown_split_rule_in_a_spec_is_refused() -> None:
    data = DEMO.as_dict()
    data["instances"]["split"]["rule"] = "random"
    with pytest.raises(ValueError, match="unknown instance split rule 'random'"):
        DataRules.from_spec(TaskSpec.model_validate(data))
