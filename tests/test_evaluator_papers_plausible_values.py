"""Numbers that are not results: one after an AUROC, AUC or C-index below what such a result can be (under 0.4,
worse than guessing the other way: a spread, a gap or a bound), and the numbers of a list written inline ("1) ...,
2) ..."); written here in forms the corpus does not hold."""

from __future__ import annotations

from evaluator.papers.vocabulary import read_value
from tests.papers_support import found, read_text


def test_discrimination_values_below_chance_are_not_read_and_shares_at_zero_still_are() -> None:
    assert read_value("0.011", metric="auroc") is not None
    assert read_value("0.011", metric="auroc").value is None  # type: ignore[union-attr]
    assert read_value("3.1", metric="auc").value is None  # type: ignore[union-attr]  # 0.031 on a 0-100 scale
    assert read_value("0.00", metric="c-index").value is None  # type: ignore[union-attr]
    assert read_value("0.48", metric="auroc").value == 0.48  # type: ignore[union-attr]  # a poor model, still a result
    assert read_value("81.5", metric="auc").value == 0.815  # type: ignore[union-attr]
    assert read_value("0", metric="accuracy").value == 0.0  # type: ignore[union-attr]  # a model can get none right


def test_a_gap_between_two_aurocs_is_not_a_result_of_either_model() -> None:
    text = (
        "On the held-out hospital, the TCN kept an AUROC of 0.861 while the GRU fell to 0.802, a drop in AUROC of "
        "0.034 against its internal figure."
    )
    claims = found(read_text(text))
    assert ("TCN", "auroc", 0.861) in claims and ("GRU", "auroc", 0.802) in claims
    assert {claim for claim in claims if claim[2] is not None} == {("TCN", "auroc", 0.861), ("GRU", "auroc", 0.802)}


def test_printed_spreads_after_each_auroc_are_not_results() -> None:
    text = """Model: TemporalFusion
Validation AUROC: 0.7764 (sd 0.0127)
Test AUROC: 0.7702 (sd 0.0139)
"""
    claims = found(read_text(text))
    assert {claim[2] for claim in claims} <= {0.7764, 0.7702}
    assert ("TemporalFusion", "auroc", 0.7702) in claims


def test_the_numbers_of_a_list_written_inline_are_not_results() -> None:
    text = (
        "Our findings: 1) GPT-4 answered best, 2) Qwen-72B came second, and 3) smaller models such as Phi-3 trailed; "
        "GPT-4 reached an accuracy of 71.2% (rank 1)."
    )
    assert {claim for claim in found(read_text(text)) if claim[2] is not None} == {("GPT-4", "accuracy", 0.712)}


def test_the_two_values_a_reward_or_a_grade_can_take_are_not_results() -> None:
    text = (
        "The grader gives Meditron-7B an accuracy reward that returns 1.0 if the chosen letter matches the key, else "
        "0.0; over the 1,273 questions Meditron-7B reached an accuracy of 0.412."
    )
    assert {claim for claim in found(read_text(text)) if claim[2] is not None} == {("Meditron-7B", "accuracy", 0.412)}


def test_a_count_of_what_a_model_flagged_is_not_a_result() -> None:
    text = (
        "The CNN alarm filter reached a precision of 41% and a sensitivity of 88%, that is 1.4 false alarms for each "
        "true event and 6 alerts per bed-day."
    )
    assert {claim for claim in found(read_text(text)) if claim[2] is not None} == {
        ("CNN", "precision", 0.41),
        ("CNN", "sensitivity", 0.88),
    }


def test_a_number_no_metric_or_benchmark_names_is_no_claim_but_a_benchmarks_percentage_is() -> None:
    table = """| Model | Ward A | Ward B |
|---|---|---|
| DeepSepsis | 0.812 | 0.774 |
| qSOFA | 0.655 | 0.640 |
"""
    assert not [claim for claim in found(read_text(table)) if claim[2] is not None]
    text = "BioMedLM-3B beats Phi-2 on PubMedQA (74.4% vs 71.1%)."
    assert any(claim[0] == "BioMedLM-3B" and claim[2] == 0.744 for claim in found(read_text(text)))


def test_a_split_or_a_header_word_read_as_a_model_is_no_models_claim() -> None:
    # a summary row under a "Model" header is no model: "Overall" (nor "Training", "Validation", "Benchmark")
    text = "| Model | AUROC |\n|---|---|\n| Overall | 0.81 |\n| LightGBM | 0.84 |\n"
    assert {claim for claim in found(read_text(text)) if claim[2] is not None} == {("LightGBM", "auroc", 0.84)}


def test_an_intervals_level_is_no_value_where_the_text_stops_after_it_or_where_several_levels_are_listed() -> None:
    cut = "In external validation, the gradient boosting model reached an AUROC of 0.812 (95"
    assert found(read_text(cut)) == {("gradient boosting", "auroc", 0.812)}
    glued = "The LSTM reached an AUPRC of 0.41(95% CI 0.39-0.43) and an AUROC of 0.873(95"
    assert {claim[2] for claim in found(read_text(glued))} == {0.41, 0.873}
    levels = "GPT-4o reached an accuracy of 81.2%, reported with 95% and 99% confidence intervals."
    assert found(read_text(levels)) == {("GPT-4o", "accuracy", 0.812)}


def test_a_tables_cells_run_together_are_not_read_as_prose_but_a_glued_name_alone_is() -> None:
    glued = (
        "Table 4 Sepsis alert models\n\nStudyModelAUROC (95% CI)Sensitivity (%)Specificity (%)\n"
        "Lee et al12SepsisNet0.8120.77 (0.74-0.80)81.2 Kim et al14Early alert0.7690.71"
    )
    assert [c for c in read_text(glued).claims if c.value is not None] == []
    prose = "SepsisNet reached an AUROC of 0.812 (95% CI 0.77-0.85) in the external cohort (Table 2)."
    assert found(read_text(prose)) == {("SepsisNet", "auroc", 0.812)}


def test_a_balanced_accuracy_is_its_own_metric_and_not_the_accuracy() -> None:
    text = "On the held-out slides, PathReader reached a balanced accuracy of 68.2% and an accuracy of 74.5%."
    assert found(read_text(text)) == {("PathReader", "balanced accuracy", 0.682), ("PathReader", "accuracy", 0.745)}


def test_a_column_of_fractions_beside_percentage_columns_stays_fractions() -> None:
    table = (
        "| Model | MedQA | PubMedQA | ROUGE-L | BLEU |\n|---|---|---|---|---|\n"
        "| EyeGPT-8B | 61.20% | 74.00% | 0.214 | 0.071 |\n| Llama-3-8B | 55.10% | 70.40% | 0.188 | 0.064 |\n"
    )
    read = found(read_text(table))
    assert ("EyeGPT-8B", "rouge-l", 0.214) in read and ("Llama-3-8B", "bleu", 0.064) in read
    assert ("EyeGPT-8B", "accuracy", 0.612) in read
