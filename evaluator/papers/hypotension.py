"""How a text defines intraoperative hypotension: MAP threshold and comparison, how long it must last, the
prediction horizon, the data source and the split. Used to describe IOH claims and to decide whether they
are the same task as a BenchToward IOH task."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator.papers.vocabulary import DATASET_BY_KEY, strip_markup

_THRESHOLD = re.compile(
    r"(?:\bMAP\b|mean arterial (?:blood )?pressure)[^.]{0,150}?"
    r"(≤|<=|=<|<|≥|>=|>|\bbelow\b|\bunder\b|\bless than\b|\blower than\b|\bat most\b)"
    r" ?(\d{2,3}) ?mm ?Hg",
    re.I,
)
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
    re.compile(
        r"(\d{1,2}) ?-?min(?:ute)?s?[- ](?:prediction |forecast(?:ing)? |early[- ]warning )?horizon", re.I
    ),
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
    match = _THRESHOLD.search(plain)
    if match:
        comparison = _COMPARISONS.get(match.group(1).lower(), match.group(1))
        threshold = int(match.group(2))
        sentence = _sentence_around(plain, match.start(), match.end())
        duration = _duration(sentence, plain[match.end() : match.end() + 200])
    horizon = None
    for pattern in _HORIZON:
        found = pattern.search(plain)
        if found:
            horizon = int(found.group(1))
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
