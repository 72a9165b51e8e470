"""Forms from the first reads of blind dev batches 43 and 44, written here in sentences the corpus does not hold:
a Korean product named in Hangul words and an acronym, experts' results after the first, a target set in Korean,
an interval's level with its method, averaged AUCs, and expected values restated on another scale."""

from __future__ import annotations

from tests.papers_support import found, read_text


def test_a_product_named_in_hangul_and_an_acronym_twice_is_a_model_before_its_particle() -> None:
    text = (
        "뷰노 메드 CXR은 흉부 엑스레이 판독 보조 소프트웨어다. 연구 결과 뷰노 메드 CXR은 민감도 88%, 특이도 81%를 "
        "보였다."
    )
    assert found(read_text(text)) == {("뷰노 메드 CXR", "sensitivity", 0.88), ("뷰노 메드 CXR", "specificity", 0.81)}
    # a Hangul word before a modality or a unit names no product, however often it is written
    assert not read_text("흉부 CT 판독에서 흉부 CT의 정확도는 90%였다.").models


def test_the_values_after_peoples_first_value_are_theirs_too_until_a_model_is_named() -> None:
    text = "전문가 120명의 판독 결과 민감도는 평균 84%, 특이도는 71%였다. 반면 AI-Rad는 민감도 92%를 기록했다."
    assert found(read_text(text)) == {("AI-Rad", "sensitivity", 0.92)}


def test_a_target_set_in_korean_is_not_a_result() -> None:
    text = "보건당국은 민감도 95%와 특이도 80%를 목표 성능으로 정했고, DeepTB는 민감도 93%를 보였다."
    assert found(read_text(text)) == {("DeepTB", "sensitivity", 0.93)}


def test_an_intervals_level_with_its_method_is_no_value() -> None:
    text = "CardioNet results:\n\n- AUROC 95% bootstrap CI: 0.81-0.88;\n- F1 95% Wilson interval: 0.70-0.79.\n"
    assert not {value for _, _, value in found(read_text(text))} & {0.95}


def test_macro_and_micro_aucs_are_each_their_own_metric() -> None:
    text = "| Model | macro AUC | micro AUC | micro F1 |\n|---|---|---|---|\n| LAAT | 0.912 | 0.987 | 0.575 |\n"
    assert found(read_text(text)) == {
        ("LAAT", "macro auc", 0.912),
        ("LAAT", "micro auc", 0.987),
        ("LAAT", "micro f1", 0.575),
    }


def test_an_expected_value_and_its_restatement_on_another_scale_are_not_results() -> None:
    text = "ChestScan was evaluated.\n\n- Expected Mean AUC: 0.812 (81.2%)\n- Measured Mean AUC: 0.774 (77.4%)\n"
    assert found(read_text(text)) == {("ChestScan", "auc", 0.774)}


def test_a_cards_title_of_one_hyphenated_token_names_its_model_and_a_solution_column_names_models() -> None:
    card = (
        "---\nlicense: mit\nbase_model: emilyalsentzer/Bio_ClinicalBERT\npipeline_tag: token-classification\n---\n\n"
        "# Note-Scrubber: PHI removal for discharge notes\n\n**95.1% F1** on PHI detection.\n\n"
        "| Solution | F1 Score | Price |\n|---|---|---|\n| Philter Classic | 89% | free |\n"
        "| Azure Text Analytics | 92% | $5 |\n"
    )
    assert found(read_text(card)) == {
        ("Note-Scrubber", "f1", 0.951),
        ("Philter Classic", "f1", 0.89),
        ("Azure Text Analytics", "f1", 0.92),
    }
    # without a card's metadata a hyphenated heading is a page's title, no model
    page = "# Sepsis-Watch: what we learned\n\nThe team reported 95.1% F1 on PHI detection.\n"
    assert not any(model.name == "Sepsis-Watch" for model in read_text(page).models)


def test_a_model_able_to_answer_a_share_of_the_questions_correctly_has_that_accuracy() -> None:
    text = "Claude 3 Opus was able to answer 77.2% of the questions correctly, about 154 net answers."
    assert found(read_text(text)) == {("Claude 3 Opus", "accuracy", 0.772)}


def test_a_name_after_a_section_label_or_an_acronym_that_improves_on_others_is_a_model() -> None:
    text = (
        "Results: Sybil achieved 1- and 6-year AUCs of 0.92 and 0.75, respectively. Trained on 9,000 slides, "
        "HIPT consistently improves subtype classification, achieving macro AUC 96.1%."
    )
    assert found(read_text(text)) >= {("Sybil", "auc", 0.92), ("Sybil", "auc", 0.75), ("HIPT", "macro auc", 0.961)}
    # but not the last word of a longer name
    names = "Among the closed models, GPT-4o and Claude Opus demonstrated superior accuracy, scoring 86.8% and 83.8%."
    assert not any(model.name == "Opus" for model in read_text(names).models)


