"""Forms of summaries and abstracts: "the model" in key findings above the abstract naming the one model, intervals
written with typographic dashes, words joined by a slash, a weighted F1; written here in forms the corpus does not
hold."""

from __future__ import annotations

from tests.papers_support import found, read_text

SUMMARY = """## Key findings

- The model reached an AUROC of 0.81 for delirium on day 2 and kept it in the external cohort (AUROC 0.79).
- Sedation/analgesia depth and prior/current benzodiazepine use were the strongest predictors.

## Abstract

We trained RandomForest-DEL on 12,304 ICU stays from MIMIC-IV.
"""


def test_the_model_of_a_key_finding_is_the_one_model_the_text_names_later() -> None:
    record = read_text(SUMMARY)
    assert found(record) == {("RandomForest-DEL", "auroc", 0.81), ("RandomForest-DEL", "auroc", 0.79)}
    assert {m.name for m in record.models} == {"RandomForest-DEL"}  # no "prior/current": two words


def test_the_model_of_a_text_naming_two_models_stays_unnamed() -> None:
    text = SUMMARY.replace("trained RandomForest-DEL", "trained RandomForest-DEL and GBM-DEL")
    assert found(read_text(text)) == {(None, "auroc", 0.81), (None, "auroc", 0.79)}


def test_an_interval_with_a_figure_dash_or_a_typographic_hyphen_is_no_value() -> None:
    text = (
        "Med42-v2 reached an accuracy of 88.4% (95% CI 85.2%\u201291.0%), and its AUROC for abstaining was "
        "0.812 (95% CI 0.790\u20100.833)."
    )
    assert found(read_text(text)) == {("Med42-v2", "accuracy", 0.884), ("Med42-v2", "auroc", 0.812)}


def test_a_weighted_f1_is_another_measure_than_the_f1() -> None:
    text = "| Model | Macro F1 | Weighted F1 |\n|---|---|---|\n| SciBERT | 0.51 | 0.66 |\n"
    assert found(read_text(text)) == {("SciBERT", "f1", 0.51), ("SciBERT", "f1 weighted", 0.66)}


def test_short_forms_of_methods_in_a_list_of_those_compared_are_models() -> None:
    text = (
        "LGB showed the best predictive performance for massive transfusion (AUC = 0.912, sensitivity = 0.84) "
        "compared with GBDT, LR and MLP. The LR+ of LGB was 4.1."
    )
    assert found(read_text(text)) == {("LGB", "auc", 0.912), ("LGB", "sensitivity", 0.84)}


def test_the_clinical_scores_a_model_is_compared_with_are_models() -> None:
    text = (
        "XGBoost-ED (AUROC 0.81) outperformed SIRS (AUROC 0.64), REMS (AUROC 0.70) and the Rothman Index (AUROC 0.73)."
    )
    record = read_text(text)
    assert found(record) == {
        ("XGBoost-ED", "auroc", 0.81),
        ("SIRS", "auroc", 0.64),
        ("REMS", "auroc", 0.7),
        ("Rothman Index", "auroc", 0.73),
    }


def test_a_passing_threshold_of_about_a_value_is_no_result() -> None:
    text = "Claude 3.5 Sonnet achieved an accuracy of 81% on the 2024 exam, above the passing threshold of around 60%."
    assert found(read_text(text)) == {("Claude 3.5 Sonnet", "accuracy", 0.81)}
