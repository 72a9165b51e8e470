"""Result tables as journal pages give them when copied: an interval wrapped onto its own line under its value, a
header copied without its empty corner cell over rows of outcomes, a caption naming the one model, the short and
programmatic names of metrics ("Sen", "Spec", "F1_score", "MCC"), and the values a score can take; written here in
forms the corpus does not hold."""

from __future__ import annotations

from tests.papers_support import found, read_text

WRAPPED = """Table 3 Discrimination in the temporal validation cohort

Algorithm

AUROC (95% CI)

Sens (95% CI)

F1_score

MCC

GBM

0.842

(0.811–0.870)

0.791

(0.744–0.833)

0.402

0.377

Ridge regression

0.803

(0.770–0.834)

0.735

(0.684–0.781)

0.361

0.329
"""


def test_an_interval_wrapped_onto_its_own_line_stays_with_its_value() -> None:
    record = read_text(WRAPPED)
    assert found(record) == {
        ("GBM", "auroc", 0.842),
        ("GBM", "sensitivity", 0.791),
        ("GBM", "f1", 0.402),
        ("GBM", "mcc", 0.377),
        ("Ridge regression", "auroc", 0.803),
        ("Ridge regression", "sensitivity", 0.735),
        ("Ridge regression", "f1", 0.361),
        ("Ridge regression", "mcc", 0.329),
    }
    assert [c.ci for c in record.claims if c.value == 0.842] == [[0.811, 0.87]]


CORNERLESS = """Table 4.
Discrimination for each outcome, 48 h ahead, of the gradient boosting model (LightGBM).
| AUROC (CI) | Spec (95% CI) | NPV (95% CI) | |
|---|---|---|---|
| Vasopressor start |
0.881 (0.860–0.902) |
0.803 (0.771–0.833) |
0.991 (0.988–0.994) |
|
Renal replacement therapy |
0.917 (0.890–0.944) |
0.842 (0.800–0.880) |
0.998 (0.997–0.999) |
"""


def test_a_header_copied_without_its_corner_names_the_columns_of_values_under_it() -> None:
    assert found(read_text(CORNERLESS)) == {
        ("LightGBM", "auroc", 0.881),
        ("LightGBM", "specificity", 0.803),
        ("LightGBM", "npv", 0.991),
        ("LightGBM", "auroc", 0.917),
        ("LightGBM", "specificity", 0.842),
        ("LightGBM", "npv", 0.998),
    }


def test_rows_of_outcomes_under_a_caption_naming_two_models_are_nobodys() -> None:
    text = CORNERLESS.replace("of the gradient boosting model (LightGBM)", "of LightGBM and of logistic regression")
    assert found(read_text(text)) == set()


def test_a_count_column_of_a_single_models_table_gives_no_claim() -> None:
    text = (
        "Results of the classifier model (XGBoost) by subset.\n\n| Subset | # of cases | Accuracy |\n|---|---|---|\n"
        "| Cardiology | 100 | 0.71 |\n| Nephrology | 250 | 0.64 |\n"
    )
    assert found(read_text(text)) == {("XGBoost", "accuracy", 0.71), ("XGBoost", "accuracy", 0.64)}


def test_the_values_a_score_can_take_are_no_result() -> None:
    text = "MedCheck-7B is scored per item.\n\n- exact_answer_score: the option letter matches (0 or 1)\n"
    assert found(read_text(text)) == set()


def test_a_table_rendered_with_spaces_under_a_header_of_metrics_is_read_by_column() -> None:
    text = (
        "Table 3.\n\nDiscrimination on the hold-out set\n\n"
        "Classifiers AUROC Brier score Sensitivity\n"
        "Elastic net 0.771 0.102 0.690\nExtra trees 0.802 0.095 0.733\nNEWS2 0.688 0.131 0.540\n"
    )
    assert found(read_text(text)) == {
        ("Elastic net", "auroc", 0.771),
        ("Elastic net", "brier", 0.102),
        ("Elastic net", "sensitivity", 0.69),
        ("Extra trees", "auroc", 0.802),
        ("Extra trees", "brier", 0.095),
        ("Extra trees", "sensitivity", 0.733),
        ("NEWS2", "auroc", 0.688),
        ("NEWS2", "brier", 0.131),
        ("NEWS2", "sensitivity", 0.54),
    }


