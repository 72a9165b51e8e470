"""A script's printed results with each value's spread over runs ("AUROC: 0.821 +/- 0.011") under a line naming
the run among its other labels ("Dataset: eicu | Model: gru_attn_128") and a rule; a spread typed as "+/-" in
prose; a mean count of right answers, which is no share; people set apart by a phrase who scored; written here in
forms the corpus does not hold."""

from __future__ import annotations

from tests.papers_support import found, read_text

RUNS = """Run: 2024-03-02 | Dataset: eicu | Model: gru_attn_128_0.3
---------------------------
AUROC:   0.764 +/- 0.015
AUPRC:   0.412 +/- 0.021
Brier:   0.081 +/- 0.004

Run: 2024-03-02 | Dataset: eicu | Model: logreg_l2
---------------------------
AUROC:   0.741 +/- 0.010
AUPRC:   0.377 +/- 0.019
Brier:   0.085 +/- 0.003
"""


def test_printed_runs_with_spreads_are_read_as_each_runs_results() -> None:
    assert found(read_text(RUNS)) == {
        ("gru_attn_128_0.3", "auroc", 0.764),
        ("gru_attn_128_0.3", "auprc", 0.412),
        ("gru_attn_128_0.3", "brier", 0.081),
        ("logreg_l2", "auroc", 0.741),
        ("logreg_l2", "auprc", 0.377),
        ("logreg_l2", "brier", 0.085),
    }


def test_a_printed_block_under_a_line_naming_no_model_names_none() -> None:
    claims = found(read_text(RUNS.replace("Model: ", "Seed: ")))
    assert claims and {model for model, _, _ in claims} == {None}  # read, but whose the text does not say


def test_mean_correct_answers_are_a_count_and_people_set_apart_by_a_phrase_are_no_model() -> None:
    text = (
        "Results: Mistral Large answered the most, with mean correct answers of 38.2+/-1.3 out of 40, followed by "
        "Llama 3.1 70B (35.9+/-2.0). Residents with more than two years of training scored 31.4+/-4.2."
    )
    assert found(read_text(text)) == {
        ("Mistral Large", "mean correct answers", 38.2),
        ("Llama 3.1 70B", "mean correct answers", 35.9),
    }
