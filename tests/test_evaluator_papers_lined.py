"""Tables copied from pages, read back into rows: a journal's table page with one cell per line (group labels,
counts and prevalences written once over their rows, values with intervals and marks), and a commit's diff view
whose hunk header cuts a table; written here in forms the corpus does not hold."""

from __future__ import annotations

from tests.papers_support import found, read_text

PAGE = """Table 2 Discrimination of models for postoperative outcomes

From: A multicentre cohort study

Outcome

Events (rate)

Model

Prevalence

AUROC (95% CI)

Brier score

Pneumonia

212 (3.4%)

LightGBM

0.034

0.812 (0.790, 0.835)

0.031

Random forest

0.798 (0.775, 0.820)*

0.032

Sepsis

97 (1.6%)

LightGBM

0.016

0.874 (0.851, 0.896)

0.014

Random forest

0.861 (0.838, 0.884)†

0.015

Values marked * differ from LightGBM at P < 0.05. The cohort held 6,210 operations in 2019.
"""


def test_a_table_copied_one_cell_per_line_is_read_by_row_and_column() -> None:
    claims = {(c.model, c.metric, c.value, c.setting) for c in read_text(PAGE).claims}
    values = {(model, metric, value) for model, metric, value, _ in claims}
    assert values == {
        ("LightGBM", "auroc", 0.812),
        ("LightGBM", "brier", 0.031),
        ("Random forest", "auroc", 0.798),
        ("Random forest", "brier", 0.032),
        ("LightGBM", "auroc", 0.874),
        ("LightGBM", "brier", 0.014),
        ("Random forest", "auroc", 0.861),
        ("Random forest", "brier", 0.015),
    }
    assert any(setting and "Sepsis" in setting for _, metric, value, setting in claims if value == 0.874)


def test_short_lines_with_numbers_that_are_no_table_give_no_rows() -> None:
    text = "Methods\n\nAUROC\n\nAUPRC\n\nWe enrolled\n\n120\n\npatients in 2021.\n"
    assert found(read_text(text)) == set()


def test_a_diff_views_hunk_header_between_table_rows_does_not_cut_the_table() -> None:
    page = """4 |
| Model | MedQA | PubMedQA |
|
5 |
| --- | --- | --- |
|
@@ -12,4 +12,6 @@ Clinic-7B is a merge of two models:
|
12 |
| Clinic-7B | 58.2 | 74.9 |
|
13 |
| Base-7B | 51.0 | 70.3 |
|
"""
    assert found(read_text(page)) == {
        ("Clinic-7B", "accuracy", 0.582),
        ("Clinic-7B", "accuracy", 0.749),
        ("Base-7B", "accuracy", 0.51),
        ("Base-7B", "accuracy", 0.703),
    }


def test_a_models_rows_of_splits_under_its_name_give_the_model_and_the_split() -> None:
    page = (
        "Table 1 | Performance of the prediction models\n\nMethods\n\nAccuracy\n\nAUC\n\nExtra Trees [12]\n\n"
        "Training\n\n0.861\n\n0.702\n\nTest\n\n0.812\n\n0.655\n\nKNN [31]\n\nTraining\n\n0.790\n\n0.640\n\n"
        "Validation\n\n0.744\n\n0.611\n"
    )
    record = read_text(page)
    assert found(record) == {
        ("Extra Trees", "accuracy", 0.861),
        ("Extra Trees", "auc", 0.702),
        ("Extra Trees", "accuracy", 0.812),
        ("Extra Trees", "auc", 0.655),
        ("KNN", "accuracy", 0.79),
        ("KNN", "auc", 0.64),
        ("KNN", "accuracy", 0.744),
        ("KNN", "auc", 0.611),
    }
    assert {c.setting for c in record.claims if c.value in (0.812, 0.744)} == {"Test", "Validation"}