def test_header_cells_spanning_the_metric_columns_leave_the_rows_their_last_columns() -> None:
    page = (
        "Table 2 Results on the external sets\n\nLength of stay (days)\n\nIn-hospital death\n\nMAE\n\nAUROC\n\n"
        "Specificity (%)\n\nSite B\n\nGRU-D\n\n2.41 (2.30–2.52)\n\n0.84 (0.80–0.88)\n\n81.2 (77.0–85.1)\n\n"
        "Gradient boosting\n\n2.66 (2.51–2.80)\n\n0.81 (0.77–0.85)\n\n78.4 (74.1–82.6)\n"
    )
    assert found(read_text(page)) == {
        ("GRU-D", "mae", 2.41),
        ("GRU-D", "auroc", 0.84),
        ("GRU-D", "specificity", 0.812),
        ("Gradient boosting", "mae", 2.66),
        ("Gradient boosting", "auroc", 0.81),
        ("Gradient boosting", "specificity", 0.784),
    }


def test_footnote_letters_run_into_names_and_misspelt_metrics_and_cut_off_statistics() -> None:
    text = (
        "| Statistic | CNN-ECGa | qSOFAb | NEWSc |\n|---|---|---|---|\n| AUCd | 0.81 | 0.66 | 0.70 |\n"
        "| Specifity (95%CI) | 0.77 | 0.52 | 0.58 |\n| Youden index | 0.41 | 0.18 | 0.25 |\n| LR+ | 2.9 | 1.3 | 1.6 |\n"
    )
    assert found(read_text(text)) == {
        ("CNN-ECG", "auc", 0.81),
        ("qSOFA", "auc", 0.66),
        ("NEWS", "auc", 0.7),
        ("CNN-ECG", "specificity", 0.77),
        ("qSOFA", "specificity", 0.52),
        ("NEWS", "specificity", 0.58),
    }


def test_interval_rows_under_a_spaced_header_of_metrics_and_a_list_of_abbreviations() -> None:
    text = (
        "Table 4.\n\nScores on the validation wards\n\nScoring System AUROC (95% CI) AUPRC (95% CI)\n"
        "PEWS 0.744 (0.731–0.757) 0.052 (0.047–0.058)\nNEWS:ML 0.812 (0.801–0.823) 0.088 (0.080–0.096)*\n\n"
        "Definition of abbreviations: PEWS = paediatric early warning score 2; ML = machine learning.\n"
    )
    assert found(read_text(text)) == {
        ("PEWS", "auroc", 0.744),
        ("PEWS", "auprc", 0.052),
        ("NEWS:ML", "auroc", 0.812),
        ("NEWS:ML", "auprc", 0.088),
    }


def test_a_sub_header_of_metrics_over_cohorts_in_rows_ending_with_an_empty_cell() -> None:
    text = (
        "Table 2.\nDiscrimination by cohort\n| Model | Training cohort | Test cohort | |||\n|---|---|---|---|---|---|\n"
        "| AUROC (95% CI) | Nagelkerke R-square (%) | AUROC (95% CI) | Hosmer-Lemeshow test | ||\n"
        "| SOFA-ML | 0.801 (0.790 to 0.812) | 21.4 | 0.784 (0.770 to 0.798) | 0.412 | |\n"
        "| qSOFA | 0.702 (0.689 to 0.715) | 9.8 | 0.695 (0.679 to 0.711) | 0.038 | |\n"
    )
    assert found(read_text(text)) == {
        ("SOFA-ML", "auroc", 0.801),
        ("SOFA-ML", "r2", 0.214),
        ("SOFA-ML", "auroc", 0.784),
        ("qSOFA", "auroc", 0.702),
        ("qSOFA", "r2", 0.098),
        ("qSOFA", "auroc", 0.695),
    }


def test_a_pass_mark_column_is_no_result_and_f1score_is_the_f1() -> None:
    text = (
        "| Model | Examination | Score | Pass mark | F1score |\n|---|---|---|---|---|\n"
        "| Claude 3 Opus | PLES 2023 | 71.5% | 60% | 0.70 |\n| Gemini 1.5 Pro | PLES 2023 | 66.0% | 60% | 0.65 |\n"
    )
    assert found(read_text(text)) == {
        ("Claude 3 Opus", "score", 0.715),
        ("Claude 3 Opus", "f1", 0.7),
        ("Gemini 1.5 Pro", "score", 0.66),
        ("Gemini 1.5 Pro", "f1", 0.65),
    }


