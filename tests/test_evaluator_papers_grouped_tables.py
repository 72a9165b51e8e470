"""Result tables whose rows are grouped: HTML cells spanning rows or columns stand in each row and column they
span, several leading label columns (a category, then the benchmark in it) make one row label, and a column headed
with a task takes the metric the text writes after that task; written here in forms the corpus does not hold."""

from __future__ import annotations

from evaluator.papers.text import MAX_SPAN, MAX_SPANNED_CELLS, html_text
from tests.papers_support import found, read_text


def test_an_html_cell_spanning_rows_or_columns_stands_in_each_of_them() -> None:
    markup = (
        "<table><tr><th>Area</th><th>Set</th><th>x</th></tr>"
        '<tr><td colspan="2">Mean</td><td>1</td></tr>'
        '<tr><td rowspan="3">Surgery</td><td>s1</td><td>2</td></tr>'
        "<tr><td>s2</td><td>3</td></tr><tr><td>s3</td><td>4</td></tr>"
        "<tr><td>Pediatrics</td><td>p1</td><td>5</td></tr></table>"
    )
    assert html_text(markup).splitlines() == [
        "|Area|Set|x|",
        "|---|---|---|",
        "|Mean|Mean|1|",
        "|Surgery|s1|2|",
        "|Surgery|s2|3|",
        "|Surgery|s3|4|",
        "|Pediatrics|p1|5|",
    ]


def test_a_hostile_span_is_bounded_and_a_span_past_the_tables_end_is_dropped() -> None:
    markup = (
        '<table><tr><td colspan="99999">a</td><td rowspan="99999">b</td></tr></table>'
        '<table><tr><td>c</td><td colspan="x" rowspan="-2">d</td></tr><tr><td>e</td><td>f</td></tr></table>'
    )
    lines = [line for line in html_text(markup).splitlines() if line]
    assert lines[0].count("|a") == MAX_SPAN and lines[0].endswith("|b|")
    assert lines[2:] == ["|c|d|", "|---|---|", "|e|f|"]


def test_a_category_column_spanning_rows_before_the_benchmark_column_gives_each_row_its_benchmark() -> None:
    markup = (
        "<h2>Evaluation</h2><table><thead><tr><th>Domain</th><th>Benchmark</th><th>OpenMed-9B-Chat</th>"
        "<th>Llama-3.1-8B-Instruct</th></tr></thead><tbody>"
        '<tr><td colspan="2">Overall</td><td>70.15</td><td>61.40</td></tr>'
        '<tr><td rowspan="2">Licensing exams</td><td>MedMCQA</td><td>66.20</td><td>58.35</td></tr>'
        "<tr><td>rx_dosing_qa</td><td>74.10</td><td>64.45</td></tr></tbody></table>"
    )
    claims = {(c.model, c.metric, c.value, c.dataset) for c in read_text(html_text(markup)).claims}
    assert claims == {
        ("OpenMed-9B-Chat", "score", 0.7015, None),
        ("Llama-3.1-8B-Instruct", "score", 0.614, None),
        ("OpenMed-9B-Chat", "accuracy", 0.662, "MedMCQA"),
        ("Llama-3.1-8B-Instruct", "accuracy", 0.5835, "MedMCQA"),
        ("OpenMed-9B-Chat", "score", 0.741, None),
        ("Llama-3.1-8B-Instruct", "score", 0.6445, None),
    }


def test_a_models_name_column_beside_a_text_column_is_not_joined_into_a_label() -> None:
    text = (
        "| Name | Type | MedQA |\n|---|---|---|\n| OpenMed-9B-Chat | open | 66.2% |\n"
        "| Llama-3.1-8B-Instruct | open | 58.4% |\n"
    )
    assert found(read_text(text)) == {
        ("OpenMed-9B-Chat", "accuracy", 0.662),
        ("Llama-3.1-8B-Instruct", "accuracy", 0.584),
    }


def test_spans_add_a_bounded_number_of_cells_to_a_hostile_page() -> None:
    row = '<tr><td colspan="64" rowspan="64">9</td></tr>'
    text = html_text("<table>" + row * 2000 + "</table>")
    assert text.count("|") <= 2 * (MAX_SPANNED_CELLS + 2000) + 4000


