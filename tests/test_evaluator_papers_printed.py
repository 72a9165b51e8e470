"""Results as scripts print them and as README tables repeat them, written here in forms the corpus does not hold:
"metric: value" blocks and printed dicts under a line announcing whose results they are, a README whose stray
code fence would turn the rest inside out, a `model = ...` line of code, and a table listing one model once per
run, beside its runtime and memory."""

from __future__ import annotations

from tests.papers_support import found, read_text

PRINTED = """# Sepsis onset, 6-hour horizon

Fold 3 of 5.

Results for XGBoost:
    AUROC = 0.842
    AUPRC = 0.391
    threshold = 0.5

holdout:
Confusion Matrix:
  TP: 88, FP: 40
LightGBM model validation results: {'auc': 0.861, 'f1': 0.52, 'n_samples': 1200, 'Hits@5': 0.44}
"""


def test_printed_metric_blocks_and_dicts_are_the_announced_models_results_and_counts_thresholds_are_not() -> None:
    record = read_text(PRINTED)
    assert found(record) == {
        ("XGBoost", "auroc", 0.842),
        ("XGBoost", "auprc", 0.391),
        ("LightGBM", "auc", 0.861),
        ("LightGBM", "f1", 0.52),
        ("LightGBM", "hits@5", 0.44),
    }
    assert {c.setting for c in record.claims if c.model == "LightGBM"} == {"holdout"}


def test_printed_metrics_that_no_line_says_whose_they_are_name_no_model() -> None:
    record = read_text("Final results:\n  accuracy: 0.91\n  f1: 0.88\n\nThe results of the best run:\n  auc: 0.77\n")
    assert all(c.model is None for c in record.claims)
    assert not any(m.name.lower() in ("final", "best") for m in record.models)


STRAY_FENCE = """# Prompting vs adapters on MedMCQA

- **Metrics:** accuracy
```

## Setup
```bash
pip install -r requirements.txt
```

```python
model = AutoModel.from_pretrained(base_path, trust_remote_code=True)
```

## Results

| Model | Prompt | Examples | Accuracy | Latency (ms) | Peak memory (GB) |
|---|---|---|---|---|---|
| Qwen2.5-7B-Instruct | plain | 200 | 0.612 | 310.5 | 15.2 |
| Qwen2.5-7B-Instruct | few-shot | 200 | 0.655 | 402.1 | 15.2 |
| Qwen2.5-7B-Instruct | plain | 50 | 0.612 | 298.0 | 15.2 |
"""


def test_a_stray_fence_does_not_hide_the_results_and_one_models_runs_are_each_a_result() -> None:
    record = read_text(STRAY_FENCE)
    claims = sorted((c.value, c.setting or "") for c in record.claims if c.model == "Qwen2.5-7B-Instruct")
    assert [value for value, _ in claims] == [0.612, 0.612, 0.655]  # the same score in two runs is two results
    assert all("Prompt" in setting and "Latency" not in setting for _, setting in claims)
    assert {c.metric for c in record.claims} == {"accuracy"}  # no latency, memory or example count is a score
    assert not any("AutoModel" in m.name or "(" in m.name for m in record.models)  # a line of code names no model


def test_abstract_sentences_pair_lists_read_words_for_accuracy_and_leave_counts_exponents_and_thresholds() -> None:
    text = (
        "MethodsWe compared three classifiers. "
        "ResultsThe cohorts of LightGBM, elastic net, and KNN reached AUROCs of 0.861, 0.842 and 0.790 on held-out "
        "wards. Claude-Instant answered correctly 68.5% of the time, while Llama 3.1 70B 74.2% and Mistral 7B 55.0% "
        "were less accurate. The pass threshold was set at 60%. Answers were scored with 4 rubric dimensions. "
        "The tuned SOFA (AUROC 0.71 and Brier score 0.140) was worse than APACHE 3 (AUROC 0.77 and Brier score "
        "0.121), p <10−8 for both."
    )
    record = read_text(text)
    assert found(record) >= {
        ("LightGBM", "auroc", 0.861),
        ("elastic net", "auroc", 0.842),
        ("KNN", "auroc", 0.79),
        ("Claude-Instant", "accuracy", 0.685),
        ("APACHE 3", "brier", 0.121),
    }
    assert {c.value for c in record.claims} <= {0.861, 0.842, 0.79, 0.685, 0.742, 0.55, 0.71, 0.14, 0.77, 0.121}
    names = {m.name for m in record.models}
    assert "Llama 3.1 70B" in names and "Mistral 7B" in names  # a value after a name is no version of it
    assert not any(n.startswith(("Methods", "Results")) for n in names)  # nor is a section label part of one


