"""Methods compared in one abstract, written in forms the corpus showed on first reads of blind batches (dev batches
41 and 42): a lower-case method and its acronym used alone later, two models that "both" reached values, a metric
whose bracket holds another metric's value, a metric word that is part of a model's name, a subset label before a
percentage and its metric. The sentences here are written for the test, not copied from the corpus."""

from __future__ import annotations

from tests.papers_support import found, read_text


def test_a_lower_case_method_defined_by_its_acronym_is_a_model_where_the_acronym_stands_alone() -> None:
    text = (
        "We trained k-nearest neighbours (KNN), a decision tree (DT) and a gradient boosting (GB) classifier. "
        "The DT model reached an AUROC of 0.81 on the hold-out set, while the GB model reached 0.77."
    )
    assert found(read_text(text)) >= {("DT", "auroc", 0.81), ("GB", "auroc", 0.77)}


def test_two_models_that_both_reached_values_each_get_every_value_of_the_clause() -> None:
    text = (
        "XGBoost and LightGBM models performed similarly, both reaching the same sensitivity (71.0%) and "
        "specificity (64.5%), while logistic regression reached a sensitivity of 60.2%."
    )
    claims = found(read_text(text))
    for model in ("XGBoost", "LightGBM"):
        assert {(model, "sensitivity", 0.71), (model, "specificity", 0.645)} <= claims
    assert ("logistic regression", "sensitivity", 0.602) in claims
    assert ("XGBoost", "sensitivity", 0.602) not in claims


def test_a_metric_in_brackets_with_its_own_value_is_not_the_metric_of_the_value_before_it() -> None:
    text = "TransICU achieved AUPRCs of 41.5 (F1 of 38.2) for 12-hour mortality."
    claims = found(read_text(text))
    assert ("TransICU", "auprc", 0.415) in claims
    assert ("TransICU", "f1", 0.382) in claims


def test_a_metric_word_in_a_models_name_is_not_the_metric_of_its_value() -> None:
    text = (
        "The area under the curve was 0.83 for the neural network, 0.71 for the Ranson score and 0.66 for the "
        "SOFA score."
    )
    claims = found(read_text(text))
    assert ("SOFA", "auc", 0.66) in claims or ("SOFA score", "auc", 0.66) in claims
    assert not any(metric == "score" for _, metric, _ in claims)


def test_a_subset_label_before_a_percentage_and_its_metric_is_no_measure_of_its_own() -> None:
    text = "RetinaScan was tested on three diseases.\n\n- Glaucoma: 93.4% accuracy\n- Cataract: 88.0% accuracy\n"
    assert found(read_text(text)) >= {("RetinaScan", "accuracy", 0.934), ("RetinaScan", "accuracy", 0.88)}
    # but a label a value alone follows is an unknown measure, not a result: "CCC: 0.91"
    assert not found(read_text("RetinaScan agreed with graders (CCC: 0.91)."))
