"""Claims a text states twice are one: a headline that restates a table cell, a summary table that restates the
cells above it without their metric, the same result written again with more decimals in another table. Used by
rules.py once every claim of a text is read."""

from __future__ import annotations

import re

from evaluator.papers.record import ExtractedClaim
from evaluator.papers.scoring import words


def unique_claims(claims: list[ExtractedClaim]) -> list[ExtractedClaim]:
    """One claim per model, metric, value and setting (but for a value written twice in one sentence): a headline
    often restates a table cell, and a summary table
    restates the cells above it without their metric (multi_llm_ensemble_final_results.md): a claim with no metric
    or dataset of its own is the same as an earlier one of the same model and value that agrees where it says."""
    seen: dict[tuple[object, ...], str] = {}
    out: list[ExtractedClaim] = []
    # the earlier claims a claim could restate: those of its value, and those of its model and metric (so that a
    # text of thousands of claims is not compared pairwise)
    by_value: dict[float | None, list[ExtractedClaim]] = {}
    by_model: dict[tuple[frozenset[str], str | None], list[ExtractedClaim]] = {}
    for claim in claims:
        metric = "auroc" if claim.metric == "auc" else claim.metric  # "AUC: 0.8423" and "AUC-ROC: 0.8423" are one
        key = (words(claim.model), claim.dataset, metric, claim.value, claim.task_variant, claim.setting)
        # but one sentence that writes a value twice states two results: "0.923 (95% CI, ...) 5 min in advance,
        # 0.933 (...) versus 0.923 (...) 10 min in advance" (hpi_forward_backward_anesthesiology_abstract.md)
        again = seen.get(key) == claim.evidence and not claim.evidence.startswith("|")
        same_model = by_model.get((words(claim.model), claim.metric), [])
        if (key not in seen or again) and not (
            any(_restates(claim, earlier) for earlier in by_value.get(claim.value, []))
            or any(_more_digits(claim, earlier) for earlier in same_model)
        ):
            seen[key] = claim.evidence
            out.append(claim)
            by_value.setdefault(claim.value, []).append(claim)
            by_model.setdefault((words(claim.model), claim.metric), []).append(claim)
    return out


def _more_digits(claim: ExtractedClaim, earlier: ExtractedClaim) -> bool:
    """The same result written again with more decimals in another table: "| No-Hypotension | 0.821 |" and later
    "| AUROC | 0.9248 | 0.8207 |" (icu_admission_febrile_oncology_xgboost_no_hypotension_report.md)."""
    if claim.value is None or earlier.value is None or claim.value == earlier.value or claim.metric != earlier.metric:
        return False
    if claim.metric is None or words(claim.model) != words(earlier.model) or claim.setting != earlier.setting:
        return False
    if claim.evidence.split("\n", 1)[0] == earlier.evidence.split("\n", 1)[0]:
        return False  # two cells of one table are two results
    places = [len(v.split(".")[1]) if "." in v else 0 for v in (_digits(claim), _digits(earlier))]
    fewer = min(places)
    return 2 <= fewer < max(places) and round(claim.value, fewer) == round(earlier.value, fewer)


def _digits(claim: ExtractedClaim) -> str:
    found = re.search(r"\d+(?:\.\d+)?", claim.raw_value or "")
    return found.group(0) if found else ""


def _restates(claim: ExtractedClaim, earlier: ExtractedClaim) -> bool:
    """Whether `claim`, without a metric or with the same one and nothing more, is `earlier` again, written
    elsewhere: the same value of the same model ("LLaMA-2" is "LLaMA-2 (Purdue)"), on the same or an unnamed
    dataset, in the same or an unnamed setting."""
    mine, theirs = words(claim.model), words(earlier.model)
    if claim.value is None or claim.value != earlier.value or not (mine and theirs):
        return False
    same = {claim.metric, earlier.metric} <= {"auc", "auroc"} or claim.metric == earlier.metric
    if claim.metric is not None and (not same or claim.task_variant or claim.setting):
        # with a metric: a sentence that restates a table cell ("TCN achieves the highest ROC-AUC (0.674)" below
        # "| TCN | 0.674 ± 0.104 |": vitaldb_aki_tcn_gru_lstm_5fold_results_summary.md) says no more than it
        return False
    if claim.evidence.split("\n", 1)[0] == earlier.evidence.split("\n", 1)[0]:
        return False  # two cells of one table (its header line starts their evidence) are two results
    settings_differ = None not in (claim.setting, earlier.setting) and claim.setting != earlier.setting
    if not (mine <= theirs or theirs <= mine) or settings_differ:
        return False
    here, there = (claim.dataset or "").lower(), (earlier.dataset or "").lower()
    return not here or not there or here in there or there in here
