"""Metrics a text defines itself ("we introduce ReAcc and ReCon, two reliability metrics"): its table's columns and
its sentences are measured in them, and they are never models; a qualified model corner ("Cohort and Models")
heads a column of models whatever their shape; written here in forms the corpus does not hold."""

from __future__ import annotations

from evaluator.papers.measures import defined_metrics, metric_of
from tests.papers_support import found, read_text

TABLE = """We propose StabAcc and FlipRate, two robustness metrics: StabAcc counts the questions answered right under
every rewording, FlipRate the share of answers that change.

| Model | MedQA | | PubMedQA | |
|---|---|---|---|---|
| StabAcc | FlipRate | StabAcc | FlipRate | |
| Qwen2.5-7B-Instruct | 51.2 | 18.4 | 60.3 | 12.9 |
| Llama-3.1-8B-Instruct | 47.9 | 22.0 | 58.8 | 15.1 |
"""


def test_a_tables_sub_header_of_metrics_the_text_defines_measures_its_columns() -> None:
    claims = found(read_text(TABLE))
    assert claims == {
        ("Qwen2.5-7B-Instruct", "stabacc", 0.512),
        ("Qwen2.5-7B-Instruct", "fliprate", 0.184),
        ("Qwen2.5-7B-Instruct", "stabacc", 0.603),
        ("Qwen2.5-7B-Instruct", "fliprate", 0.129),
        ("Llama-3.1-8B-Instruct", "stabacc", 0.479),
        ("Llama-3.1-8B-Instruct", "fliprate", 0.22),
        ("Llama-3.1-8B-Instruct", "stabacc", 0.588),
        ("Llama-3.1-8B-Instruct", "fliprate", 0.151),
    }


def test_a_metric_named_in_a_sentence_is_measured_in_and_known_only_while_its_text_is_read() -> None:
    text = "We define a new safety metric called HarmRate. Meditron-7B had a HarmRate of 0.21 on our 400 prompts."
    assert found(read_text(text)) == {("Meditron-7B", "harmrate", 0.21)}
    assert defined_metrics(text) is not None and metric_of("HarmRate") is None  # not after the text is read


def test_a_qualified_model_corner_heads_models_of_any_shape() -> None:
    text = (
        "Table 2 Results on the test set\n\n| Cohort and Models | AUROC | NPV |\n|---|---|---|\n"
        "| GBM | 0.801 (0.77–0.83) | 0.912 |\n| NB | 0.744 (0.71–0.78) | 0.890 |\n"
        "| CART | 0.702 (0.66–0.74) | 0.871 |\n"
    )
    assert found(read_text(text)) == {
        ("GBM", "auroc", 0.801),
        ("GBM", "npv", 0.912),
        ("NB", "auroc", 0.744),
        ("NB", "npv", 0.89),
        ("CART", "auroc", 0.702),
        ("CART", "npv", 0.871),
    }
