"""Layouts real pages come in, written here in forms the corpus does not hold, so that each rule is shown to be
about the layout and not about one file: a table without its outer pipes, a table whose line breaks were lost, a
ranked leaderboard with interval and price columns, a trainer's per-epoch log, plural metric names before a list
of values, and the model a card's model was fine-tuned from."""

from __future__ import annotations

import asyncio
import json

from evaluator.papers import PaperRecord, RuleExtractor
from evaluator.papers.segment import segment, unflattened, with_line_breaks


def read_text(text: str) -> PaperRecord:
    return asyncio.run(RuleExtractor().extract(text, source="inline"))


def found(record: PaperRecord) -> set[tuple[str | None, str | None, float | None]]:
    return {(c.model, c.metric, c.value) for c in record.claims}


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


def test_a_harness_markdown_table_without_a_model_column_is_the_cards_model_one_row_one_result() -> None:
    text = (
        "---\nmodel-index:\n- name: qwen2-med-lora\n---\n# qwen2-med-lora\n\n### Evaluation\n\n"
        "|    Tasks    |Version|Filter|n-shot|Metric|Value |   |Stderr|\n"
        "|-------------|------:|------|-----:|------|-----:|---|-----:|\n"
        "|medqa_4options|Yaml   |none  |     0|acc   |0.5121|±  |0.0140|\n"
        "|pubmedqa     |      1|none  |     0|acc   |0.7400|±  |0.0196|\n"
    )
    assert found(read_text(text)) == {("qwen2-med-lora", "accuracy", 0.5121), ("qwen2-med-lora", "accuracy", 0.74)}


def test_a_name_in_quotes_after_called_is_the_subject_and_an_interval_written_with_equals_is_read() -> None:
    text = (
        "doi: 10.1000/xyz cord_uid: kq7zt2mb journal: JAMA Netw Open. We developed a deep learning model called "
        "'sEPSIS-Net' to predict septic shock of early onset Acute Kidney Injury (AKI) in adults. The best model "
        "showed an AUROC of 0.91 (95% CI = 0.89–0.93) on the internal set. External performance across three health "
        "systems showed an AUROC of 0.84 (0.82–0.86), with SpO2 and lactate as top features."
    )
    record = read_text(text)
    claims = {(c.model, c.metric, c.value, tuple(c.ci or ())) for c in record.claims}
    assert claims == {("sEPSIS-Net", "auroc", 0.91, (0.89, 0.93)), ("sEPSIS-Net", "auroc", 0.84, (0.82, 0.86))}
    assert not {m.name for m in record.models} & {"kq7zt2mb", "JAMA", "SpO2", "Acute Kidney Injury (AKI)"}


def test_an_error_is_read_in_the_unit_of_what_is_predicted_and_a_rates_denominator_is_not_a_value() -> None:
    text = (
        "We propose a recurrent model, which we refer to as Deep Stay Estimator (DSE), for length of stay. "
        "The LSTM baseline was weaker. With lab values added, we reach a mean absolute deviation of 1.9 days on "
        "eICU and 2.4 days on MIMIC-IV, and a mean absolute error of 0.7 beds per 20 patients."
    )
    assert found(read_text(text)) == {("DSE", "mad", 1.9), ("DSE", "mad", 2.4), ("DSE", "mae", 0.7)}


def test_a_results_object_without_its_results_key_is_read_with_the_model_its_config_names() -> None:
    text = (
        "results | config |\n---|---|\n"
        '{"pubmedqa": {"acc,none": 0.688, "acc_stderr,none": 0.02, "alias": "pubmedqa"}} | '
        '{"model_name": "OrgX/med-phi-2", "model_dtype": "bfloat16", "batch_sizes": [16], "limit": 0.5} |\n'
    )
    record = read_text(text)
    assert found(record) == {("OrgX/med-phi-2", "accuracy", 0.688)}
    assert {m.name: m.role for m in record.models} == {"OrgX/med-phi-2": "subject"}


def test_names_listed_as_the_tasks_a_model_was_run_on_are_not_models() -> None:
    text = (
        "# ClinBERT-X\n\nWe obtain 61.2%, 55.0% and 70.4% F1 score on NCBI-D, JNLPBA and BC2GM named entity "
        "recognition datasets, respectively."
    )
    record = read_text(text)
    assert not {m.name for m in record.models} & {"NCBI-D", "JNLPBA", "BC2GM"}
    assert {(c.model, c.value) for c in record.claims} == {
        ("ClinBERT-X", 0.612),
        ("ClinBERT-X", 0.55),
        ("ClinBERT-X", 0.704),
    }


