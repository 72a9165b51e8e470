"""How a text defines intraoperative hypotension: MAP threshold and comparison, how long it must last, the
prediction horizon, the data source and the split. Used to describe IOH claims and to decide whether they
are the same task as a BenchToward IOH task."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator.papers.vocabulary import DATASET_BY_KEY, strip_markup

# Found from the rare end ("65 mmHg") backwards, so the cost stays linear with a small constant: the
# comparison must end right before the number and MAP must be named earlier in the same sentence.
_PRESSURE = re.compile(r"(?<![\d.])(\d{2,3}) ?mm ?Hg", re.I)
_COMPARISON_BEFORE = re.compile(r"(≤|<=|=<|<|≥|>=|>|\bbelow|\bunder|\bless than|\blower than|\bat most) ?$", re.I)
_MAP_NAMED = re.compile(r"\bMAP\b|mean arterial (?:blood )?pressure", re.I)
MAX_LOOK_BACK = 170
_SINGLE = re.compile(
    r"at least one [^.]{0,80}?(?:measurement|reading|value|sample)|\bany (?:single )?(?:MAP )?"
    r"(?:measurement|reading|value|sample)",
    re.I,
)
_DURATION = re.compile(
    r"(?:\bfor\b|\blasting\b|\bsustained\b|\bpersist\w{0,4}|≥|>=|\bat least\b|\bmore than\b|\blonger than\b)"
    r"[^.\d]{0,20}?(\d{1,3}) ?(seconds?|secs?|s|minutes?|mins?)(?![\w])",
    re.I,
)
_HORIZON = (
    re.compile(r"(\d{1,2}) ?-?min(?:ute)?s?[- ](?:prediction |forecast(?:ing)? |early[- ]warning )?horizon", re.I),
    re.compile(r"horizon of (\d{1,2}) ?min", re.I),
    re.compile(r"(?:in|within) the (?:next|following|subsequent) (\d{1,2}) ?min", re.I),
    re.compile(r"(\d{1,2}) ?min(?:ute)?s? (?:before|ahead|in advance|prior to)", re.I),
)
_SPLIT = re.compile(
    r"patient[- ]level (?:cross[- ]validation|split(?:ting)?|partition(?:ing)?)|(?:\d{1,2}-fold )?"
    r"cross[- ]validation|random(?:ly)? split",
    re.I,
)
_HORIZON_WORDS = re.compile(r"\b(?:next|following|subsequent|ahead|upcoming)\b", re.I)
_COMPARISONS = {
    "≤": "≤",
    "<=": "≤",
    "=<": "≤",
    "at most": "≤",
    "<": "<",
    "below": "<",
    "under": "<",
    "less than": "<",
    "lower than": "<",
    "≥": "≥",
    ">=": "≥",
    ">": ">",
}


@dataclass(frozen=True)
class HypotensionDefinition:
    """The pieces of an IOH task definition a text states (None where it does not say)."""

    threshold_mmhg: int | None = None
    comparison: str | None = None
    min_duration_s: int | None = None  # 0: a single measurement is enough
    horizon_min: int | None = None
    data: str | None = None
    split: str | None = None

    def describe(self) -> str:
        """A short description such as "event: at least one MAP ≤ 65 mmHg; horizon 5 min"."""
        parts = ["intraoperative hypotension prediction"]
        if self.horizon_min is not None:
            parts.append(f"horizon {self.horizon_min} min")
        if self.threshold_mmhg is not None:
            event = f"MAP {self.comparison or '?'} {self.threshold_mmhg} mmHg"
            if self.min_duration_s == 0:
                event = f"at least one {event} in the window"
            elif self.min_duration_s is not None:
                event = f"{event} for ≥ {self.min_duration_s} s"
            parts.append(f"event: {event}")
        if self.split:
            parts.append(self.split)
        return "; ".join(parts)


def read_definition(text: str) -> HypotensionDefinition:
    """The hypotension definition stated in `text` (pieces it does not state are None)."""
    plain = strip_markup(text)
    threshold = comparison = duration = None
    found = _threshold(plain)
    if found:
        written, threshold, start, end = found
        comparison = _COMPARISONS.get(written.lower(), written)
        duration = _duration(_sentence_around(plain, start, end), plain[end : end + 200])
    horizon = None
    for pattern in _HORIZON:
        stated = pattern.search(plain)
        if stated:
            horizon = int(stated.group(1))
            break
    split = _SPLIT.search(plain)
    data = DATASET_BY_KEY["vitaldb"].display if DATASET_BY_KEY["vitaldb"].pattern.search(plain) else None
    return HypotensionDefinition(
        threshold_mmhg=threshold,
        comparison=comparison,
        min_duration_s=duration,
        horizon_min=horizon,
        data=data,
        split=split.group(0).lower() if split else None,
    )


def _threshold(plain: str) -> tuple[str, int, int, int] | None:
    """(comparison as written, mmHg, start, end) of the first "MAP ... < 65 mmHg" in one sentence."""
    for match in _PRESSURE.finditer(plain):
        before = plain[max(0, match.start() - MAX_LOOK_BACK) : match.start()]
        comparison = _COMPARISON_BEFORE.search(before[-20:])
        sentence_start = before.rfind(". ") + 1
        named = _MAP_NAMED.search(before, sentence_start)
        if comparison and named:
            start = match.start() - len(before) + named.start()
            return comparison.group(1), int(match.group(1)), start, match.end()
    return None


def _duration(sentence: str, after: str) -> int | None:
    if _SINGLE.search(sentence):
        return 0
    for found in _DURATION.finditer(after):
        if _HORIZON_WORDS.search(found.group(0)):  # "for the next 5 minutes" is a horizon, not a duration
            continue
        amount, unit = int(found.group(1)), found.group(2).lower()
        return amount * 60 if unit.startswith("min") else amount
    return None


def _sentence_around(text: str, start: int, end: int) -> str:
    left = text.rfind(". ", max(0, start - 400), start)
    right = text.find(". ", end, end + 400)
    return text[left + 1 if left >= 0 else max(0, start - 400) : right if right >= 0 else end + 400]
