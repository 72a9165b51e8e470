"""The metric of a value in a sentence: the one named nearest before it in its clause, or right after it, or the one
a model "achieved" where the sentence names one; and which metric words are not metrics because they are a word of a
model's name. Used by claims.py for every value it reads from prose."""

from __future__ import annotations

import re

from evaluator.papers.measures import metrics_in
from evaluator.papers.numbers import POINTS

_BRACKETED = re.compile(r"\([^()]{0,200}\)")
_SCORED_VERB = re.compile(r"scored|scoring", re.I)


_ACHIEVED = re.compile(r"\b(?:achieved|scored|reached|attained|obtained)(?: an?| the)? $", re.I)


def achieved_metric(sentence: str, start: int, metrics: list[tuple[int, int, str]]) -> str | None:
    """A percentage a model achieved, where the sentence names one metric elsewhere: "ChatGPT and Gemini both
    achieved 91%, while Le Chat had the lowest accuracy at 79%" (blood_physiology_mcq_six_llms_*.md)."""
    kinds = {name for _, _, name in metrics if name != "score"}
    if len(kinds) != 1 or not _ACHIEVED.search(sentence[max(0, start - 16) : start]):
        return None
    return kinds.pop() if re.match(r"\d{1,3}(?:\.\d{1,2})? ?%", sentence[start : start + 8]) else None


def not_in_names(metrics: list[tuple[int, int, str]], spans: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The metrics that are not a word of a model's name: "AUCs for the Baux score and revised Baux score were 0.85
    and 0.84" (burn_icu_*.md), "0.652 for Ranson score, and 0.401 for SOFA score" (acute_pancreatitis_*.md)."""
    kept = [m for m in metrics if not any(s <= m[0] < e for s, e in spans)]
    named = [m for m in kept if m[2] == "score" and any(0 <= m[0] - e <= 1 for _, e in spans)]
    others = [m for m in kept if m[2] != "score"]
    return [m for m in kept if m not in named] if others else kept


# (in Korean each value may follow its model and particle: "DeepSeek R1은 40%, O3 Mini는 20%의 정확도": the models are
# found apart, so the text between may hold a name and its particle)
_VALUES_BETWEEN = re.compile(
    r"(?: ?%?,? (?:and |or )?(?:[A-Za-z][\w .-]{0,30}[은는이가] )?-?\d{1,3}(?:\.\d{1,4})?){1,8} ?%? ?(?:의 )?"
)


# a metric with a value of its own after it: "AUROCs of 92.0 (balanced accuracy of 82.3)" (xmi_icu_*_abstract.md)
_OWN_VALUE = re.compile(r" ?(?:of|was|=|:) ?\d")
_VALUE_KEY = re.compile(r"^(?:values?|scores?|results?|mean|average|avg|overall|total)$", re.I)
_KEY_BEFORE = re.compile(r"(?<![\w-])([A-Za-z][\w²³-]{0,30}) ?[:=] ?$")  # "max_new_tokens: 15" too


def metric_for(sentence: str, start: int, end: int, metrics: list[tuple[int, int, str]]) -> str | None:
    """The metric named nearest before the value in its clause, else right after it ("66.18% accuracy"); a value
    in points is a score."""
    if in_points(sentence, end):
        return "score"
    percent = "%" in sentence[end - 1 : end + 2]
    right_after = percent and any(m[0] >= end and re.fullmatch(r" ?%? ?", sentence[end : m[0]]) for m in metrics)
    label = _KEY_BEFORE.search(sentence[max(0, start - 36) : start])
    if label and not right_after and not metrics_in(label.group(1)) and not _VALUE_KEY.match(label.group(1)):
        # "R² = 0.36", "CCC = 0.91": a measure the vocabulary does not hold labels the value; but a label followed
        # by a percentage and its metric names a subset: "Breast cancer: 98.8% accuracy" (medscan_pro_*_blog.md)
        return None
    # a semicolon ends the metric's clause, but not one inside brackets: "(0.825; 95% CI: 0.790-0.860), random forest
    # (0.848; ...)" (postop_30day_mortality_multipath_cnn_acemap_abstract.md)
    before = [m for m in metrics if m[1] <= start and ";" not in _BRACKETED.sub("", sentence[m[1] : start])]
    # "66.18% accuracy"; "61.2%, 55.0% and 70.4% F1 score": a list of values before one metric
    after = [
        m for m in metrics if m[0] >= end and (m[0] - end <= 12 or _VALUES_BETWEEN.fullmatch(sentence[end : m[0]]))
    ]
    if (
        after
        # "66.18% accuracy", "0.85 (AUROC", "66.9%의 민감도" (skin_cancer_43_conditions_*_ko.md), "98.79 ± 0.53%
        # accuracy, 98.72 ± 0.77% sensitivity" (pediatric_seizure_sdcae_*_abstract.md)
        and (not before or re.match(r"^(?: ?± ?\d{1,3}(?:\.\d{1,4})?)? ?%? ?(?:의 )?\(?$", sentence[end : after[0][0]]))
        and not _OWN_VALUE.match(sentence, after[0][1])
    ):
        # an accuracy glossed by the measure meant: "85%의 정확도(AUROC)" (vuno_dews_cardiac_arrest_*_ko.md)
        gloss = next(
            (m for m in metrics if m[0] > after[0][1] and re.fullmatch(r" ?\(", sentence[after[0][1] : m[0]])), None
        )
        return gloss[2] if gloss and after[0][2] == "accuracy" else after[0][2]
    if (
        len(before) >= 2
        and _SCORED_VERB.fullmatch(sentence[before[-1][0] : before[-1][1]])
        and "%" in sentence[end - 1 : end + 1]
    ):
        # a percentage after "scored" is the metric named before it: "achieved the highest accuracy (89.3%), ... while
        # OpenBioLLM and DeepSeek-V3 scored the lowest (78.2% ...)" (usmle_seven_llms_amboss_turkmedstudj_*.md); but
        # "scoring an average of 96.4" is a score (kmed_ai_snuh_naver_news.md)
        return before[-2][2]
    if before:
        return before[-1][2]
    return None


def in_points(sentence: str, end: int) -> bool:
    """Whether the value ending at `end` is written in points ("235.5점"): a score."""
    return POINTS.match(sentence[end : end + 8]) is not None
