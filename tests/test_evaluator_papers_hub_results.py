"""Results as the hub and the harness write them, copied the ways pages get copied, in forms the corpus does not hold:
a results JSON shown in a file view with a bar on each line, a results JSON cut inside a task, and a card's
`model-index` metadata in its front matter, in a code view without indentation, naming two models, and cut."""

from __future__ import annotations

from tests.papers_support import found, read_text

BARRED_JSON = """Llama-3-Med-Test / results_2025-01-02.json
|
{ |
|
  "results": { |
|
    "medmcqa": { |
|
      "acc,none": 0.5512, |
|
      "acc_stderr,none": 0.0077, |
|
      "alias": "medmcqa" |
|
    }, |
|
    "pubmedqa": { |
|
      "acc,none": 0.764, |
|
      "alias": "pubmedqa" |
|
    } |
|
  }, |
|
  "config": { "model_args": "pretrained=example-lab/Llama-3-Med-Test" } |
|
} |
"""


def test_a_results_json_in_a_file_view_with_a_bar_on_each_line_is_read_and_its_errors_are_not() -> None:
    record = read_text(BARRED_JSON)
    assert found(record) == {
        ("example-lab/Llama-3-Med-Test", "accuracy", 0.5512),
        ("example-lab/Llama-3-Med-Test", "accuracy", 0.764),
    }
    assert {c.dataset for c in record.claims} == {"medmcqa", "pubmedqa"}


CUT_JSON = """{
  "results": {
    "mmlu_anatomy": {
      "alias": "anatomy",
      "acc,none": 0.6814,
      "acc_stderr,none": 0.0402
    },
    "medqa_4options": {
      "acc,none": 0.5971,
      "acc_norm,none": 0.59
[... excerpt ends here in the stored copy ...]
"""


def test_a_results_json_cut_inside_a_task_gives_the_whole_tasks_before_the_cut_and_nothing_of_the_cut_one() -> None:
    record = read_text(CUT_JSON)
    assert {(c.dataset, c.metric, c.value) for c in record.claims} == {("mmlu_anatomy", "accuracy", 0.6814)}
    assert all(c.model is None for c in record.claims)


FRONT_MATTER_INDEX = """---
license: apache-2.0
model-index:
- name: KoMed-Instruct-8B
  results:
  - task:
      type: text-generation
      name: Text Generation
    dataset:
      name: KorMedMCQA (doctor)
      type: sean0042/KorMedMCQA
      split: test
      args:
        num_few_shot: 5
    metrics:
    - type: acc
      value: 61.7
      name: accuracy
    - type: f1
      value: 0.588
  - task:
      type: text-generation
    dataset:
      name: MedQA (USMLE)
      type: medqa
    metrics:
    - type: acc_norm
      value: 47.25
      name: normalized accuracy
    source:
      url: https://example.org/leaderboard
      name: A leaderboard
- name: KoMed-Instruct-8B-DPO
  results:
  - task:
      type: text-generation
    dataset:
      name: MedQA (USMLE)
      type: medqa
    metrics:
    - type: acc_norm
      value: 49.5
---

# KoMed-Instruct-8B

A Korean medical instruction model. It was trained on 12,000 questions.
"""


def test_a_cards_model_index_gives_each_models_results_on_each_dataset_with_shares_as_fractions() -> None:
    record = read_text(FRONT_MATTER_INDEX)
    assert found(record) == {
        ("KoMed-Instruct-8B", "accuracy", 0.617),
        ("KoMed-Instruct-8B", "f1", 0.588),
        ("KoMed-Instruct-8B", "acc_norm", 0.4725),
        ("KoMed-Instruct-8B-DPO", "acc_norm", 0.495),
    }
    first = next(c for c in record.claims if c.metric == "accuracy")
    assert (first.dataset, first.setting, first.task_variant) == ("KorMedMCQA (doctor)", "5-shot", "test")
    assert "KoMed-Instruct-8B" in {m.name for m in record.models}