def test_a_header_crossing_groups_with_measures_names_each_columns_measure() -> None:
    text = (
        "| Model | Adult Exact | Adult Within-1 | Pediatric Exact | Pediatric Within-1 |\n|---|---|---|---|---|\n"
        "| Qwen3-8B | 51.0% | 70.2% | 47.5% | 66.0% |\n| Llama-3.1-8B | 45.3% | 64.8% | 40.1% | 60.9% |\n"
    )
    assert found(read_text(text)) == {
        ("Qwen3-8B", "exact", 0.51),
        ("Qwen3-8B", "within-1", 0.702),
        ("Qwen3-8B", "exact", 0.475),
        ("Qwen3-8B", "within-1", 0.66),
        ("Llama-3.1-8B", "exact", 0.453),
        ("Llama-3.1-8B", "within-1", 0.648),
        ("Llama-3.1-8B", "exact", 0.401),
        ("Llama-3.1-8B", "within-1", 0.609),
    }


def test_footnote_letters_from_b_on_acronyms_whose_a_went_to_an_unread_header() -> None:
    text = (  # (the caption names the metric: a number no metric or benchmark names is no claim)
        "AUROC with 95% CI.\n\n"
        "| Score | Reintubation |\n|---|---|\n| SAPSb | 0.71 (0.69–0.73) |\n| OASISc | 0.74 (0.72–0.76) |\n"
        "| GBM-AKI | 0.79 (0.77–0.81) |\n"
    )
    assert {model for model, _, _ in found(read_text(text))} >= {"SAPS", "OASIS", "GBM-AKI"}


def test_rows_run_together_on_one_line_are_cut_at_the_headers_width() -> None:
    text = (
        "Table 2\n| Models | Accuracy | AUC |\n| Decision tree (DT) model | 0.81 | 0.77 | Gradient boosting (GB) model "
        "| 0.86 | 0.84 | Stacked ensemble (of DT and GB) | 0.88 | 0.87 |\n|\n"
    )
    record = read_text(text)
    assert found(record) == {
        ("Decision tree (DT) model", "accuracy", 0.81),
        ("Decision tree (DT) model", "auc", 0.77),
        ("Gradient boosting (GB) model", "accuracy", 0.86),
        ("Gradient boosting (GB) model", "auc", 0.84),
        ("Stacked ensemble (of DT and GB)", "accuracy", 0.88),
        ("Stacked ensemble (of DT and GB)", "auc", 0.87),
    }
    assert all("Accuracy" in c.evidence and c.evidence.count("|") < 12 for c in record.claims)  # its own row


def test_a_spaced_table_mixing_plain_values_and_intervals_is_read_by_its_header_of_several_word_terms() -> None:
    text = """Table 3. Discrimination of the models in the temporal validation cohort.

Model SD AUROC (95% CI) Brier score p value
LightGBM 0.021 0.871 (0.842–0.899) 0.061 0.003
APACHE IV 0.034 0.742 (0.701–0.780) 0.089 0.210

Values in brackets are 95% confidence intervals.
"""
    assert {claim for claim in found(read_text(text)) if claim[2] is not None} == {
        ("LightGBM", "auroc", 0.871),
        ("LightGBM", "brier", 0.061),
        ("APACHE IV", "auroc", 0.742),
        ("APACHE IV", "brier", 0.089),
    }


def test_two_runs_of_interval_rows_under_their_own_header_lines_share_the_caption_above_both() -> None:
    text = """Table 4.

C-statistic for predicting delirium and falls, with 95% CIs, in the external cohort (N = 8,204) for the bedside scores
and for the gradient boosting (GB) and elastic net (EN) models trained on routine ward data, each with the full set
of 212 candidate features and with the 30 features kept after selection, as described in the Methods section above.

Score Delirium Falls
NEWS 0.611 (0.590–0.633) 0.702 (0.671–0.731)
Braden 0.585 (0.561–0.607) 0.655 (0.622–0.690)
Model type Delirium Falls
GB full 0.811 (0.793–0.828) 0.774 (0.748–0.799)
EN reduced 0.774 (0.755–0.792) 0.741 (0.713–0.768)
"""
    claims = {claim for claim in found(read_text(text)) if claim[2] is not None}
    # a C-statistic of a binary outcome is its AUROC
    assert {("GB full", "auroc", 0.811), ("EN reduced", "auroc", 0.741), ("NEWS", "auroc", 0.611)} <= claims
    assert {claim[1] for claim in claims} == {"auroc"}