HARNESS_RUNS = """# Ablations

accelerate launch run_eval.py ~/ckpt/phi-med/phi-med-3b-dpo
|  Tasks  |Version|Filter|n-shot|Metric|   |Value |   |Stderr|
|---------|------:|------|-----:|------|---|-----:|---|-----:|
|medqa_4o |      1|none  |     0|acc   |↑  |0.5012|±  |0.0140|

hf (pretrained=microsoft/phi-2,peft=acme/phi-med-lora,dtype=bfloat16), gen_kwargs: (None), limit: None
|  Tasks  |Version|Filter|n-shot|Metric|   |Value |   |Stderr|
|---------|------:|------|-----:|------|---|-----:|---|-----:|
|medqa_4o |      1|none  |     0|acc   |↑  |0.4477|±  |0.0139|
"""


def test_each_harness_table_is_the_model_its_run_names_and_an_unnamed_runs_table_names_nobody() -> None:
    record = read_text(HARNESS_RUNS)
    assert found(record) == {("phi-med-3b-dpo", "accuracy", 0.5012), ("acme/phi-med-lora", "accuracy", 0.4477)}
    lone = "### Evaluation\n\n" + "\n".join(HARNESS_RUNS.splitlines()[3:6]) + "\n"
    assert found(read_text(lone)) == {(None, "accuracy", 0.5012)}  # the page never says whose: no name is guessed


def test_bedside_scores_named_as_a_kind_keep_the_metric_and_labels_approximations_and_words_are_not_values() -> None:
    text = (
        "The network reached an AUROC of 0.88 (95% CI 0.86-0.90), against the risk scores NEWS2 (0.71 [0.69-0.73]) "
        "and MEWS (0.69 [0.66-0.71]); the 3C frailty score and the non-ICU-specific cohort gave nothing new. "
        "Discrimination stopped improving after epoch 14. Earlier reports put SIRS at ≈ 0.66. "
        "Splits (train/val) were fixed."
    )
    record = read_text(text)
    assert ("MEWS", "auroc", 0.69) in found(record)
    assert {c.metric for c in record.claims if c.value is not None} == {"auroc"}  # "risk scores" is no metric
    assert not {c.value for c in record.claims} & {0.14, 0.66, 0.03, 3.0}
    assert not {m.name for m in record.models} & {"train/val", "non-ICU-specific"}


def test_prompting_rows_are_the_subjects_settings_counts_are_no_scores_and_text_overlap_scores_are_metrics() -> None:
    card = """# Meditron-7B

Meditron-7B answers MedMCQA questions directly or with a chain of thought.

| method | EM (%) | a_correct | b_correct | latency_ms_mean | tokens_out_mean |
|---|---|---|---|---|---|
| direct | 48.2 | 301 | 275 | 812.4 | 3.0 |
| cot | 52.9 | 322 | 290 | 4120.7 | 188.2 |

Answers scored a ROUGE-L of 0.412 and BLEU-4 of 0.187 for Meditron-7B against the explanations (features from
TF-IDF; counts per findings/outcomes).
"""
    record = read_text(card)
    assert found(record) == {
        ("Meditron-7B", "exact match", 0.482),
        ("Meditron-7B", "exact match", 0.529),
        ("Meditron-7B", "rouge-l", 0.412),
        ("Meditron-7B", "bleu-4", 0.187),
    }
    assert {m.name for m in record.models} == {"Meditron-7B"}