def test_learning_methods_are_models_in_plural_and_hyphenated_forms_and_a_network_named_with_an_acronym() -> None:
    text = (
        "We compared Random Forests, light-gradient boosting machines, Naïve Bayes and k-nearest neighbours "
        "with a Deep Temporal Fusion (DTF) network for delirium prediction."
    )
    names = {m.name for m in read_text(text).models}
    assert {"Random Forests", "light-gradient boosting machines", "Naïve Bayes", "k-nearest neighbours"} <= names
    assert any("DTF" in name for name in names)


def test_a_model_described_by_its_size_is_the_named_model_of_that_size_and_never_a_guess() -> None:
    text = (
        'Acme released Curie 70B Vision and the smaller Curie 8B. The 8B variant reaches "71.0% MedQA," while the '
        'newly released 70B vision model scores 84.5% on MedQA. The 3B variant achieves "55.0% MedQA."'
    )
    got = {(c.model, c.value) for c in read_text(text).claims}
    assert ("Curie 8B", 0.71) in got and ("Curie 70B Vision", 0.845) in got
    assert {model for model, value in got if value == 0.55} <= {None}
    assert "The 8B" not in {m.name for m in read_text(text).models}


def test_names_listed_beside_recognised_models_are_models_and_unit_labels_and_counts_are_not_values() -> None:
    text = (
        "We compared 5 chatbots (GPT-4o, Claude 3 Opus, Hunyuan, Kimi, and Qwen2-72B) on the Japanese NMLE. "
        "GPT-4o surpassed Claude 3 Opus in every part, achieving mean accuracies of 81.5% (part 1) and 79.0% (part 2). "
        "Kimi passed 2 of 3 sittings and all 3 mock exams, with a mean accuracy of 64.1%."
    )
    record = read_text(text)
    assert {"Hunyuan", "Kimi"} <= {m.name for m in record.models}
    assert found(record) == {("GPT-4o", "accuracy", 0.815), ("GPT-4o", "accuracy", 0.79), ("Kimi", "accuracy", 0.641)}


def test_models_beaten_with_their_own_bracketed_values_keep_them_and_a_relative_clause_gives_the_beaten_ones() -> None:
    text = (
        "CatBoost had the best AUROC (0.83), outperforming the random forest (AUROC: 0.74), LightGBM (AUROC: 0.79), "
        "and gated recurrent units (AUROC: 0.77). Med-PaLM 2 reached 86.5% accuracy, outperforming Flan-PaLM and "
        "GPT-3.5, which both scored around 60% accuracy."
    )
    got = found(read_text(text))
    assert {("CatBoost", "auroc", 0.83), ("random forest", "auroc", 0.74), ("LightGBM", "auroc", 0.79)} <= got
    assert ("gated recurrent units", "auroc", 0.77) in got and ("Med-PaLM 2", "accuracy", 0.865) in got
    assert ("Med-PaLM 2", "accuracy", 0.6) not in got


def test_trainer_diagnostics_photo_credits_plural_acronyms_and_run_counts_give_no_models_or_claims() -> None:
    text = (
        "사진=Rawpixel/shutterstock\n\n- Rewards/accuracies: 0.6123\n- Rewards/margins: 0.0410\n\n"
        "Across 12 ICUs and 10 folds, the time-dependent AUC (tAUC) was analysed at 1, 6, 12, 18, 24, 36, and 48 hours."
    )
    record = read_text(text)
    assert [c for c in record.claims if c.value is not None] == []
    assert not {m.name for m in record.models} & {"Rawpixel/shutterstock", "Rewards/accuracies", "ICUs"}


def test_cells_with_bracketed_intervals_give_value_and_interval_and_a_prose_restatement_is_not_a_second_claim() -> None:
    text = (
        "| Model | Average Precision | AUROC | Time |\n| --- | --- | --- | --- |\n"
        "| TFT | 0.412 [0.401,0.423] | 0.811 [0.80,0.82] | 31.2 [30.1,32.3] |\n"
        "| Cox | 0.305 [0.297,0.313] | 0.744 [0.74,0.75] | -- |\n\n"
        "1st: TFT (AUROC: 0.811). TFT achieves the highest AUROC (0.811) of all models.\n"
    )
    claims = read_text(text).claims
    assert {(c.model, c.metric, c.value, tuple(c.ci or ())) for c in claims} == {
        ("TFT", "auprc", 0.412, (0.401, 0.423)),
        ("TFT", "auroc", 0.811, (0.8, 0.82)),
        ("Cox", "auprc", 0.305, (0.297, 0.313)),
        ("Cox", "auroc", 0.744, (0.74, 0.75)),
    }


