"""Layouts real pages come in, written here in forms the corpus does not hold, so that each rule is shown to be
about the layout and not about one file: a table without its outer pipes, a table whose line breaks were lost, a
ranked leaderboard with interval and price columns, a trainer's per-epoch log, plural metric names before a list
of values, and the model a card's model was fine-tuned from."""

from __future__ import annotations

import json

from evaluator.papers.segment import segment, unflattened, with_line_breaks
from tests.papers_support import found, read_text

LEADERBOARD = """## PubMedQA leaderboard

Rank | Model | Accuracy (%) | 95% CI | Input $/1M | Output $/1M | Params
:---|:---|---:|:---:|---:|---:|---:
1 | Qwen2.5-72B-Instruct | 78.4 | 76.1 - 80.6 | 0.9 | 0.9 | 72
2 | Mistral-Large-2407 | 74.0 | 71.6 - 76.3 | 2 | 6 | 123
3 | Phi-3-medium | 69.2 | 66.7 - 71.6 | 0.14 | 0.14 | 14
"""


def test_a_ranked_leaderboard_without_outer_pipes_gives_one_score_per_model_and_nothing_from_its_other_columns() -> (
    None
):
    assert found(read_text(LEADERBOARD)) == {
        ("Qwen2.5-72B-Instruct", "accuracy", 0.784),
        ("Mistral-Large-2407", "accuracy", 0.74),
        ("Phi-3-medium", "accuracy", 0.692),
    }


def test_yaml_front_matter_dashes_in_a_line_with_a_pipe_open_no_table() -> None:
    assert segment("name: x |\n--- |\nlicense: mit |\n").tables == []


def test_a_table_whose_line_breaks_were_lost_is_cut_back_into_its_rows() -> None:
    line = (
        "Results below. | Model | MedQA | MedMCQA | |---|---|---| | Meditron-7B | 52.0 | 59.2 | "
        "| BioMistral-7B | 50.6 | 48.1 | Done."
    )
    pieces = unflattened(line)
    assert pieces[2:7] == [
        "| Model | MedQA | MedMCQA |",
        "|---|---|---|",
        "| Meditron-7B | 52.0 | 59.2 |",
        "| BioMistral-7B | 50.6 | 48.1 |",
        "",
    ]
    assert pieces[0] == "Results below. " and "Done." in pieces[-1]
    assert unflattened("a | b | c") == ["a | b | c"]


CARD = (
    "# mimic-sepsis-bert This model is a fine-tuned version of [emilyalsentzer/Bio_ClinicalBERT]"
    "(https://huggingface.co/emilyalsentzer/Bio_ClinicalBERT) on an unknown dataset. It achieves the following "
    "results on the evaluation set: - Loss: 0.3121 - F1: 0.8412 ## Model description More information needed "
    "## Training procedure ### Training hyperparameters The following hyperparameters were used during training: "
    "- learning_rate: 2e-05 - train_batch_size: 16 - seed: 7 - num_epochs: 3 ### Training results | Training Loss "
    "| Epoch | Step | Validation Loss | F1 | |:---:|:---:|:---:|:---:|:---:| | 0.41 | 1.0 | 500 | 0.35 | 0.80 | "
    "| 0.30 | 2.0 | 1000 | 0.32 | 0.83 | | 0.22 | 3.0 | 1500 | 0.31 | 0.8412 | ### Framework versions - "
    "Transformers 4.40.0"
)


def test_a_trainer_card_copied_as_one_line_gives_its_evaluation_result_to_the_card_model_and_none_of_its_log() -> None:
    assert with_line_breaks(CARD).count("\n") >= 8
    record = read_text(CARD)
    assert found(record) == {("mimic-sepsis-bert", "f1", 0.8412)}
    assert "mimic-sepsis-bert" in {m.name for m in record.models}


def test_a_training_log_table_in_an_ordinary_card_gives_no_claims() -> None:
    text = (
        "# Training results\n\n| Epoch | Training Loss | Validation Loss | Accuracy |\n|---|---|---|---|\n"
        "| 1 | 0.9 | 0.8 | 0.61 |\n| 2 | 0.7 | 0.75 | 0.66 |\n"
    )
    assert read_text(text).claims == []


def test_plural_metric_names_before_a_list_of_values_with_labelled_intervals_give_each_value() -> None:
    sentence = (
        "For SepsisNet, AUROCs at 6, 12 and 24 h before onset were 0.91 (95% confidence interval, CI, 0.89 to "
        "0.93), 0.88 (95% CI, 0.86 to 0.90) and 0.84 (95% CI, 0.81 to 0.86), respectively."
    )
    record = read_text(sentence)
    assert found(record) == {("SepsisNet", "auroc", 0.91), ("SepsisNet", "auroc", 0.88), ("SepsisNet", "auroc", 0.84)}
    assert {c.value: c.ci for c in record.claims}[0.91] == [0.89, 0.93]