def test_a_column_headed_with_a_task_is_measured_in_the_metric_the_text_writes_after_that_task() -> None:
    text = (
        "# Ward routing\n\nQwen2.5-3B-Instruct reaches the best routing accuracy (61.5%) and urgency accuracy on "
        "nurse-labelled cases (70.2%).\n\n| Model | Routing Exact | Urgency (Nurse GT) | Keyword Recall |\n"
        "|---|---|---|---|\n"
        "| Qwen2.5-3B-Instruct | 61.5% | 70.2% | 44.0% |\n| Phi-3-mini | 58.0% | 66.4% | 47.5% |\n"
    )
    assert found(read_text(text)) >= {
        ("Qwen2.5-3B-Instruct", "accuracy", 0.615),
        ("Qwen2.5-3B-Instruct", "accuracy", 0.702),
        ("Phi-3-mini", "accuracy", 0.58),
        ("Phi-3-mini", "accuracy", 0.664),
        ("Phi-3-mini", "recall", 0.475),  # a column naming its own measure keeps it
    }
    assert ("Phi-3-mini", "accuracy", 0.475) not in found(read_text(text))


def test_a_per_class_table_belongs_to_the_one_model_its_heading_names_wherever_the_heading_names_it() -> None:
    text = (
        "# Discharge prediction\n\nWe compared LightGBM, CatBoost and an MLP.\n\n"
        "| Model | AUROC |\n|---|---|\n| LightGBM | 0.861 |\n| CatBoost | 0.858 |\n| MLP | 0.801 |\n\n"
        "### Held-out evaluation (tuned CatBoost)\n\n| Class | Precision | Recall |\n|---|---|---|\n"
        "| 0 (home) | 0.97 | 0.99 |\n| 1 (transfer) | 0.71 | 0.44 |\n\n"
        "### Comparison of LightGBM and MLP by class\n\n| Class | Precision |\n|---|---|\n| home | 0.95 |\n"
    )
    claims = found(read_text(text))
    assert {("CatBoost", "precision", 0.97), ("CatBoost", "recall", 0.44), ("CatBoost", "precision", 0.71)} <= claims
    assert 0.95 not in {value for _, _, value in claims}  # a heading naming two models says whose it is not


def test_a_corner_naming_evaluation_metrics_makes_rows_of_metrics_and_columns_of_the_models_compared() -> None:
    text = (
        "| Evaluation Metric | Phi-3-mini | Phi-3-mini-MedSFT | Change |\n|---|---|---|---|\n"
        "| **ROUGE-L** | 0.1432 | 0.2011 | +40.4% |\n| **Recall** | 0.3317 | 0.4102 | +23.7% |\n"
    )
    assert found(read_text(text)) == {
        ("Phi-3-mini", "rouge-l", 0.1432),
        ("Phi-3-mini-MedSFT", "rouge-l", 0.2011),
        ("Phi-3-mini", "recall", 0.3317),
        ("Phi-3-mini-MedSFT", "recall", 0.4102),
    }


def test_a_markdown_row_with_a_blank_first_cell_names_the_model_of_the_row_above() -> None:
    text = """Discrimination on the held-out wards, by how far ahead the alert looks.

| Model | Horizon | AUROC | AUPRC |
|---|---|---|---|
| XGBoost | 6 h | 0.861 | 0.412 |
| | 12 h | 0.842 | 0.398 |
| GRU-D | 6 h | 0.874 | 0.431 |
| | 12 h | 0.851 | 0.405 |
"""
    assert {claim for claim in found(read_text(text)) if claim[2] is not None} == {
        ("XGBoost", "auroc", 0.861),
        ("XGBoost", "auprc", 0.412),
        ("XGBoost", "auroc", 0.842),
        ("XGBoost", "auprc", 0.398),
        ("GRU-D", "auroc", 0.874),
        ("GRU-D", "auprc", 0.431),
        ("GRU-D", "auroc", 0.851),
        ("GRU-D", "auprc", 0.405),
    }


def test_a_blank_first_cell_under_the_header_names_no_model() -> None:
    text = """| Model | Split | Accuracy |
|---|---|---|
| | validation | 0.713 |
| BioGPT | test | 0.702 |
"""
    models = {claim[0] for claim in found(read_text(text)) if claim[2] is not None}
    assert "Model" not in models and "" not in models