CODE_VIEW_INDEX = """Medical-Chat-7B / README.md
model-index: |
|
- name: Medical-Chat-7B |
|
results: |
|
- task: |
|
type: text-generation |
|
dataset: |
|
name: HellaSwag (10-Shot) |
|
type: hellaswag |
|
args: |
|
num_few_shot: 10 |
|
metrics: |
|
- type: acc_norm |
|
value: 78.41 |
|
name: normalized accuracy |
|
source: |
|
url: >- |
|
https://huggingface.co/spaces/open-llm-leaderboard/open_llm_leaderboard |
|
name: Open LLM Leaderboard |
|
- task: |
|
type: text-generation |
|
dataset: |
|
name: TruthfulQA (0-shot) |
|
metrics: |
|
- type: mc2 |
|
value: 44.07 |
"""


def test_a_model_index_in_a_code_view_without_its_indentation_is_read_and_not_again_as_prose() -> None:
    record = read_text(CODE_VIEW_INDEX)
    assert found(record) == {("Medical-Chat-7B", "acc_norm", 0.7841), ("Medical-Chat-7B", "mc2", 0.4407)}
    assert {c.setting for c in record.claims} == {"10-shot", None}
    assert len(record.claims) == 2  # the shot count, the leaderboard's link and the values are not read again


def test_a_model_index_cut_inside_a_metric_keeps_what_is_whole_and_a_metric_without_a_value_is_no_claim() -> None:
    cut = FRONT_MATTER_INDEX[: FRONT_MATTER_INDEX.index("      value: 47.25")]
    record = read_text(cut)
    assert found(record) == {("KoMed-Instruct-8B", "accuracy", 0.617), ("KoMed-Instruct-8B", "f1", 0.588)}


SELF_REPORTED_PAGE = """Evaluation results
- ROUGE-1self-reported41.207
- ROUGE-Lself-reported30.114
- exact match on PubMedQA test set self-reported0.712
- lossself-reported1.873
- gen_lenself-reported96.5
Dataset used to train example-lab/bio-summariser-base
"""


def test_a_card_pages_self_reported_results_are_the_results_of_the_model_the_page_was_trained_for() -> None:
    record = read_text(SELF_REPORTED_PAGE)
    assert found(record) == {
        ("example-lab/bio-summariser-base", "rouge-1", 41.207),
        ("example-lab/bio-summariser-base", "rouge-l", 30.114),
        ("example-lab/bio-summariser-base", "exact match", 0.712),
    }
    assert {c.dataset for c in record.claims} == {None, "PubMedQA"}


BLOB_VIEW = """results
/
example-org
/Med-Llama-9B-v2
/results_2025-02-03 10:11:12.131415.json
{ | |
"results": { | |
"medmcqa": { | |
"acc,none": 0.5871, | |
"alias": "medmcqa" | |
} | |
} | |
} | |
"""

DIFF_VIEW = """Update demo/results_model_7.json
CHANGED
@@ -1,9 +1,9 @@
|
|
1 |
{
|
2 |
"results": {
|
3 |
-
"
|
4 |
},
|
|
1 |
{
|
2 |
"results": {
|
3 |
+
"pubmedqa": {
|
4 |
+
"acc,none": 0.772
|
5 |
}
|
6 |
}
|
7 |
}
"""


def test_a_results_file_in_a_blob_view_names_its_model_by_the_path_the_page_breaks_over_lines() -> None:
    assert found(read_text(BLOB_VIEW)) == {("example-org/Med-Llama-9B-v2", "accuracy", 0.5871)}


def test_a_results_file_in_a_diff_view_is_read_from_its_added_lines_and_not_its_line_numbers() -> None:
    record = read_text(DIFF_VIEW)
    assert {(c.dataset, c.metric, c.value) for c in record.claims if c.value is not None} == {
        ("pubmedqa", "accuracy", 0.772)
    }
