"""How prose states results, and numbers written beside them that are not results: ratios, chances of passing,
decades, numbered sessions, gaps and differences, class labels; a metric run into its value; a model named only by
what it is; percentages in brackets after several models; written here in forms the corpus does not hold."""

from __future__ import annotations

from tests.papers_support import found, read_text


def test_a_ratio_a_chance_of_passing_and_a_decade_are_not_results() -> None:
    text = (
        "Mixtral-8x7B scored 71.4% on the internal medicine in-training exam, a 93% chance of passing the boards. "
        "Its answers were 1.87 times more likely to be rated complete than those of Llama-2-70B, and a 3-fold "
        "improvement was seen on dosing items. Sensitivity for sepsis stayed in the low 90's."
    )
    assert found(read_text(text)) == {("Mixtral-8x7B", "accuracy", 0.714)}  # a percentage scored: an accuracy


def test_a_gap_or_a_difference_between_results_is_not_a_result() -> None:
    text = (
        "The CatBoost model reached an AUROC of 0.874 on the test set (train-test AUROC gap of 0.0215). "
        "SVM 모델의 정확도는 81.2%였고, 두 모델의 점수 차이는 0.004였다."
    )
    values = {value for _, _, value in found(read_text(text))}
    assert 0.874 in values and 0.812 in values
    assert not values & {0.0215, 0.004}


def test_numbered_exam_sessions_are_labels_and_their_percentages_are_the_results() -> None:
    text = "분석 결과, Gemini 모델이 가장 높은 정답률(1교시 82.5%, 2교시 90.0%, 3교시 74.5%)을 보였다."
    values = {value for model, _, value in found(read_text(text)) if model == "Gemini"}
    assert values == {0.825, 0.9, 0.745}


def test_a_metric_run_into_its_value_is_read_as_that_metric_and_not_as_a_model() -> None:
    text = (
        "The LightGBM model performed best (AUC0.812, Mean Precision 0.644, Brier Score0.131), while logistic "
        "regression reached Sensitivity71.5%."
    )
    record = read_text(text)
    assert {("LightGBM", "auc", 0.812), ("LightGBM", "brier", 0.131)} <= found(record)
    assert not any("0." in m.name or "71" in m.name for m in record.models)


def test_a_model_the_text_names_only_by_what_it_is_keeps_that_description_and_vague_words_name_none() -> None:
    described = (
        "We compared GPT-4 with machine learning on triage notes. The multimodal triage model achieved an "
        "AUC of 0.871 and 80.4% accuracy."
    )
    assert found(read_text(described)) >= {
        ("multimodal triage model", "auc", 0.871),
        ("multimodal triage model", "accuracy", 0.804),
    }
    vague = "We compared GPT-4 with machine learning. The AUCs of the implemented model were 0.91 and 0.88."
    assert not any(model and "implemented" in model for model, _, _ in found(read_text(vague)))


def test_a_class_label_before_its_value_is_no_value_and_expected_calibration_error_is_a_metric() -> None:
    text = (
        "## Evaluation of ReadmitBERT\n\n- Recall with 0:: 0.7120\n- Recall with 1:: 0.5310\n\n"
        "At 12 hours, ReadmitBERT achieved AUROC 0.801 and stayed well calibrated (expected calibration error, "
        "ECE 0.027)."
    )
    claims = found(read_text(text))
    assert {("ReadmitBERT", "auroc", 0.801), ("ReadmitBERT", "ece", 0.027)} <= claims
    assert not {value for _, _, value in claims} & {0.0, 1.0}


def test_percentages_in_brackets_after_two_models_take_the_texts_one_metric() -> None:
    text = (
        "We compared six chatbots on 140 orthodontics questions by accuracy. Claude 3.5 Sonnet achieved the highest "
        "accuracy (88.1%). In image questions, Gemini 1.5 Pro (79.3%) surpassed GPT-4o (64.0%; p = 0.02). "
        "Overall, Llama 3.1 answered only 58% of the questions correctly."
    )
    assert found(read_text(text)) >= {
        ("Claude 3.5 Sonnet", "accuracy", 0.881),
        ("Gemini 1.5 Pro", "accuracy", 0.793),
        ("GPT-4o", "accuracy", 0.64),
        ("Llama 3.1", "accuracy", 0.58),
    }


def test_people_who_performed_and_bounds_inside_an_interval_bracket_are_no_models_results() -> None:
    text = (
        "We compared CLMBR-T with eight LLMs on 120 vignettes. CLMBR-T reached an AUROC of 0.79 (95% CI: "
        "[0.7712 0.8088]). Attending physicians performed lowest (AUROC 0.66, 95% CI: 0.60-0.71; AUPRC 0.58)."
    )
    claims = found(read_text(text))
    assert ("CLMBR-T", "auroc", 0.79) in claims
    assert not {value for _, _, value in claims} & {0.7712, 0.8088, 0.66, 0.58}


