"""Results printed by scripts and tables turned on their side, as READMEs of dev batch 45 wrote them: scikit-learn's
classification report under the model a line above trains, models across a header over rows of metrics with an
average column, BERTScore's three numbers and a bare ROUGE column, and an experiment's number after a value. The
texts here are written for the test."""

from __future__ import annotations

from tests.papers_support import found, read_text

REPORT = """TRAINING GRADIENT BOOSTING MODEL

Classification Report:
              precision    recall  f1-score   support

    No sepsis     0.9412    0.9120    0.9264      3810
       Sepsis     0.3105    0.5021    0.3837       209

     accuracy                         0.8874      4019
    macro avg     0.6259    0.7071    0.6551      4019
"""


def test_a_classification_report_gives_each_rows_precision_recall_and_f1_and_the_accuracy() -> None:
    record = read_text(REPORT)
    claims = found(record)
    assert {
        ("GRADIENT BOOSTING", "precision", 0.3105),
        ("GRADIENT BOOSTING", "recall", 0.5021),
        ("GRADIENT BOOSTING", "f1", 0.3837),
        ("GRADIENT BOOSTING", "accuracy", 0.8874),
        ("GRADIENT BOOSTING", "precision", 0.6259),
    } <= claims
    variants = {c.task_variant for c in record.claims if c.metric == "precision"}
    assert {"Sepsis", "No sepsis", "macro avg"} <= variants
    assert not {value for _, _, value in claims} & {3810.0, 209.0, 4019.0}  # supports are counts
    # a report under no model named near it is not read: whose it is would be a guess
    assert not found(read_text(REPORT.replace("TRAINING GRADIENT BOOSTING MODEL", "Results")))


def test_models_across_the_header_over_rows_of_metrics_and_an_average_column_that_is_no_model() -> None:
    text = (
        "| Models | DenseNet-121 | ResNet-50 | AVG |\n|---|---|---|---|\n| Scores | 91.20% | 90.40% | 90.80% |\n"
        "| AUC | 0.951 | 0.947 | 0.949 |\n"
    )
    record = read_text(text)
    assert found(record) == {
        ("DenseNet-121", "score", 0.912),
        ("ResNet-50", "score", 0.904),
        ("DenseNet-121", "auc", 0.951),
        ("ResNet-50", "auc", 0.947),
    }
    assert "AVG" not in {model.name for model in record.models}


def test_bertscores_three_numbers_and_a_bare_rouge_column_are_metrics_of_their_own() -> None:
    text = (
        "| model_name | rouge | bleu | bertscore_precision | bertscore_recall | bertscore_f1 |\n"
        "|---|---|---|---|---|---|\n| clinical-t5-sum | 0.4412 | 0.3871 | 0.9013 | 0.9188 | 0.9099 |\n"
    )
    assert found(read_text(text)) == {
        ("clinical-t5-sum", "rouge", 0.4412),
        ("clinical-t5-sum", "bleu", 0.3871),
        ("clinical-t5-sum", "bertscore precision", 0.9013),
        ("clinical-t5-sum", "bertscore recall", 0.9188),
        ("clinical-t5-sum", "bertscore f1", 0.9099),
    }


def test_an_experiments_number_after_a_value_is_no_value() -> None:
    text = "BioBERT v1.1 results\n\nPrecision: 0.8511\nExperiment 2: BioBERT v1.1 on BC5CDR\n\nPrecision: 0.7834\n"
    assert not {value for _, _, value in found(read_text(text))} & {2.0, 0.02}


def test_signal_forms_values_with_spreads_spaced_f1_plural_metric_dice_and_datasets_that_are_no_models() -> None:
    spreads = "SeizureNet obtained 97.31 ± 0.42% accuracy, 96.80 ± 0.91% sensitivity and 97.62 ± 0.35% specificity."
    assert found(read_text(spreads)) == {
        ("SeizureNet", "accuracy", 0.9731),
        ("SeizureNet", "sensitivity", 0.968),
        ("SeizureNet", "specificity", 0.9762),
    }
    plural = (
        "ArrNet was evaluated on the MIT-BIH database and achieved an accuracy of 97.9% and F 1 scores for the "
        "classes S and V of 80.1% and 90.4%, respectively."
    )
    record = read_text(plural)
    assert found(record) == {("ArrNet", "accuracy", 0.979), ("ArrNet", "f1", 0.801), ("ArrNet", "f1", 0.904)}
    assert "MIT-BIH" not in {model.name for model in record.models}
    dice = "The Attention U-Net reached a Dice similarity coefficient of 0.912 on BraTS 2021."
    assert any(
        "U-Net" in (model or "") and metric == "dice" and value == 0.912
        for model, metric, value in found(read_text(dice))
    )


def test_a_diff_views_line_numbers_and_a_data_dictionarys_field_numbers_are_no_values() -> None:
    diff = 'NER-Llama results\n\n- "eval_drug.f1": 0.9571,\n32\n- "eval_drug.precision": 0.9824,\n33\n'
    assert not {value for _, _, value in found(read_text(diff))} & {32.0, 33.0, 0.32, 0.33}
    fields = "Features\n\n10. slope: The slope of the peak exercise ST segment\n11. ca: vessels coloured\n"
    assert not found(read_text(fields))