def test_benchmark_rows_make_model_columns_and_a_bracketed_count_may_stand_between_a_value_and_its_model() -> None:
    table = """| Benchmark | Kanana-8B | EXAONE-3.5-7.8B |
|---|---|---|
| HAERAE | 71.2 | 69.8 |
| KoBEST-Med | 64.0 | 66.5 |
"""
    assert found(read_text(table)) == {
        ("Kanana-8B", "score", 0.712),  # a benchmark's result with no measure named: its score
        ("EXAONE-3.5-7.8B", "score", 0.698),
        ("Kanana-8B", "score", 0.64),
        ("EXAONE-3.5-7.8B", "score", 0.665),
    }
    sentence = "Accuracy was 72.0% (144/200) for Gemma 3 27B and 80.5% (161/200) for Qwen3-32B."
    assert found(read_text(sentence)) == {("Gemma 3 27B", "accuracy", 0.72), ("Qwen3-32B", "accuracy", 0.805)}


def test_a_labelled_line_of_metrics_is_that_models_and_paths_and_near_values_of_cited_scores_are_not() -> None:
    text = """## Results (held-out cases)

- RF (external): AUROC ≈ 0.842, AUPRC = 0.51, Brier 0.09
- TCN: AUROC of 0.901; AUPRC of 0.733
- lr: 3e-5, warmup: 0.1
- Test: AUROC 0.5, AUPRC 0.5

Both beat older tools (NEWS ≈ 0.70, MEWS ≈ 0.66). Artifacts are in `outputs/metrics_seed7.json` and `data/splits`.
"""
    record = read_text(text)
    named = {claim for claim in found(record) if claim[0] is not None}  # "Test:" names a split, not a model
    assert named == {("RF", "auroc", 0.842), ("RF", "auprc", 0.51), ("TCN", "auroc", 0.901), ("TCN", "auprc", 0.733)}
    assert {c.setting for c in record.claims if c.model == "RF"} == {"external"}
    assert not any("/" in m.name for m in record.models)


def test_a_table_of_counts_and_a_statistical_test_give_no_results_and_a_site_in_an_apposition_is_no_subject() -> None:
    text = """# Self-consistency on MedQA

We run **`Meerkat-8B`** from [HuggingFace](https://huggingface.co/dmis-lab/meerkat-8b), a medical language model.

|  | Voted right | Voted wrong |
| --- | --- | --- |
| Greedy right | 512 | 88 |
| Greedy wrong | 131 | 269 |

A McNemar test gave 0.003 for the difference.
"""
    record = read_text(text)
    assert [c for c in record.claims if c.value is not None] == []
    assert {m.name for m in record.models} <= {"Meerkat-8B", "dmis-lab/meerkat-8b"}


def test_a_possessive_gives_the_value_to_its_owner_and_labels_differences_and_plural_acronyms_are_not_results() -> None:
    text = (
        "Across 12 ICUs, our model generalised. Med-Gemini reached 90.2% accuracy on the written section, well above "
        "Claude 3 Opus’s 70.5%, and it was 9 points below the pass/fail line on the oral one. Accuracy was stable "
        "across horizons 15, 30 and 60."
    )
    record = read_text(text)
    assert found(record) == {("Med-Gemini", "accuracy", 0.902), ("Claude 3 Opus", "accuracy", 0.705)}
    assert {m.name for m in record.models} == {"Med-Gemini", "Claude 3 Opus"}


def test_both_models_get_a_shared_value_an_unknown_subject_takes_its_own_and_square_bracket_acronyms_resolve() -> None:
    text = (
        "We trained Random Forest [RF] and Gradient Boosting [GBM] models. Claude 3.5 Sonnet and Gemini 1.5 Pro both "
        "reached 84%, whereas Le Chat had the lowest accuracy at 61%. The RF model showed an AUROC of 0.81."
    )
    record = read_text(text)
    assert found(record) == {
        ("Claude 3.5 Sonnet", "accuracy", 0.84),
        ("Gemini 1.5 Pro", "accuracy", 0.84),
        ("Random Forest (RF)", "auroc", 0.81),
    }