GROUPED = """Table 2. Discrimination of the models predicting delirium

Cohort | Model | Development | | Validation | |
---|---|---|---|---|---|
AUROC (95% CI) | Sens. | AUROC (95% CI) | Sens. | ||
Surgical | GRU-D | 0.861 (0.85-0.87) | 0.80 | 0.842 (0.83-0.85) | 0.77 |
Logistic regression | 0.802 (0.79-0.81) | 0.71 | 0.790 (0.78-0.80) | 0.70 | |
Medical | GRU-D | 0.833 (0.82-0.84) | 0.76 | 0.820 (0.81-0.83) | 0.75 |
"""


def test_a_two_row_header_over_a_model_column_after_a_grouping_column_gives_each_cell_its_model_and_metric() -> None:
    got = found(read_text(GROUPED))
    assert ("GRU-D", "auroc", 0.861) in got and ("GRU-D", "sensitivity", 0.77) in got
    assert ("Logistic regression", "auroc", 0.79) in got and ("GRU-D", "auroc", 0.82) in got
    assert all(model not in ("Surgical", "Medical") for model, _, _ in got)
    assert all(metric in ("auroc", "sensitivity") for _, metric, _ in got)


def test_a_results_csv_whose_line_breaks_were_lost_is_read_as_a_table() -> None:
    rows = " ".join(
        f'"{h}","{m}","{a}","{b}","{c}"'
        for h, m, a, b, c in [
            ("6h", "TCN", "88.1 (86.0, 90.2)", "41.0 (38.2, 44.1)", "80.2 (77.0, 83.1)"),
            ("6h", "NEWS2", "74.3 (71.9, 76.5)", "20.9 (18.0, 23.6)", "61.0 (57.4, 64.8)"),
            ("12h", "TCN", "85.0 (82.7, 87.2)", "35.5 (32.1, 38.8)", "77.9 (74.4, 81.0)"),
        ]
    )
    text = f"Horizon,Model,AUC,AUPR,Spec.@90%Sens. {rows}"
    got = found(read_text(text))
    assert {("TCN", "auc", 0.881), ("TCN", "auprc", 0.41), ("NEWS2", "specificity", 0.61)} <= got
    assert ("TCN", "auc", 0.85) in got and len(got) == 9


def test_a_benchmark_named_like_one_is_not_the_texts_model_and_its_rows_of_tasks_are_nobodys() -> None:
    text = (
        "# ClinAgentBench Results\n\nClinAgentBench, a benchmark for medical LLM agents, was run on eight models.\n\n"
        "| Task | Description | Avg Accuracy |\n|---|---|---|\n| Task 1 | Order labs | 71.0% |\n"
        "| Task 2 | Write notes | 44.5% |\n\n| Model | Accuracy | Invalid Actions |\n|---|---|---|\n"
        "| Qwen3-8B | 40.0% | 93 |\n"
    )
    record = read_text(text)
    assert "ClinAgentBench" not in {m.name for m in record.models}
    assert found(record) == {("Qwen3-8B", "accuracy", 0.4), ("Qwen3-8B", "invalid actions", 93)}


def test_a_table_whose_cells_break_over_several_lines_gives_one_row_per_model() -> None:
    text = (
        "| Model | Licence | MedQA (%) | PubMedQA (%) |\n|---|---|---|---|\n|\nMeditron-70B\nEPFL\n|\n"
        "Llama 2 | 70.2 | 81.6 |\n|\nBioMistral-7B\nAvignon\n|\nApache 2.0 | 50.6 | 77.5 |\n\nSources: the model cards."
    )
    got = found(read_text(text))
    assert {value for _, _, value in got} == {0.702, 0.816, 0.506, 0.775}
    assert {model for model, _, _ in got} == {"Meditron-70B EPFL", "BioMistral-7B Avignon"}


def test_a_table_of_references_a_captioned_model_was_judged_against_gives_that_models_rates() -> None:
    text = (
        "Pairwise judgements by Claude for **KoMed-Llama-3-8B** on KorMedMCQA-open:\n\n"
        "| Compared with | Win rate | Tie rate |\n|---|---|---|\n| GPT-4o | 41.5 | 12.0 |\n"
        "| Qwen2-7B | 66.0 | 9.5 |\n\n"
        "| Reference | Win rate |\n|---|---|\n| GPT-4o | 30.0 |\n\nA table of references with no model named: "
        "nobody's.\n\n## Other\n\n| Reference | Win rate |\n|---|---|\n| GPT-4o | 20.0 |\n"
    )
    got = found(read_text(text))
    assert got == {
        ("KoMed-Llama-3-8B", "win rate", 0.415),
        ("KoMed-Llama-3-8B", "tie rate", 0.12),
        ("KoMed-Llama-3-8B", "win rate", 0.66),
        ("KoMed-Llama-3-8B", "tie rate", 0.095),
        ("KoMed-Llama-3-8B", "win rate", 0.3),  # a table with no caption of its own keeps the one above
    }