def test_per_fold_tables_training_rows_and_ranks_before_hub_ids_give_no_claims() -> None:
    text = (
        "| Fold | AUROC |\n|---|---|\n| 1 | 0.701 |\n| 2 | 0.688 |\n\n"
        "Model | Outcome | Data | Metric | Value\n-- | -- | -- | -- | --\n"
        "XGBoost | AKI | Train | AUROC | 0.912345678\nXGBoost | AKI | Test | AUROC | 0.801234567\n\n"
        "Rank Subject Score\n1 meta-llama/Llama-3.1-8B-Instruct 0.52\n"
    )
    got = found(read_text(text))
    assert ("XGBoost", "auroc", 0.801234567) in got
    assert not {v for _, _, v in got} & {0.701, 0.688, 0.912345678, 1.0, 0.01}


def test_an_evaluation_scripts_output_in_fenced_code_gives_one_claim_per_task_line_of_the_model_it_names() -> None:
    text = (
        "## Results\n\n```\nRun finished in 12m 3s\nmodel_name: epfl-llm/meditron-7b\nnum_fewshot: 3\n\n"
        "[pubmedqa] acc: 0.7460; stderr: 0.0195\n[medmcqa] acc: 0.5214\n[Average] acc: 0.6337\n```\n\n"
        "```python\nprint('acc: 0.99')\n```\n"
    )
    assert found(read_text(text)) == {
        ("epfl-llm/meditron-7b", "accuracy", 0.746),
        ("epfl-llm/meditron-7b", "accuracy", 0.5214),
    }


def test_a_single_row_of_values_under_benchmark_names_is_the_cards_model_or_an_unnamed_one() -> None:
    row = "| MedQA | PubMedQA | MMLU-Med |\n|---|---|---|\n| 61.2 | 75.0 | 68.4 |\n"
    named = read_text("# Apollo-7B\n\nApollo-7B is a model fine-tuned on medical dialogues.\n\n" + row)
    assert {(m, v) for m, _, v in found(named)} == {("Apollo-7B", 0.612), ("Apollo-7B", 0.75), ("Apollo-7B", 0.684)}
    unnamed = read_text("This is a merge of pre-trained language models.\n\n" + row + "\nfrom 4 benchmark results\n")
    assert {(m, v) for m, _, v in found(unnamed)} == {(None, 0.612), (None, 0.75), (None, 0.684)}


def test_percentile_ranks_point_differences_and_korean_metric_words_and_names_are_read_as_such() -> None:
    text = (
        "GPT-4o ranked in the 91.5th and 97.0th percentiles. 딥시크 V3는 정답률 82.0%를 기록해 클로드보다 4%포인트 "
        "앞섰다. 이 모델의 재현율은 0.61, 정밀도는 0.27이었다. The scores were 150/176 (85.2%) for OpenAI o3."
    )
    got = {(c.model, c.metric, c.value) for c in read_text(text).claims if c.value is not None}
    assert {("딥시크 V3", "accuracy", 0.82), ("딥시크 V3", "recall", 0.61), ("딥시크 V3", "precision", 0.27)} <= got
    assert any(model and model.endswith("o3") and value == 0.852 for model, _, value in got)
    assert {v for _, _, v in got} & {0.915, 0.97, 0.04} == set()


def test_a_scripts_metric_lines_under_a_models_heading_are_that_models_results_per_labelled_run() -> None:
    text = (
        "# LightGBM\n\n```bash\n# 24h\npython train.py --window 24\nTrain size = 1200\n"
        "Accuracy: 0.8811, Precision: 0.5012, AUC-ROC: 0.8123\n\n# 12h\n"
        "Accuracy: 0.8702, Precision: 0.4700, AUC-ROC: 0.7950\nreal 1m2.5s\n```\n"
    )
    got = {(c.model, c.metric, c.value, c.setting) for c in read_text(text).claims}
    assert ("LightGBM", "auroc", 0.8123, "24h") in got and ("LightGBM", "precision", 0.47, "12h") in got
    assert len(got) == 6