def test_a_correct_answer_rate_is_accuracy_and_the_value_bracketed_after_it_is_the_subjects_not_the_beaten_ones() -> (
    None
):
    text = "Qwen2.5-72B reached a higher correct answer rate (81.4%) than Llama 3.1 70B (75.0%) on the pharmacist exam."
    assert found(read_text(text)) == {("Qwen2.5-72B", "accuracy", 0.814), ("Llama 3.1 70B", "accuracy", 0.75)}


def test_a_contrasted_unknown_subject_capital_o_series_and_adjectival_compounds_and_platforms() -> None:
    text = (
        "DeepSeek R1은 40%, O3 Mini는 20%의 정확도를 기록했습니다. Phi-4 achieved 71.5% accuracy, while Command R + "
        "lagged with 48% accuracy. An L2-regularized baseline trained on PhysioNet data followed."
    )
    record = read_text(text)
    assert found(record) == {
        ("DeepSeek R1", "accuracy", 0.4),
        ("O3 Mini", "accuracy", 0.2),
        ("Phi-4", "accuracy", 0.715),
    }
    assert not {m.name for m in record.models} & {"L2-regularized", "PhysioNet"}


def test_a_merge_card_is_its_titles_model_not_its_ingredients_and_a_counted_share_cell_is_its_share() -> None:
    card = """Nurse_Mixtral_8x7b_v2
This model is a merge of the following models made with mergekit:
slices:
- sources:
- model: acme/NurseMistral-7B
- model: other/Chat-Mixtral-8x7B
merge_method: slerp

| Exam | Accuracy |
|---|---|
| NCLEX-RN 2024 | 211/265 (79.6%) |
"""
    record = read_text(card)
    assert found(record) == {("Nurse_Mixtral_8x7b_v2", "accuracy", 0.796)}
    assert [m.name for m in record.models if m.role == "subject"] == ["Nurse_Mixtral_8x7b_v2"]


def test_a_threshold_column_is_no_score_and_a_glossed_metric_in_a_list_is_one_metric() -> None:
    table = """| Model | Threshold | Sensitivity | AUC |
|---|---|---|---|
| CatBoost | 0.35 | 0.71 | 0.83 |
"""
    assert found(read_text(table)) == {("CatBoost", "sensitivity", 0.71), ("CatBoost", "auc", 0.83)}
    sentence = "CatBoost reached an AUROC, recall (sensitivity), specificity and NPV of 0.83, 0.71, 0.80 and 0.95."
    assert found(read_text(sentence)) == {
        ("CatBoost", "auroc", 0.83),
        ("CatBoost", "recall", 0.71),
        ("CatBoost", "specificity", 0.8),
        ("CatBoost", "npv", 0.95),
    }


def test_margins_settings_chance_and_shares_in_korean_and_english_are_not_results() -> None:
    text = (
        "GPT-4o reached an accuracy of 0.81, and its sensitivity and specificity improved by almost 9% and 12%. "
        "Its precision was 4% and 6% higher than the rule's. The class weight was set to 0.35. "
        "A random guessing baseline reached 25.0% accuracy. "
        "정확도는 1에 근접한 0.93이었다. 모델은 80%의 경우 확신했고, 기존 점수보다 약 30% 더 정확했다."
    )
    record = read_text(text)
    assert {c.value for c in record.claims if c.value is not None} == {0.81, 0.93}


def test_a_share_with_its_count_is_accuracy_metrics_after_a_list_pair_and_a_version_after_a_name_is_no_value() -> None:
    text = (
        "Llama-3-70B scored 81.2% (130/160) on the board questions. It reaches 77% and 71% in accuracy and F1 score, "
        "respectively, on the Evidence Inference 2.0 benchmark."
    )
    assert found(read_text(text)) == {
        ("Llama-3-70B", "accuracy", 0.812),
        ("Llama-3-70B", "accuracy", 0.77),
        ("Llama-3-70B", "f1", 0.71),
    }


