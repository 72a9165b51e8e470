"""The ClinicalQA task files and dataset record say what the code does, and the demo says it is a demo."""

from __future__ import annotations

from pathlib import Path

from evaluator.canonical import file_sha256
from evaluator.clinicalqa.rules import DataRules
from evaluator.clinicalqa.task import check_parser
from evaluator.specs import load_dataset_records, load_task_files

ROOT = Path(__file__).parent.parent
UPSTREAM = ROOT / "data" / "clinicalqa-upstream"
TASKS = {task_file.spec.task: task_file for task_file in load_task_files()}
DATASETS = {record.slug: record for record in load_dataset_records()}
DEMO = TASKS["clinicalqa-upstream-demo@0"]
CLINICALQA = TASKS["clinicalqa@0"]


def test_the_demo_task_is_published_as_a_demo_and_says_its_numbers_are_not_clinicalqa_scores() -> None:
    meta = DEMO.meta
    assert (meta.demo, meta.status, meta.preview) == (True, "published", True)
    assert meta.title.startswith("DEMO") and "not ClinicalQA" in meta.title
    assert "DEMO" in meta.summary and "SNUH-HARI's upstream draft questions" in meta.summary
    assert "not from the ClinicalQA test set" in meta.summary
    assert "not ClinicalQA scores" in meta.summary
    assert not CLINICALQA.meta.demo


def test_the_demo_pins_the_shipped_file_hash_and_its_test_split_size() -> None:
    rules = DataRules.from_spec(DEMO.spec)
    (listed,) = rules.files
    assert listed.sha256 == file_sha256(UPSTREAM / listed.path)
    assert rules.selected_items == 1258
    assert rules.expected_items == 862
    assert rules.hash_split is not None and dict(rules.hash_split.expected) == {"reference": 396, "test": 862}
    assert rules.where == {"valid": True, "dup_of": None}


def test_clinicalqa_pins_1045_items_of_the_hugging_face_train_split() -> None:
    rules = DataRules.from_spec(CLINICALQA.spec)
    assert (rules.expected_items, rules.split, rules.files, rules.hash_split) == (1045, "train", (), None)
    assert rules.id_fields == ("question_id", "uid", "id")


def test_both_tasks_share_prompt_parser_metrics_and_name_the_same_reference_split() -> None:
    demo, clinicalqa = DEMO.spec.as_dict(), CLINICALQA.spec.as_dict()
    for key in ("prompt", "parser", "metrics", "primary_metric", "bootstrap", "generation"):
        assert demo[key] == clinicalqa[key], key
    for spec in (demo, clinicalqa):
        assert (spec["reference"]["task"], spec["reference"]["split"]) == (
            "clinicalqa-upstream-demo@0",
            "reference",
        )
    check_parser(DEMO.spec)
    check_parser(CLINICALQA.spec)


def test_the_demo_dataset_record_credits_snuh_hari_and_is_marked_demo() -> None:
    record = DATASETS[DEMO.spec.dataset["slug"]]
    assert record.demo is True
    assert "SNUH-HARI" in record.citation and "YejiLim98/QAGen" in record.citation
    assert "No licence file" in record.license and "Apache-2.0" in record.license
    assert "not the ClinicalQA test set" in record.notes


def test_the_shipped_data_keeps_its_provenance_and_says_what_it_is() -> None:
    provenance = (UPSTREAM / "PROVENANCE.md").read_text(encoding="utf-8")
    assert "YejiLim98/QAGen" in provenance and "cfbf50d82e52cb9a6bede531ce23f72799e5abc3" in provenance
    assert "the GitHub repo has no LICENSE file" in provenance
    readme = (UPSTREAM / "README.md").read_text(encoding="utf-8")
    assert "not the released ClinicalQA test set" in readme
    assert "clinicalqa-upstream-demo@0" in readme