def test_a_harness_table_whose_continuation_rows_lost_their_leading_cells_is_read_row_by_row() -> None:
    text = (
        'MedLlama-8B\n\nmodel = "acme/MedLlama-8B"\n\n'
        "Tasks | Version | Filter | n-shot | Metric | Value | Stderr | |\n---|---|---|---|---|---|---|---|\n"
        "- pubmedqa | 1 | none | 0 | acc | 0.7420 | ± | 0.0196 |\n"
        "- medqa_4options | Yaml | none | 0 | acc | 0.6011 | ± | 0.0137 |\n"
        "none | 0 | acc_norm | 0.6125 | ± | 0.0137 | ||\n"
    )
    got = {(c.model, c.metric, c.value, c.dataset) for c in read_text(text).claims}
    assert got == {
        ("acme/MedLlama-8B", "accuracy", 0.742, "pubmedqa"),
        ("acme/MedLlama-8B", "accuracy", 0.6011, "medqa_4options"),
        ("acme/MedLlama-8B", "acc_norm", 0.6125, "medqa_4options"),
    }


def test_a_table_of_tasks_by_model_columns_reads_each_column_as_a_model_and_an_unknown_measure_labels_its_value() -> (
    None
):
    text = (
        "| Task | LR | RF | n_pos |\n|---|---|---|---|\n| mortality_48h | 0.801 | 0.833 | 512 |\n\n"
        "| Outcome | n_pos | % pos | LR prec | RF rec |\n|---|---|---|---|---|\n"
        "| shock_6h | 466 | 6.7% | 0.12 | 0.31 |\n\n"
        "- MAP Prediction: MAE = 7.9 mmHg, R² = 0.41, CCC = 0.88\n"
    )
    got = {(c.model, c.metric, c.value) for c in read_text(text).claims if c.value is not None}
    assert {("LR", None, 0.801), ("RF", None, 0.833), ("LR", "precision", 0.12), ("RF", "recall", 0.31)} <= got
    assert not {v for _, _, v in got} & {512.0, 0.067, 0.41, 0.88}


def test_a_template_card_titles_its_model_and_its_per_class_table_is_that_models_not_its_base_models() -> None:
    text = (
        "Model Card for clinical-ner-roberta\nModel Summary\n- Finetuned from model: klue/roberta-base\n\n"
        "Overall Metrics\n- F1 Score: 0.9012\n- Precision: 0.8950\n\n"
        "Entity | Precision | Recall | Support |\n---|---|---|---|\nDisease | 0.8123 | 0.7991 | 512 |\n"
    )
    got = found(read_text(text))
    assert got == {
        ("clinical-ner-roberta", "f1", 0.9012),
        ("clinical-ner-roberta", "precision", 0.895),
        ("clinical-ner-roberta", "precision", 0.8123),
        ("clinical-ner-roberta", "recall", 0.7991),
    }


def test_a_random_forest_row_is_a_model_and_a_random_guess_row_is_not_under_an_algorithm_header() -> None:
    text = (
        "| Algorithm | Accuracy | AUC |\n| Cohort A | | |\n| Random Forest | 0.741 | 0.802 |\n| KNN | 0.690 | 0.711 |\n"
        "| Random guess | 0.500 | 0.500 |\n"
    )
    assert found(read_text(text)) == {
        ("Random Forest", "accuracy", 0.741),
        ("Random Forest", "auc", 0.802),
        ("KNN", "accuracy", 0.69),
        ("KNN", "auc", 0.711),
    }


def test_a_table_rendered_with_spaces_whose_cells_carry_intervals_is_read_under_its_caption() -> None:
    text = (
        "Table 2.\n\nArea under the ROC curve of models predicting delirium within 24 h.\n\nModels Cohort\n"
        "Internal P External P\nCAM-ICU score 0.612 (0.570–0.654) 0.598 (0.541–0.655)\n"
        "GBM 0.781 (0.750–0.812) < 0.001 0.214 0.766 (0.721–0.811) < 0.001\n"
        "TabNet 0.793 (0.763–0.823) < 0.001 0.388 0.770 (0.726–0.814) 0.002\n\n*Compared with the CAM-ICU score.\n"
    )
    got = {(c.model, c.metric, c.value, tuple(c.ci or ())) for c in read_text(text).claims if c.value is not None}
    assert {("GBM", "auroc", 0.781, (0.75, 0.812)), ("TabNet", "auroc", 0.77, (0.726, 0.814))} <= got
    assert not {v for _, _, v, _ in got} & {0.214, 0.388, 0.002, 0.001}


def test_values_with_spreads_listed_before_respectively_pair_with_the_models_in_order() -> None:
    text = (
        "The mean score using Gemini 1.5 Pro, GPT-4o and Claude 3 Opus was 71.2 ± 3.1, 80.4 ± 2.2 and 77.9 ± 2.8, "
        "respectively."
    )
    got = {(c.model, c.value) for c in read_text(text).claims}
    assert got == {("Gemini 1.5 Pro", 71.2), ("GPT-4o", 80.4), ("Claude 3 Opus", 77.9)}


