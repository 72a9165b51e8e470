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


def test_a_list_of_names_each_with_its_metric_and_value_gives_each_value_to_its_name() -> None:
    text = (
        "The TriageNet model outperformed the clinical scores (MEWS: AUC=0.701; Glasgow: AUC=0.644; TriageNet: "
        "AUC=0.858; qSOFA: AUC=0.612)."
    )
    assert found(read_text(text)) >= {
        ("MEWS", "auc", 0.701),
        ("Glasgow", "auc", 0.644),
        ("TriageNet", "auc", 0.858),
        ("qSOFA", "auc", 0.612),
    }
    # but labels that are cohorts name no model: the values stay the model's the sentence is about
    cohorts = "XGBoost was validated twice (Internal: AUC=0.81; External: AUC=0.77)."
    assert {model for model, _, _ in found(read_text(cohorts))} == {"XGBoost"}


def test_an_unknown_acronym_in_a_list_of_models_with_bracketed_values_is_a_model() -> None:
    text = "Test-set AUCs were NB (0.742), RF (0.811), XGBoost (0.826) and CatB (0.819)."
    claims = found(read_text(text))
    assert {("NB", "auc", 0.742), ("CatB", "auc", 0.819), ("RF", "auc", 0.811)} <= claims


def test_a_journals_name_in_a_citation_line_is_no_model_so_the_model_is_the_texts_one_subject() -> None:
    text = (
        "ClinMedInformatics 2024, 7(2), 31\n\nWe built a model with the CatBoost algorithm to predict ICU death. "
        "The model reached an AUROC of 0.88 on the test set."
    )
    record = read_text(text)
    assert not any("ClinMed" in model.name for model in record.models)
    assert ("CatBoost", "auroc", 0.88) in found(record)


def test_a_plain_capitalised_name_whose_result_the_clause_states_is_a_model() -> None:
    text = "On the external cohort, with Sentinel achieving an AUROC of 0.912, the screening rate rose."
    assert ("Sentinel", "auroc", 0.912) in found(read_text(text))
    # but not a word that names people or opens a sentence
    people = "Radiologists achieved an accuracy of 81%, and Physicians reached 0.7 AUROC."
    assert not {model for model, _, _ in found(read_text(people))} & {"Radiologists", "Physicians"}
    # and not a word that opens a sentence, where every word is capitalised
    opening = "Answers scored a ROUGE-L of 0.412 for BioMistral-7B."
    assert {model for model, _, _ in found(read_text(opening))} == {"BioMistral-7B"}


def test_other_trees_sequence_labellers_survival_and_segmentation_models_and_named_scores_are_models() -> None:
    text = (
        "We compared a regression tree, conditional random fields, a Cox proportional hazards model, a U-Net and "
        "a Swin Transformer with the Glasgow-Blatchford score and the Rockall score."
    )
    names = {model.name for model in read_text(text).models}
    assert {
        "regression tree",
        "conditional random fields",
        "Cox proportional hazards model",
        "U-Net",
        "Swin Transformer",
        "Glasgow-Blatchford score",
        "Rockall score",
    } <= names
    # a metric called a score is none, nor an acronym's score that may be the outcome measured
    measured = "The AUC score and the PAED score were recorded for the random forest."
    assert {model.name for model in read_text(measured).models} == {"random forest"}
