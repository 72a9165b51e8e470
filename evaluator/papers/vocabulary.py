"""Known names the rule-based reader recognises: datasets and their subsets, metrics, settings, and the
normalisation of a written number into a value and unit.

Every pattern here is bounded (no nested or unbounded overlapping quantifiers), so matching stays linear in
the length of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from evaluator.papers.measures import metrics_in
from evaluator.papers.record import Unit


@dataclass(frozen=True)
class DatasetName:
    """A dataset the reader knows by name."""

    key: str
    display: str
    pattern: re.Pattern[str]


DATASETS: tuple[DatasetName, ...] = (
    DatasetName("clinicalqa", "ClinicalQA", re.compile(r"(?<![\w-])(?:snuh/)?ClinicalQA(?![\w-])", re.I)),
    DatasetName("kormedmcqa", "KorMedMCQA", re.compile(r"(?<![\w-])(?:sean0042/)?KorMedMCQA(?!\w)", re.I)),
    DatasetName(
        "kmle",
        "KMLE",
        re.compile(r"(?<![\w-])KMLE(?!\w)|Korean Medical Licens(?:ing|ure|e) Exam(?:ination)?", re.I),
    ),
    DatasetName("medqa", "MedQA", re.compile(r"(?<![\w-])MedQA(?:-USMLE)?(?![\w])", re.I)),
    DatasetName("vitaldb", "VitalDB", re.compile(r"(?<![\w-])VitalDB(?!\w)", re.I)),
)
DATASET_BY_KEY = {dataset.key: dataset for dataset in DATASETS}

IOH_PATTERN = re.compile(r"intra-?operative hypotension|(?<![\w-])IOH(?!\w)", re.I)

KORMEDMCQA_SUBSETS = {
    "doctor": "doctor",
    "nurse": "nurse",
    "pharm": "pharm",
    "pharmacist": "pharm",
    "dentist": "dentist",
}
_SUBSET_PATTERN = re.compile(r"^(doctor|nurse|pharm|pharmacist|dentist)s?$", re.I)

BOUNDED_METRICS = frozenset(
    {
        "auroc",
        "auprc",
        "auc",
        "accuracy",
        "balanced accuracy",
        "f1",
        "sensitivity",
        "specificity",
        "precision",
        "npv",
        "ppv",
        "recall",
        "exact match",
        "brier",
        "reproducibility",
    }
)

_SHOT = re.compile(r"(?<![\w-])(\d{1,2})[- ]?shots?(?!\w)|(zero|one|few)[- ]?shots?(?!\w)", re.I)
_COT = re.compile(r"(?<![\w-])(?:CoT|chain[- ]of[- ]thought)(?!\w)", re.I)
_NUMBER = re.compile(r"^[(\[]?([-+]?(?:\d{1,9}(?:\.\d{1,9})?|\.\d{1,9}))\s?(%)?")
_MARKUP = re.compile(r"[*_`~]{1,3}")
# not the level of an interval: "Accuracy (95%CI)" says nothing of the values' scale (postop_aki_*_table2_pmc.md)
_PERCENT_HINT = re.compile(r"%(?! ?(?:CI|confidence|credible|C\.I\.))|percent", re.I)


def resolve_dataset(name: str | None) -> DatasetName | None:
    """The known dataset a written name refers to (the first named), if any."""
    if not name:
        return None
    found = [(m.start(), d) for d in DATASETS for m in [d.pattern.search(name)] if m is not None]
    return min(found, key=lambda item: item[0])[1] if found else None


def subset_of(label: str) -> str | None:
    """The KorMedMCQA subset a row or column label names (doctor, nurse, pharm, dentist)."""
    match = _SUBSET_PATTERN.match(strip_markup(label))
    return KORMEDMCQA_SUBSETS[match.group(1).lower()] if match else None


def canonical_metric(written: str) -> str:
    """The canonical name of a written metric ("AUC-ROC" -> "auroc", "정답률" -> "accuracy"), else it in lower case."""
    found = metrics_in(written.strip())
    if len(found) == 1 and found[0][0] == 0 and found[0][1] == len(written.strip()):
        return found[0][2]
    return written.strip().lower()


def settings_of(text: str) -> str | None:
    """Evaluation settings named in `text` ("5-shot", "zero-shot", "CoT"), joined, or None."""
    found: list[str] = []
    for match in _SHOT.finditer(text):
        if match.group(1) is not None:
            shots = int(match.group(1))
            label = "zero-shot" if shots == 0 else f"{shots}-shot"
        else:
            label = match.group(2).lower() + "-shot"
        if label not in found:
            found.append(label)
    if _COT.search(text):
        found.append("CoT")
    return ", ".join(found) if found else None


def strip_markup(text: str) -> str:
    """Text without Markdown emphasis and code marks, whitespace collapsed."""
    return " ".join(_MARKUP.sub("", text).split())


@dataclass(frozen=True)
class Reading:
    """A number as read: the normalised value, its unit and any caveat."""

    value: float | None
    unit: Unit | None
    note: str | None = None


def parse_number(raw: str) -> tuple[Decimal, bool] | None:
    """The leading number of a cell or phrase and whether a % sign follows it; None if there is none."""
    match = _NUMBER.match(strip_markup(raw).replace(",", ""))
    if not match:
        return None
    try:
        return Decimal(match.group(1)), match.group(2) is not None
    except InvalidOperation:
        return None


# A discrimination result is an area under a ROC curve or a concordance: 0.5 is chance, and a model reported below
# 0.4 would be worse than guessing the other way. Of the corpus's 1,112 gold AUROC/AUC/C-index results none is below
# 0.48, while what a reader meets below 0.4 after such a metric is a spread ("0.821 +/- 0.011"), a gap between two
# AUROCs ("an AUC gap of 0.0313"), a bound or a zero placeholder ("0.00 AUC-ROC Performance").
DISCRIMINATION_METRICS = frozenset({"auroc", "auc", "c-index"})
LOWEST_DISCRIMINATION = 0.4

# a rate is a share whatever it counts: "win rate", "pass rate", "hallucination rate" (medical_llama2_gpt4_judge_*.md)
_A_SHARE = re.compile(r"\brates?\b|\bpercentage\b")


def read_value(raw: str, *, metric: str | None, percent_hint: bool = False, score: bool = False) -> Reading | None:
    """Normalise a written number: "76.78%" -> 0.7678 (fraction); "0.7678" stays; a bounded metric written
    as 1..100 is a percentage; a score stays as written. Out-of-range numbers are kept only as raw text."""
    parsed = parse_number(raw)
    if parsed is None:
        return None
    number, has_percent = parsed
    if score:
        return Reading(float(number), "score")
    if has_percent:
        if not 0 <= number <= 100:
            return Reading(None, None, f"{raw.strip()} is not a percentage between 0 and 100")
        return Reading(float(number / 100), "fraction")
    if metric in DISCRIMINATION_METRICS and (number / 100 if number > 1 else number) < Decimal(
        str(LOWEST_DISCRIMINATION)
    ):
        return Reading(None, None, f"{raw.strip()} is below what a {metric} result can be: a spread, a gap or a bound")
    if metric in BOUNDED_METRICS or (metric and _A_SHARE.search(metric)):
        if 0 <= number <= 1:
            note = "labelled as a percentage but written as a fraction; read as a fraction" if percent_hint else None
            return Reading(float(number), "fraction", note)
        if 1 < number <= 100:
            return Reading(float(number / 100), "fraction", f"{metric} written on a 0-100 scale; divided by 100")
        return Reading(None, None, f"{raw.strip()} is out of range for {metric}")
    if percent_hint and 0 <= number <= 100:
        return Reading(float(number / 100), "fraction", "labelled as a percentage; divided by 100")
    return Reading(float(number), None)


def has_percent_hint(text: str) -> bool:
    return _PERCENT_HINT.search(text) is not None