def test_leaderboard_rows_whose_cells_ran_together_are_split_into_name_and_value() -> None:
    text = (
        "Results on PubMedQA\n\nModel\nAccuracy\nPaper\n"
        "BioGPT-Large (1.5B)81.0BioGPT: generative pre-trained transformer\n"
        "Flan-PaLM 279.0Large Language Models Encode Clinical Knowledge\n"
        "GPT-4 (5-shot)81.2Capabilities of GPT-4 on Medical Challenge Problems\n\nStep 2Done."
    )
    assert found(read_text(text)) == {
        ("BioGPT-Large (1.5B)", "accuracy", 0.81),
        ("Flan-PaLM 2", "accuracy", 0.79),
        ("GPT-4 (5-shot)", "accuracy", 0.812),
    }


def test_authors_degrees_and_citation_marks_are_not_models_but_a_tool_named_in_title_case_is() -> None:
    text = (
        "Lee1, Park2, Kim3, Choi MD, PhD\n\nThe National Early Warning Score predicts deterioration in surgery.4 "
        "The Body Mass Index was recorded."
    )
    names = {m.name for m in read_text(text).models}
    assert "National Early Warning Score" in names
    assert not names & {"Lee1", "Park2", "Kim3", "PhD", "surgery.4", "Body Mass Index"}


def test_a_harness_results_json_gives_each_tasks_metrics_and_none_of_its_errors_versions_or_settings() -> None:
    text = (
        "Results of our run:\n\n```json\n"
        '{"results": {"medmcqa": {"alias": "medmcqa", "acc,none": 0.5312, "acc_stderr,none": 0.0077,'
        ' "acc_norm,none": 0.5312}, "pubmedqa": {"acc,none": 0.758, "acc_stderr,none": 0.0191}},'
        ' "versions": {"medmcqa": 1.0, "pubmedqa": 1.0}, "n-shot": {"medmcqa": 0},'
        ' "config": {"model": "hf", "model_args": "pretrained=ProbeLab/medllama3-v20,dtype=bfloat16",'
        ' "batch_size": 8}}\n```\n'
    )
    # "acc_norm" equal to "acc" is the same result written twice: one claim
    assert found(read_text(text)) == {
        ("ProbeLab/medllama3-v20", "accuracy", 0.5312),
        ("ProbeLab/medllama3-v20", "accuracy", 0.758),
    }


def test_a_harness_results_json_cut_off_in_its_config_still_gives_its_results_and_the_model_its_config_names() -> None:
    text = (
        '{"results": {"headqa_en": {"acc,none": 0.4412, "acc_stderr,none": 0.0095, "acc_norm,none": 0.4791}},'
        ' "group_subtasks": {"headqa_en": []}, "config": {"model": "vllm", "model_args": '
        '"pretrained=SomeLab/clinical-qwen-7b,tensor_parallel_size=1", "batch_sizes": [\n[... excerpt ends here]'
    )
    assert found(read_text(text)) == {
        ("SomeLab/clinical-qwen-7b", "accuracy", 0.4412),
        ("SomeLab/clinical-qwen-7b", "acc_norm", 0.4791),
    }


def test_spans_written_with_a_tilde_sign_or_to_give_no_claims_but_a_change_from_one_value_to_another_does() -> None:
    quiet = (
        "연도별 정답률은 55.2%∼68.9%의 분포를 보였다. Across the three sittings GPT-4 scored around 58.5 to 66.25 "
        "points in accuracy. Its accuracy was between 60% and 70%."
    )
    assert {c.value for c in read_text(quiet).claims if c.value is not None} == set()
    change = "With retrieval, the AUROC of TabNet improved from 0.81 to 0.86."
    assert {v for _, _, v in found(read_text(change))} == {0.81, 0.86}


def test_a_table_of_one_models_stages_is_read_as_that_models_results_in_those_settings() -> None:
    text = (
        "# Clinical NLI with BioLinkBERT\n\n- **Model**: `michiyasunaga/BioLinkBERT-large`\n"
        "- **Dataset**: MedNLI\n\n| Model | Accuracy | Entailment Agreement |\n|---|---|---|\n"
        "| Zero-shot | 0.412 | 0.38 |\n| Fine-tuned | 0.846 | 0.79 |\n"
    )
    claims = read_text(text).claims
    got = {(c.model, c.metric, c.value, c.setting) for c in claims}
    assert got == {
        ("michiyasunaga/BioLinkBERT-large", "accuracy", 0.412, "zero-shot"),
        ("michiyasunaga/BioLinkBERT-large", "entailment agreement", 0.38, "zero-shot"),
        ("michiyasunaga/BioLinkBERT-large", "accuracy", 0.846, "Fine-tuned"),
        ("michiyasunaga/BioLinkBERT-large", "entailment agreement", 0.79, "Fine-tuned"),
    }