def test_a_diff_views_gutter_between_table_rows_is_dropped_and_long_settings_keys_label_their_numbers() -> None:
    page = """12 |
| Model | MedQA | PubMedQA |
|
13 |
| --- | --- | --- |
|
14 |
| Asclepius-13B | 48.3 | 71.2 |
|
15 |
The card says it is accurate. max_new_tokens: 15 repetition_penalty: 1.18
"""
    # a known benchmark's result with no measure named is its accuracy
    assert found(read_text(page)) == {("Asclepius-13B", "accuracy", 0.483), ("Asclepius-13B", "accuracy", 0.712)}


def test_log_loss_is_a_metric_a_typeset_minus_is_kept_and_an_optimal_threshold_and_clinicians_are_no_models() -> None:
    text = (
        "The gradient-boosted model reached AUC 0.842 and log loss 0.251 on held-out patients, with a calibration "
        "intercept of −0.031. At the Youden-optimal threshold of 0.3, its precision was 0.44. "
        "임상의 12명의 평균 정확도는 31.0%였다."
    )
    record = read_text(text)
    assert {(c.metric, c.value) for c in record.claims if c.value is not None} >= {("log loss", 0.251), ("auc", 0.842)}
    assert ("calibration intercept", -0.031) in {(c.metric, c.value) for c in record.claims}
    assert 0.31 not in {c.value for c in record.claims}
    assert not any("optimal" in m.name for m in record.models)


def test_a_results_table_written_in_approximations_is_read_but_a_plans_approximate_targets_are_not() -> None:
    results = """| Model | AUROC | AUPRC |
|---|---:|---:|
| LightGBM | ~0.91 | ~0.48 |
| GRU-D | ~0.88 | ~0.41 |
"""
    assert found(read_text(results)) == {
        ("LightGBM", "auroc", 0.91),
        ("LightGBM", "auprc", 0.48),
        ("GRU-D", "auroc", 0.88),
        ("GRU-D", "auprc", 0.41),
    }
    plan = """| Model | Accuracy | Status |
|---|---|---|
| Qwen2.5-7B | ~70% | Target |
| Qwen2.5-14B | ~78% | Expected |
"""
    assert [c for c in read_text(plan).claims if c.value is not None] == []


def test_c_statistics_are_auroc_and_code_classes_activations_and_optimisers_are_no_models() -> None:
    text = (
        "We trained an LSTM with BCEWithLogitsLoss, ReLU activations and AdamW. The LSTM reached C-statistics of 0.81 "
        "at 2 h and 0.77 at 6 h."
    )
    record = read_text(text)
    assert {(c.model, c.metric, c.value) for c in record.claims} == {("LSTM", "auroc", 0.81), ("LSTM", "auroc", 0.77)}
    assert {m.name for m in record.models} == {"LSTM"}


def test_a_leaderboards_score_column_under_its_benchmark_is_a_percentage_and_prevalence_columns_are_no_scores() -> None:
    board = """### PubMedQA leaderboard

| Model | Score | Test prevalence |
|---|---|---|
| BioMistral-7B | 77.5 | 55.2 |
| Meditron-70B | 81.6 | 55.2 |
"""
    assert found(read_text(board)) == {("BioMistral-7B", "score", 0.775), ("Meditron-70B", "score", 0.816)}


REPORT = """| Model | AUROC | F1 |
|---|---|---|
| Full Model | 0.912 | 0.801 |
| No-Labs | 0.856 | 0.744 |

### Metrics

| Metric | Full Model | No-Labs | Δ |
|---|---|---|---|
| AUROC | 0.9118 | 0.8561 | -0.0557 |

#### No-Labs Model
```
Sensitivity: 0.812 (65/80)
Specificity: 0.744 (58/78)
```
"""


def test_a_metric_by_model_table_restating_values_with_more_digits_and_a_sections_printed_metrics() -> None:
    record = read_text(REPORT)
    assert found(record) == {
        ("Full Model", "auroc", 0.912),
        ("Full Model", "f1", 0.801),
        ("No-Labs", "auroc", 0.856),
        ("No-Labs", "f1", 0.744),
        ("No-Labs Model", "sensitivity", 0.812),
        ("No-Labs Model", "specificity", 0.744),
    }