def test_a_code_views_line_numbers_are_no_values() -> None:
    text = (
        "BioNER-base was evaluated.\n\n- name: Precision 28 type: precision 29\n  value: 0.8412\n"
        "- name: Recall 31 type: recall 32\n  value: 0.8735\n"
    )
    assert not {value for _, _, value in found(read_text(text))} & {0.28, 0.31}


def test_korean_metrics_then_each_then_as_many_values_are_paired_in_order_as_often_as_written() -> None:
    text = (
        "NodulAI-X는 폐결절 AI다. 내부 검증에서 AUROC, 감도 및 특이도는 각각 0.911, 85.0%, 80.2%였고, 외부 검증에서 "
        "AUROC, 감도 및 특이도는 각각 0.897, 83.1%, 79.4%였다."
    )
    assert found(read_text(text)) == {
        ("NodulAI-X", "auroc", 0.911),
        ("NodulAI-X", "sensitivity", 0.85),
        ("NodulAI-X", "specificity", 0.802),
        ("NodulAI-X", "auroc", 0.897),
        ("NodulAI-X", "sensitivity", 0.831),
        ("NodulAI-X", "specificity", 0.794),
    }


def test_korean_value_of_metric_forms_people_and_sizes() -> None:
    # "X%의 민감도와 Y%의 특이도": each value's metric follows it
    shares = "SkinNet-2는 66.1%의 민감도와 88.0%의 특이도를 보였다."
    assert found(read_text(shares)) == {("SkinNet-2", "sensitivity", 0.661), ("SkinNet-2", "specificity", 0.88)}
    # trainees' results with the AI are people's, and a size after a Korean word is no model
    people = "연수생으로 이루어진 그룹 1의 경우 AUROC가 0.801에서 0.912로 개선되었다. 크기가 2cm 이하인 결절이었다."
    record = read_text(people)
    assert not found(record) and not any("2cm" in model.name for model in record.models)


def test_a_generic_accuracy_glossed_by_its_measure_and_a_score_before_a_korean_particle() -> None:
    text = "CardioWatch는 82%의 정확도(AUROC)를 얻었는데, NEWS는 64.5%의 정확도(AUROC)를 나타냈다."
    assert found(read_text(text)) == {("CardioWatch", "auroc", 0.82), ("NEWS", "auroc", 0.645)}


def test_a_name_with_an_acronym_a_hyphen_and_inner_capitals_is_a_model() -> None:
    text = "The software, called CT-lungNET, reached an AUC of 0.85 on 1,000 scans."
    assert ("CT-lungNET", "auc", 0.85) in found(read_text(text))


def test_kappa_a_rubrics_points_and_a_share_of_a_baseline() -> None:
    kappa = "Agreement with the triage nurse was moderate (kappa: 0.512 for GPT-4o and 0.447 for Gemini 1.5 Pro)."
    assert found(read_text(kappa)) == {("GPT-4o", "kappa", 0.512), ("Gemini 1.5 Pro", "kappa", 0.447)}
    rubric = (
        "Answers of GPT-4o were scored with a rubric: 2 points for a correct diagnosis, 1 point for a partly correct "
        "one and 0 points otherwise. The total possible score per model was 40 points."
    )
    assert not found(read_text(rubric))
    kept = "NoteSum-7B summaries reached an AUROC of 0.91, against 0.93 with full notes (98% retention)."
    assert {value for _, _, value in found(read_text(kept))} == {0.91, 0.93}


def test_footnote_letters_run_into_a_tables_labels_come_off_even_past_labels_written_in_lower_case() -> None:
    text = (
        "| Model name | Accuracy | AUROCa |\n|---|---|---|\n| LRb | 0.712 | 0.801 |\n| SVMc | 0.830 | 0.822 |\n"
        "| KNNd | 0.790 | 0.774 |\n| Random forest | 0.851 | 0.840 |\n| XGBooste | 0.873 | 0.861 |\n"
        "| CatBoostf | 0.869 | 0.858 |\n| MLPg | 0.855 | 0.849 |\n"
    )
    claims = found(read_text(text))
    models = {model for model, _, _ in claims}
    assert {"LR", "SVM", "KNN", "XGBoost", "CatBoost", "MLP"} <= models and "XGBooste" not in models
    assert ("XGBoost", "auroc", 0.861) in claims