def test_a_footnote_letter_before_the_same_models_name_in_several_rows_is_taken_off() -> None:
    text = """| Model | Accuracy | AUROC |
|---|---|---|
| aRisk model | 0.71 | 0.80 |
| NEWS | 0.55 | 0.61 |
| bRisk model | 0.69 | 0.77 |

a Trained on the 2019 cohort. b Retrained on the 2021 cohort.
"""
    claims = {claim for claim in found(read_text(text)) if claim[2] is not None}
    assert ("Risk model", "accuracy", 0.71) in claims and ("Risk model", "auroc", 0.77) in claims
    assert not any(claim[0].startswith(("aRisk", "bRisk")) for claim in claims)


def test_a_lower_case_letter_that_is_part_of_a_name_stays() -> None:
    text = """| Score | AUROC |
|---|---|
| qSOFA | 0.66 |
| SOFA | 0.71 |
"""
    assert ("qSOFA", "auroc", 0.66) in found(read_text(text))


def test_a_spaced_table_with_blank_lines_group_labels_a_cutoff_column_and_lettered_names() -> None:
    text = """Table 2.

Performance of the POCDa models in older surgical patients.

Cohort and models AUROCb (95% CI) Cutoff Sensitivity (95% CI) PPVc (95% CI)
Derivation cohort

SVMd 0.701 (0.672-0.730) 0.412 0.655 (0.610-0.698) 0.301 (0.270-0.333)

CatBooste 0.812 (0.790-0.834) 0.388 0.774 (0.733-0.811) 0.402 (0.368-0.437)

GBMf 0.798 (0.775-0.821) 0.397 0.760 (0.718-0.799) 0.389 (0.355-0.424)

LRg 0.655 (0.625-0.685) 0.420 0.610 (0.563-0.655) 0.270 (0.240-0.301)

MLPh 0.744 (0.718-0.770) 0.401 0.702 (0.658-0.743) 0.333 (0.301-0.367)
Temporal validation cohort

SVM 0.688 (0.640-0.736) 0.412 0.641 (0.566-0.711) 0.290 (0.241-0.343)

CatBoost 0.803 (0.764-0.842) 0.388 0.752 (0.680-0.815) 0.395 (0.339-0.453)
"""
    claims = {claim for claim in found(read_text(text)) if claim[2] is not None}
    assert {
        ("SVM", "auroc", 0.701),
        ("CatBoost", "auroc", 0.812),
        ("CatBoost", "sensitivity", 0.774),
        ("GBM", "precision", 0.389),  # a PPV is a precision
        ("SVM", "auroc", 0.688),
        ("CatBoost", "precision", 0.395),
    } <= claims
    assert ("LR", "auroc", 0.655) in claims and ("MLP", "sensitivity", 0.702) in claims
    assert len(claims) == 21 and not any(claim[2] in (0.412, 0.388, 0.397) for claim in claims)  # no cut-off


def test_groups_of_interval_rows_after_a_row_of_p_values_go_on_under_the_first_groups_header() -> None:
    text = """Table 3.

Discrimination and calibration of the models in both sets

Sensitivity (95% CI) Specificity (95% CI) AUC (95% CI)
Derivation set
 Random forest 0.802 (0.771–0.833) 0.744 (0.712–0.776) 0.851 (0.829–0.873)
 SAPSII 0.611 (0.574–0.648) 0.702 (0.668–0.736) 0.688 (0.660–0.716)
 P value  < 0.001  0.041  < 0.001
Test set
 Random forest 0.781 (0.733–0.829) 0.730 (0.681–0.779) 0.832 (0.797–0.867)
 SAPSII 0.598 (0.540–0.656) 0.689 (0.636–0.742) 0.672 (0.628–0.716)
"""
    claims = {claim for claim in found(read_text(text)) if claim[2] is not None}
    assert {
        ("Random forest", "auc", 0.851),
        ("SAPSII", "auc", 0.688),
        ("Random forest", "sensitivity", 0.781),
        ("Random forest", "auc", 0.832),
        ("SAPSII", "specificity", 0.689),
        ("SAPSII", "auc", 0.672),
    } <= claims
    assert len(claims) == 12


def test_lettered_p_value_and_improvement_columns_are_no_results() -> None:
    text = """| Model | AUROC | Pb value | NRI | IDI |
|---|---|---|---|---|
| Risk score | 0.781 | 0.012 | 0.214 | 0.031 |
| NEWS | 0.702 | | | |
"""
    assert {claim for claim in found(read_text(text)) if claim[2] is not None} == {
        ("Risk score", "auroc", 0.781),
        ("NEWS", "auroc", 0.702),
    }