def test_values_named_for_models_after_an_aggregate_units_in_lists_and_lab_measures() -> None:
    text = (
        "The accuracies of the three LLMs were 88.1% for Qwen3-235B, 84.0% for GPT-4.1 and 80.2% for Gemma 3 27B. "
        "The CKDNet model estimated eGFR with a MAE and RMSE of 4.1 mL and 6.3 mL, respectively, in mg/dL terms. "
        "The area under the operating characteristic curve of CKDNet was 0.83."
    )
    record = read_text(text)
    assert found(record) >= {
        ("Qwen3-235B", "accuracy", 0.881),
        ("GPT-4.1", "accuracy", 0.84),
        ("Gemma 3 27B", "accuracy", 0.802),
        ("CKDNet", "auroc", 0.83),
    }
    assert not {m.name for m in record.models} & {"eGFR", "mg/dL"}


def test_a_reproductions_own_average_column_is_read_and_the_papers_reported_column_beside_it_is_not() -> None:
    issue = """Running the KorMedMCQA task gives lower numbers than the paper:

|Model|Reported Avg.|Experiment Avg.|
|--|--|--|
|EXAONE-3.5-7.8B|61.20|55.85|
|Llama-3.1-8B|44.10|40.02|
"""
    assert found(read_text(issue)) == {
        ("EXAONE-3.5-7.8B", "experiment avg.", 0.5585),
        ("Llama-3.1-8B", "experiment avg.", 0.4002),
    }


def test_aucroc_written_without_a_hyphen_is_auroc_and_figure_numbers_and_sepsis_3_are_no_models() -> None:
    text = (
        "Under Sepsis-3 labels (Fig-2), the CatBoost model scored an AUCROC of 0.74 and a ROCAUC of 0.75 on days 2-3."
    )
    record = read_text(text)
    assert found(record) == {("CatBoost", "auroc", 0.74), ("CatBoost", "auroc", 0.75)}
    assert {m.name for m in record.models} == {"CatBoost"}


def test_two_models_that_scored_two_values_pair_and_a_share_of_deaths_restated_is_no_second_value() -> None:
    text = (
        "The smaller Mistral 7B and Phi-2 models scored 61% and 52% on the exam. Recall: 75.2% (catches 75% of deaths)."
    )
    record = read_text(text)
    assert {(c.model, c.value) for c in record.claims if c.value is not None} >= {("Mistral 7B", 0.61), ("Phi-2", 0.52)}
    assert 0.75 not in {c.value for c in record.claims}


def test_r_squared_and_pearson_correlation_are_metrics_even_with_a_superscript() -> None:
    table = """| Model | MAE | R² | Pearson Correlation |
|---|---|---|---|
| Ridge | 1.12 | 0.31 | 0.58 |
"""
    assert found(read_text(table)) == {
        ("Ridge", "mae", 1.12),
        ("Ridge", "r2", 0.31),
        ("Ridge", "pearson correlation", 0.58),
    }


def test_targets_bounds_counts_in_words_and_an_acronyms_version_are_not_results() -> None:
    text = (
        "All three models beat the target AUROC of 0.80! Next steps aim for 0.90+ AUROC. "
        "The Simplified Acute Physiology Score (SAPS)3 was the comparator. "
        "XGBoost had a precision of 18.4% (1 in 5 alerts) and an AUROC of 0.83. At 80% Recall the threshold was 0.2."
    )
    assert {c.value for c in read_text(text).claims if c.value is not None} == {0.184, 0.83}


def test_a_metric_written_in_title_case_is_no_model() -> None:
    text = "The GRU-D model had a Brier Score of 0.091 and a Concordance Index of 0.74 on the external cohort."
    record = read_text(text)
    assert found(record) == {("GRU-D", "brier", 0.091), ("GRU-D", "c-index", 0.74)}
    assert {m.name for m in record.models} == {"GRU-D"}