def test_percentages_written_on_benchmarks_are_their_scores_and_the_pair_after_a_beaten_model_is_subject_then_it() -> (
    None
):
    text = (
        "Meerkat 8B Instruct - a medical assistant\n"
        "It is built on the Llama 3 architecture.\n"
        "- Strong results: beats Llama 3.1 8B on PubMedQA (77.1% vs 71.0%) and MedMCQA (63.4% vs 58.2%).\n"
        "- Runs at roughly 15% of GPT-4o's cost, and DeepSeek V3 reaches 81.0% on MedQA.\n"
    )
    got = {(c.model, c.value, c.dataset) for c in read_text(text).claims}
    assert got == {
        ("Meerkat 8B Instruct", 0.771, "PubMedQA"),
        ("Llama 3.1 8B", 0.71, "PubMedQA"),
        ("Meerkat 8B Instruct", 0.634, "MedMCQA"),
        ("Llama 3.1 8B", 0.582, "MedMCQA"),
        ("DeepSeek V3", 0.81, "MedQA"),
    }


def test_a_table_rendered_with_spaces_is_read_when_its_header_names_one_model_per_value() -> None:
    text = (
        "Evaluation\n\nSubset Meditron-7B BioMistral-7B\nMedQA 4-option 52.0 50.6\nPubMedQA 74.4 77.5\n\n"
        "Hyperparameters\nlr 2 16\nwarmup 100 10\n"
    )
    got = found(read_text(text))
    assert {(m, v) for m, _, v in got} == {
        ("Meditron-7B", 0.52),
        ("BioMistral-7B", 0.506),
        ("Meditron-7B", 0.744),
        ("BioMistral-7B", 0.775),
    }


def test_a_metrics_scale_a_spaced_range_and_a_file_size_give_no_claims() -> None:
    text = (
        "AUROC 값이 1에 가까울수록 성능이 우수하다. An AUROC closer to 1 is better. Across the twelve models the "
        "accuracy range was 20% - 80%. model.safetensors 1.99 kB"
    )
    record = read_text(text)
    assert record.claims == [] and "kB" not in {m.name for m in record.models}


def test_a_json_document_is_read_as_the_prose_its_strings_hold() -> None:
    body = "## Results\n\nMeditron-70B reached an accuracy of 70.2% on MedQA.\n"
    text = json.dumps({"id": "x1", "page": {"name": "MedQA", "body": body, "updated": "2026-01-01"}})
    assert found(read_text(text)) == {("Meditron-70B", "accuracy", 0.702)}
    assert not {m.name for m in read_text(text).models} & {"nMeditron-70B", "nMeditron"}


def test_a_value_restated_in_brackets_a_spread_and_the_chance_level_are_not_further_results() -> None:
    text = (
        "## Discussion\n\nThe XGBoost model reached an AUROC of 0.874 (87.4%) on the held-out year. Its sensitivity: "
        "0.912 (91.2% of events caught). SD of the AUROC across folds = 0.0031. An AUROC of 0.5 means chance "
        "discrimination.\n"
    )
    assert found(read_text(text)) == {("XGBoost", "auroc", 0.874), ("XGBoost", "sensitivity", 0.912)}


def test_rows_from_the_literature_in_a_comparison_table_are_no_results_of_the_text() -> None:
    text = (
        "## Comparison\n\n| Reference | Model | AUROC |\n|---|---|---|\n| Ours | TabNet | 0.842 |\n"
        "| Smith et al., 2021 | XGBoost | 0.811 |\n| [14] | GRU-D | 0.829 |\n"
    )
    assert found(read_text(text)) == {("TabNet", "auroc", 0.842)}


def test_a_measure_named_in_title_case_heads_a_column_and_is_not_a_model() -> None:
    text = (
        "| Model | Answer Relevance Score | OE Keywords |\n|---|---|---|\n| Meerkat-7B | 71.5% | 40.2% |\n"
        "\n| Attribute | Value |\n|---|---|\n| Answer Consistency Score | 66.0% |\n"
    )
    record = read_text(text)
    assert found(record) == {("Meerkat-7B", "score", 0.715), ("Meerkat-7B", "oe keywords", 0.402)}
    assert "Answer Consistency Score" not in {m.name for m in record.models}
