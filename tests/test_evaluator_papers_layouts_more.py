"""More layouts real pages come in, written here in forms the corpus does not hold (continued from
test_evaluator_papers_layouts.py): harness tables without a model column, names in quotes, errors in units, learning
methods, models described by size, bracketed intervals in cells, per-fold tables, script output, percentile ranks,
tasks by model columns, per-class tables, spaced tables, clinical scores, HTML row headers, gap columns, chatbots and
interval levels."""

from __future__ import annotations

from tests.papers_support import found, read_text


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
    assert {("LR", "precision", 0.12), ("RF", "recall", 0.31)} <= got
    assert ("LR", None, 0.801) not in got  # a value no metric or benchmark names is no claim (rules.py)
    assert not {v for _, _, v in got} & {512.0, 0.067, 0.88}  # CCC: a measure the vocabulary does not hold
    assert (None, "r2", 0.41) in got  # R² is one it holds (a regression's explained variance)


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