def test_a_per_category_table_under_a_section_naming_one_model_is_that_models() -> None:
    report = """## Category-wise performance

#### qwen-2-MedTuned - Category Performance

| Category | Accuracy | Correct/Total |
|----------|----------|---------------|
| Cardiology | 75.0% | 3/4 |

#### phi-3-medical - Category Performance

| Category | Accuracy | Correct/Total |
|----------|----------|---------------|
| Cardiology | 50.0% | 2/4 |
"""
    assert found(read_text(report)) == {("qwen-2-MedTuned", "accuracy", 0.75), ("phi-3-medical", "accuracy", 0.5)}


def test_a_comparison_of_two_models_percentages_takes_the_one_metric_its_text_measures_with() -> None:
    abstract = (
        "We measured the accuracy of Claude 3 Opus and Gemini 1.5 Pro on 400 board questions. Claude 3 Opus "
        "outperformed Gemini 1.5 Pro on both parts (71.5% vs. 64.0%, P = 0.01)."
    )
    assert found(read_text(abstract)) == {("Claude 3 Opus", "accuracy", 0.715), ("Gemini 1.5 Pro", "accuracy", 0.64)}
    two_metrics = abstract.replace("the accuracy of", "the accuracy and the AUROC of")
    assert found(read_text(two_metrics)) == set()  # which of the two the pair is, the text does not say


def test_two_models_with_both_and_a_share_of_correct_answers_are_each_read_as_accuracy() -> None:
    text = "Gemini 1.5 Pro and Claude 3 Haiku (both 68% correct answers) trailed the students; 212 correct answers."
    assert found(read_text(text)) == {("Gemini 1.5 Pro", "accuracy", 0.68), ("Claude 3 Haiku", "accuracy", 0.68)}


def test_long_printed_decimals_a_share_of_the_data_and_a_figure_not_reached_are_read_as_such() -> None:
    text = (
        "CatBoost scores 0.81371549032215 in 5-fold CV, validated on a 25% test set. "
        "With the authors' settings I did not reach 0.862 AUROC for CatBoost."
    )
    values = {round(c.value, 4) for c in read_text(text).claims if c.value is not None}
    assert values == {0.8137}


def test_a_risk_factors_points_are_no_results_and_degrees_and_company_forms_are_no_models() -> None:
    text = (
        "Jane Roe, FRCP2, MStat (Acme GmbH). The new rule weighs age ≥70 years (2 points) and smoking (1 point); "
        "the rule reached an AUROC of 0.79."
    )
    record = read_text(text)
    assert {c.value for c in record.claims if c.value is not None} == {0.79}
    assert not {m.name for m in record.models} & {"FRCP2", "MStat", "GmbH"}


def test_a_table_flattened_past_repair_gives_no_prose_claims_but_the_sentence_after_it_does() -> None:
    text = (
        "Table 2 | Grade | GPT-3.5 Correct (%) | GPT-4 Correct (%) | P | || Grade | 1 (n = 7) | 86 | 86 | 1 | "
        "|| 2 (n = 278) | 60 | 86 | <0.001 |\n\nOverall, GPT-4 correctly answered 76.5% of the questions."
    )
    assert {c.value for c in read_text(text).claims if c.value is not None} == {0.765}


def test_answering_a_share_of_the_questions_correctly_is_accuracy() -> None:
    text = "Llama 3.1 70B answered 71.4% of the board questions correctly, Mixtral 8x7B answered 63%."
    assert found(read_text(text)) == {("Llama 3.1 70B", "accuracy", 0.714), ("Mixtral 8x7B", "accuracy", 0.63)}


def test_a_column_header_of_a_task_then_its_model_in_brackets_gives_the_model() -> None:
    table = """Performance by observation window (AUROC):

| Window | Mortality (XGBoost) | Readmission (LightGBM) |
|---|---|---|
| 6h | 0.7953 | 0.6612 |
"""
    assert found(read_text(table)) == {("XGBoost", "auroc", 0.7953), ("LightGBM", "auroc", 0.6612)}