def test_the_model_after_a_sentence_of_one_models_results_is_that_model() -> None:
    text = (
        "Five classifiers were compared, with features chosen by LASSO regression. Of these, ExtraTrees performed "
        "best, with an AUROC of 0.902 on the test set. On the second hospital the model's AUROC fell to 0.781."
    )
    claims = {claim for claim in found(read_text(text)) if claim[2] is not None}
    assert claims == {("ExtraTrees", "auroc", 0.902), ("ExtraTrees", "auroc", 0.781)}


def test_score_after_a_bedside_scores_acronym_names_the_tool_not_the_metric() -> None:
    text = (
        "For 48-hour deterioration, the AUROC of the random forest (0.84) was higher than that of the MEWS score "
        "(0.69)."
    )
    claims = {claim for claim in found(read_text(text)) if claim[2] is not None}
    assert ("MEWS", "auroc", 0.69) in claims and not any(claim[1] == "score" for claim in claims)


def test_a_score_written_as_a_percentage_is_an_accuracy_unless_a_rubric_grades_it() -> None:
    exam = "On the 2023 cardiology board questions, Llama-3-70B scored 71.4% and Mixtral-8x7B scored 63.0%."
    assert {claim for claim in found(read_text(exam)) if claim[2] is not None} == {
        ("Llama-3-70B", "accuracy", 0.714),
        ("Mixtral-8x7B", "accuracy", 0.63),
    }
    rubric = "On HealthBench, o4-mini scored 48% against the rubric."
    assert {claim[1] for claim in found(read_text(rubric)) if claim[2] is not None} == {"score"}


def test_a_model_based_on_a_method_is_that_methods_and_two_areas_named_once_are_two_metrics() -> None:
    text = (
        "We trained a risk model based on random forest on 4,120 stays. The areas under the receiver operating "
        "characteristic curve and the precision-recall curve were 0.843 (95% CI 0.811-0.872) and 0.412 (95% CI "
        "0.365-0.459), respectively."
    )
    assert {claim for claim in found(read_text(text)) if claim[2] is not None} == {
        ("random forest", "auroc", 0.843),
        ("random forest", "auprc", 0.412),
    }


def test_the_base_and_the_fine_tuned_model_of_a_text_that_fine_tunes_a_named_model() -> None:
    text = (
        "We used LoRA to fine-tune Mistral-7B-Instruct-v0.3 on 9,412 Spanish MIR questions. On the held-out 2024 "
        "exam, the fine-tuned model reached 64.1% accuracy, while the base model reached 57.3%."
    )
    claims = {claim for claim in found(read_text(text)) if claim[2] is not None}
    assert claims == {
        ("fine-tuned Mistral-7B-Instruct-v0.3", "accuracy", 0.641),
        ("Mistral-7B-Instruct-v0.3", "accuracy", 0.573),
    }


def test_the_values_of_models_beaten_in_the_next_sentence_are_in_the_metric_just_named() -> None:
    text = (
        "CatBoost performed best of the five learners, with an AUROC of 0.861. It outperformed SAPS-III 0.702 and "
        "APACHE-IV 0.734."
    )
    assert {claim for claim in found(read_text(text)) if claim[2] is not None} == {
        ("CatBoost", "auroc", 0.861),
        ("SAPS-III", "auroc", 0.702),
        ("APACHE-IV", "auroc", 0.734),
    }


def test_a_value_with_its_interval_before_for_and_a_model_is_that_models() -> None:
    text = (
        "Across the 250 questions, accuracy was 71.4% (95% CI 65.0%-77.8%) for Claude-3 Haiku and 88.1% (95% CI "
        "83.5%-92.7%) for GPT-4o."
    )
    read = {claim for claim in found(read_text(text)) if claim[1] == "accuracy"}
    assert read == {("Claude-3 Haiku", "accuracy", 0.714), ("GPT-4o", "accuracy", 0.881)}


def test_a_value_followed_by_a_bracket_holding_only_a_models_name_is_that_models() -> None:
    text = (
        "Four models were compared. The AUROC for predicting neutropenia was 0.812(Random Forest), 0.774(XGBoost) "
        "and 0.701(LASSO Regression), respectively."
    )
    assert found(read_text(text)) == {
        ("Random Forest", "auroc", 0.812),
        ("XGBoost", "auroc", 0.774),
        ("LASSO Regression", "auroc", 0.701),
    }