def test_a_model_column_after_value_columns_keeps_them_and_marks_and_footnotes_do_not_hide_values_or_metrics() -> None:
    text = (
        "| F1 Rep⁴ | F1 range* | Model | Price³ | Correctness² |\n|---:|---:|---|:---|---:|\n"
        "| ^0.911 | 0.90-0.92 | Sonnet 4 | $0.003 | 0.85 |\n| 0.874 | 0.86-0.88 | Gemini 2.5 Flash | $0.0003 | 0.79 |\n"
    )
    got = found(read_text(text))
    assert got == {
        ("Sonnet 4", "f1", 0.911),
        ("Sonnet 4", "correctness", 0.85),
        ("Gemini 2.5 Flash", "f1", 0.874),
        ("Gemini 2.5 Flash", "correctness", 0.79),
    }


def test_feature_columns_arrows_and_ratios_give_no_claims_but_o_series_models_are_names() -> None:
    text = (
        "| BIS | x1 | x2 |\n|---|---|---|\n| 45.1 | 0.7052 | 1.7905 |\n| 47.0 | 0.6981 | 1.8002 |\n\n"
        "Validation AUPRC improved 4.2× (0.11 → 0.46) during training. o3 reached an accuracy of 91.0% on MedQA."
    )
    record = read_text(text)
    assert found(record) == {("o3", "accuracy", 0.91)}
    assert not {m.name for m in record.models} & {"x1", "x2"}


def test_clinical_scores_korean_method_names_and_a_title_case_model_name_are_models_but_described_models_are_not() -> (
    None
):
    text = (
        "The Epic Sepsis Model was compared with qSOFA and APACHE II. 랜덤 포레스트와 로지스틱 회귀 모델을 비교했다. "
        "The Proposed Model and the Deep Learning Model were trained on MIMIC-IV."
    )
    names = {m.name for m in read_text(text).models}
    assert {"Epic Sepsis Model", "qSOFA", "APACHE II", "랜덤 포레스트", "로지스틱 회귀 모델"} <= names
    assert not names & {"Proposed Model", "Deep Learning Model"}


def test_an_html_table_with_row_headers_and_line_breaks_in_cells_is_one_table() -> None:
    text = (
        "<table>\n  <tr>\n    <th>사용 모델</th>\n    <th>C-index</th>\n"
        "    <th>Integrated Brier Score</th>\n"
        '    <th>Settings</th>\n  </tr>\n  <tr>\n    <th scope="row">DeepSurv</th>\n'
        "    <td>0.7011</td><td>0.1802</td>\n"
        '    <td>Hidden: (64, 32),<br> lr : 1e-4</td>\n  </tr>\n  <tr>\n    <th scope="row">CoxPH</th>\n'
        "    <td>0.6650</td><td>0.1931</td><td>none</td>\n  </tr>\n</table>\n"
    )
    assert found(read_text(text)) == {
        ("DeepSurv", "c-index", 0.7011),
        ("DeepSurv", "brier", 0.1802),
        ("CoxPH", "c-index", 0.665),
        ("CoxPH", "brier", 0.1931),
    }


def test_a_gap_column_is_no_result_and_an_auc_restated_as_auroc_is_one_claim() -> None:
    text = (
        "| Model | Test AUROC | Val-Test Gap |\n|---|---|---|\n| CatBoost (Tuned) | 0.7412 | 0.0031 |\n\n"
        "## CatBoost (AUC: 0.7412)\n"
    )
    got = {(c.model, c.value) for c in read_text(text).claims}
    assert got == {("CatBoost (Tuned)", 0.7412)}


def test_chatbots_named_by_one_word_are_models() -> None:
    text = "We compared Perplexity, Kimi and Doubao with ChatGPT on 120 questions; Kimi reached an accuracy of 71.7%."
    record = read_text(text)
    assert {"Perplexity", "Kimi", "Doubao", "ChatGPT"} <= {m.name for m in record.models}
    assert found(record) == {("Kimi", "accuracy", 0.717)}


def test_interval_levels_institutions_formats_and_task_ids_give_no_claims_or_models() -> None:
    text = (
        "Scores whose 90% bounds overlap, or whose 95% range of ranks is wide, may not differ. Cite it with the BibTeX "
        "entry. The run of clinicalqa@0 at Asan Medical Center (AMC) model registry is pending."
    )
    record = read_text(text)
    assert [c for c in record.claims if c.value is not None] == []
    assert not {m.name for m in record.models} & {"BibTeX", "clinicalqa@0", "Asan Medical Center (AMC)"}
