"""A model named in lower-case words and then by an acronym ending in their initials ("deep learning-based early
warning score (DEWS)") is a model wherever the text calls it so; written here in forms the corpus does not hold."""

from __future__ import annotations

from evaluator.papers.defined import defined_names
from evaluator.papers.names import models_in
from tests.papers_support import found, read_text


def test_an_acronym_defined_for_a_tool_in_lower_case_words_names_a_model() -> None:
    text = (
        "We built a transformer-based sepsis alert system (TSAS) from ward vital signs. In the validation cohort, "
        "TSAS reached an AUROC of 0.883, while qSOFA reached 0.712."
    )
    assert "TSAS" in defined_names(text)
    claims = {claim for claim in found(read_text(text)) if claim[2] is not None}
    assert ("TSAS", "auroc", 0.883) in claims


def test_conditions_measures_and_an_acronym_written_once_are_not_models() -> None:
    text = (
        "Patients with acute kidney injury (AKI) were excluded. The area under the curve (AUC) was the primary "
        "measure. The model also yields a continuous risk index (CRI) for each patient. AKI was rare."
    )
    names = defined_names(text)
    assert "AKI" not in names and "AUC" not in names
    assert "CRI" not in names  # written once: it describes, it is not what the text calls a model


def test_a_method_named_in_words_keeps_the_short_name_the_text_gives_it_in_brackets() -> None:
    text = (
        "The random forest (RandF) model predicted reintubation within 72 h. AUROCs were 0.812 in the derivation "
        "cohort and 0.794 in the validation cohort."
    )
    models = {claim[0] for claim in found(read_text(text)) if claim[2] is not None}
    assert models == {"random forest (RandF)"}


def test_a_plural_acronym_after_a_method_is_the_kind_of_model_not_its_name() -> None:
    text = "We trained long short-term memory networks (LSTMs) on the waveforms."
    assert not any("LSTMs" in str(claim[0]) for claim in found(read_text(text)))
    assert [name for _, name in models_in(text)] != ["long short-term memory (LSTMs)"]


def test_a_hybrid_network_is_named_with_its_kind() -> None:
    names = [name for _, name in models_in("A hybrid recurrent neural network flagged false ventricular alarms.")]
    assert names == ["hybrid recurrent neural network"]


def test_a_score_named_after_a_place_or_a_person_is_a_model_in_running_text() -> None:
    text = (
        "For 90-day mortality, the discrimination of Ranson score (AUROC=0.702) and Glasgow score (AUROC=0.688) was "
        "fair."
    )
    names = [name for _, name in models_in(text)]
    assert names == ["Ranson score", "Glasgow score"]
    assert models_in("Total score was recorded for each patient.") == []


def test_the_classifiers_and_ensembles_clinical_papers_compare_are_models_in_lower_case_words() -> None:
    text = (
        "We compared an extra-trees classifier, a support vector classifier and adaptive boosting for predicting "
        "reintubation. The hard voting ensemble, which combines all three, reached an AUROC of 0.861 and an F1 "
        "score of 0.702 on the test set."
    )
    names = [name for _, name in models_in(text)]
    assert names == ["extra-trees classifier", "support vector classifier", "adaptive boosting", "hard voting ensemble"]
    assert found(read_text(text)) >= {("hard voting ensemble", "auroc", 0.861), ("hard voting ensemble", "f1", 0.702)}
    # a vote and an ensemble of studies are not models
    assert models_in("The panel voted on each case. An ensemble of studies was pooled.") == []


def test_names_a_text_lists_as_its_datasets_are_benchmarks_and_a_framework_after_a_comma_is_its_subject() -> None:
    text = (
        "We build three new datasets, namely V-RAD, V-SLAKE and V-PATH, from public images. We design a light "
        "framework, RadThinker, that explains its answers. Our method reaches an accuracy of 71.2% on V-RAD, 77.9% on "
        "V-SLAKE and 69.4% on V-PATH."
    )
    record = read_text(text)
    assert {claim[0] for claim in found(record)} == {"RadThinker"}
    assert {m.name for m in record.models} == {"RadThinker"}


def test_readmission_and_perioperative_risk_scores_and_acronym_models_written_as_titles_are_models() -> None:
    text = (
        "Against the LACE index, the HOSPITAL score and P-POSSUM, the MGH Readmission Model discriminated best "
        "(AUROC 0.74 vs 0.69)."
    )
    names = [name for _, name in models_in(text)]
    assert names == ["LACE index", "HOSPITAL score", "P-POSSUM", "MGH Readmission Model"]
    assert models_in("It was trained by the AI Model Team.") == []


def test_acronyms_a_text_lists_as_scores_are_models_in_its_later_sentences_and_one_scales_score_is_not() -> None:
    text = (
        "We externally validated three conventional scores-MIRA, CARTO and PRIME-against a new XGBoost model. "
        "MIRA had the highest AUROC of 0.81, followed by CARTO and PRIME (0.77 and 0.74, respectively). "
        "Delirium was measured with the PAED score."
    )
    assert found(read_text(text)) == {("MIRA", "auroc", 0.81), ("CARTO", "auroc", 0.77), ("PRIME", "auroc", 0.74)}
    assert "PAED" not in {m.name for m in read_text(text).models}


def test_classes_named_by_two_acronyms_around_a_slash_are_not_a_hub_id() -> None:
    text = "Our model reached 81% sensitivity for PAC/PVC detection and an accuracy of 96.2% for AF/AFL."
    assert not any(m.name in ("PAC/PVC", "AF/AFL") for m in read_text(text).models)
    assert [name for _, name in models_in("We fine-tuned BAAI/AquilaMed-7B on it.")] == ["BAAI/AquilaMed-7B"]


def test_a_model_named_in_full_and_then_by_its_first_word_is_the_full_name() -> None:
    text = (
        "Questions were put to Gemini 2.0 Pro, Claude-Sonnet 3.7 and LLaMA 3.1 405B. Accuracy was 84.0% for Gemini, "
        "79.5% for Claude and 61.2% for LLaMA."
    )
    assert found(read_text(text)) == {
        ("Gemini 2.0 Pro", "accuracy", 0.84),
        ("Claude-Sonnet 3.7", "accuracy", 0.795),
        ("LLaMA 3.1 405B", "accuracy", 0.612),
    }
    # two models: the bare name is written first
    both = "ChatGPT reached an accuracy of 58.0% and ChatGPT-4 an accuracy of 81.5%."
    assert found(read_text(both)) == {("ChatGPT", "accuracy", 0.58), ("ChatGPT-4", "accuracy", 0.815)}
