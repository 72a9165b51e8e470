"""Claims stated in sentences: "achieves 76.78% accuracy on the KMLE", "an AUROC of 0.94", "scoring an
average of 96.4 on the 2025 KMLE", or a result named without any number (its value stays null)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from evaluator.papers.record import ExtractedClaim
from evaluator.papers.vocabulary import (
    METRIC_PATTERN,
    canonical_metric,
    find_datasets,
    metric_of,
    read_value,
    settings_of,
    strip_markup,
)

MAX_SENTENCE = 1500
MAX_EVIDENCE = 600

_NUM = r"(?<![\w.,/-])(\d{1,3}(?:\.\d{1,6})?|0?\.\d{1,6})(?![\d])(?: ?(%|percent\b))?"
_METRIC = METRIC_PATTERN.pattern
_LINKS = (
    r"(?:(?:of|was|is|were|reached|reaching|reaches|achieved|achieving|at|about|approximately|around|up to) )"
    r"{0,2}"
)
_METRIC_THEN_NUMBER = re.compile(
    _METRIC + r"(?: score)?(?: ?[:=] ?| )" + _LINKS + r"(?:an? )?(?:(?:average|mean) (?:of )?)?" + _NUM, re.I
)
_NUMBER_THEN_METRIC = re.compile(_NUM + r" (?:(?:top-1|overall|mean|average|balanced) )?" + _METRIC, re.I)
_SCORE = re.compile(
    r"\bscor(?:e|es|ed|ing) (?:of )?(?:an? )?((?:average|mean|total) )?(?:of )?"
    + _NUM
    + r"(?: points| out of 100| ?/ ?100)?",
    re.I,
)
_PERCENT_ON = re.compile(r"(?<![\w.,/-])(\d{1,3}(?:\.\d{1,6})?) ?(?:%|percent\b) on\b", re.I)
_CLAIM_VERB = re.compile(
    r"\b(?:achiev|reach|attain|obtain|scor|outperform|surpass|exceed|improv|match)\w{0,6}"
    r"|state[- ]of[- ]the[- ]art",
    re.I,
)
_YEAR_BEFORE = re.compile(r"\b((?:19|20)\d\d) (?:the )?$")
# model-like tokens: letters then a digit ("GPT-4o", "Qwen3-8B") or camel case ("MedGemma"); all-caps
# acronyms (SNUH, IOH) are not taken for models
_MODEL_TOKEN = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z]{0,20}-?\d[\w.-]{0,30}|[A-Z][a-z]{1,20}[A-Z][\w.-]{0,30})")
_NOT_MODELS = frozenset({"covid-19", "sars-cov-2", "top-1", "top-5", "mp4", "h1", "h2"})
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"\u201c\u2018(\[*])")
_OUR_MODEL = re.compile(r"\b(?:our|the proposed) (?:\w{1,20} ){0,2}(?:model|method|system|LLM)\b", re.I)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]{0,8}(?:[-*+\u2022]|\d{1,2}[.)]|#{1,6}) )")
_RESULT_HINT = re.compile(METRIC_PATTERN.pattern + r"|%|percent|scor", re.I)


@dataclass(frozen=True)
class ProseContext:
    """What the sentence reader needs to know about the whole document."""

    subjects: list[str]
    known_models: list[str]
    ioh_variant: str | None = None
    ignore_tokens: set[str] = field(default_factory=set)


def sentences(text: str, *, only_results: bool = False) -> Iterator[str]:
    """Sentences of a text: paragraphs re-joined across line breaks (PDF lines), bullets and headings kept
    apart, then split after . ! ? followed by a capital, a digit or a quote. With `only_results`, paragraphs
    that name no metric, score or percentage are skipped (one regex pass each, no Python loop per line)."""
    for paragraph in _PARAGRAPH_BREAK.split(text):
        if paragraph.strip() and (not only_results or _RESULT_HINT.search(paragraph)):
            yield from _split(paragraph)


def _split(paragraph: str) -> Iterator[str]:
    """Sentences of one paragraph; an over-long run without sentence ends is cut into bounded pieces so that
    the work per claim stays bounded."""
    plain = strip_markup(paragraph)
    for sentence in _SENTENCE_END.split(plain):
        for offset in range(0, len(sentence), MAX_SENTENCE):
            yield sentence[offset : offset + MAX_SENTENCE]


def sentence_claims(sentence: str, context: ProseContext) -> list[ExtractedClaim]:
    """The claims one sentence states."""
    metrics = [(match.start(), canonical_metric(match.group(1))) for match in METRIC_PATTERN.finditer(sentence)]
    lowered = sentence.lower()
    score = "scor" in lowered
    percent = "%" in sentence or "percent" in lowered
    if not (metrics or score or percent):
        return []  # most sentences state no result: one pass decides
    mentions = _metric_mentions(sentence, metrics=bool(metrics), score=score, percent=percent)
    if not mentions:
        return _claims_without_numbers(sentence, context, metrics) if metrics else []
    return [
        _claim(sentence, context, start=start, metric=metric, raw=raw, score=score)
        for start, metric, raw, score in mentions
    ]


def _claims_without_numbers(
    sentence: str, context: ProseContext, metrics: list[tuple[int, str]]
) -> list[ExtractedClaim]:
    """A result stated without a number ("achieves state-of-the-art accuracy on ClinicalQA"): one claim per
    dataset named after a metric, value null."""
    if not _CLAIM_VERB.search(sentence):
        return []
    claims: dict[str, ExtractedClaim] = {}
    for position, dataset in find_datasets(sentence):
        before = [metric for start, metric in metrics if start < position]
        if before and dataset.key not in claims:
            claims[dataset.key] = _claim(sentence, context, start=max(0, position - 1), metric=before[-1], raw=None)
    return list(claims.values())


def _metric_mentions(
    sentence: str, *, metrics: bool, score: bool, percent: bool
) -> list[tuple[int, str | None, str, bool]]:
    """(position of the number, metric, number as written, is a score) for each number given with a metric.
    Patterns whose key word the sentence lacks are not run."""
    found: dict[int, tuple[int, str | None, str, bool]] = {}
    for pattern in (_METRIC_THEN_NUMBER, _NUMBER_THEN_METRIC) if metrics else ():
        for match in pattern.finditer(sentence):
            metric_group, number_group = (1, 2) if pattern is _METRIC_THEN_NUMBER else (3, 1)
            start = match.start(number_group)
            raw = match.group(number_group) + (match.group(number_group + 1) or "")
            found.setdefault(start, (start, canonical_metric(match.group(metric_group)), raw, False))
    for match in _SCORE.finditer(sentence) if score else ():
        if match.group(3):  # "scored 61.0%": a percentage, not a score on its own scale
            found.setdefault(match.start(2), (match.start(2), metric_of(sentence), match.group(2) + "%", False))
        else:
            metric = "average score" if match.group(1) else "score"
            found.setdefault(match.start(2), (match.start(2), metric, match.group(2), True))
    for match in _PERCENT_ON.finditer(sentence) if percent else ():
        found.setdefault(match.start(1), (match.start(1), metric_of(sentence), match.group(0)[:-3].strip(), False))
    return [found[key] for key in sorted(found)]


def _claim(
    sentence: str,
    context: ProseContext,
    *,
    start: int,
    metric: str | None,
    raw: str | None,
    score: bool = False,
) -> ExtractedClaim:
    notes: list[str] = []
    value = unit = None
    if raw is None:
        stated = any(character.isdigit() for character in sentence)
        notes.append("no number read as this result's value" if stated else "no number stated")
    else:
        reading = read_value(raw, metric=metric, score=score)
        if reading is not None:
            value, unit = reading.value, reading.unit
            if reading.note:
                notes.append(reading.note)
    dataset, variant = _dataset_near(sentence, start)
    model, model_note = _model_for(sentence, start, context)
    if model_note:
        notes.append(model_note)
    if dataset is None and context.ioh_variant and metric in ("auroc", "auprc", "auc", "accuracy", None):
        variant = context.ioh_variant
    return ExtractedClaim(
        model=model,
        dataset=dataset,
        task_variant=variant,
        metric=metric,
        value=value,
        raw_value=raw,
        unit=unit,
        setting=settings_of(sentence),
        evidence=_clip(sentence, start),
        notes=notes,
    )


def _dataset_near(sentence: str, start: int) -> tuple[str | None, str | None]:
    """The dataset named nearest after the number (else nearest before), and an exam year just before it."""
    found = find_datasets(sentence)
    if not found:
        return None, None
    after = [item for item in found if item[0] >= start]
    position, dataset = after[0] if after else found[-1]
    year = _YEAR_BEFORE.search(sentence[max(0, position - 12) : position])
    return dataset.display, year.group(1) if year else None


def _model_for(sentence: str, start: int, context: ProseContext) -> tuple[str | None, str | None]:
    """The known model named nearest before the number; else the document's only subject model, unless the
    sentence names some other model-like token (then nobody: attribution is not guessed)."""
    lowered = sentence.lower()
    best: tuple[int, str] | None = None
    for name in context.known_models:
        for alias in {name, name.rsplit("/", 1)[-1]}:
            position = lowered.rfind(alias.lower(), 0, start + len(alias) + 1)
            if position >= 0 and (best is None or position > best[0]):
                best = (position, name)
    if best is not None:
        return best[1], None
    if len(context.subjects) == 1 and _OUR_MODEL.search(sentence):
        return context.subjects[0], "'our model' read as the document's model"
    strangers = [
        token.rstrip(".-")
        for token in _MODEL_TOKEN.findall(sentence)
        if token.lower() not in _NOT_MODELS | context.ignore_tokens
        and not find_datasets(token)
        and not metric_of(token)
    ]
    before = [token for token in strangers if sentence.find(token) < start]
    if before:
        return before[-1], f"attributed to {before[-1]!r}, the model-like name nearest before the number"
    if strangers:
        return None, f"not attributed: the sentence names {strangers[0]!r}, which is not a known model here"
    if len(context.subjects) == 1:
        return context.subjects[0], "model not named in the sentence; attributed to the document's model"
    return None, "model not named"


def _clip(sentence: str, start: int) -> str:
    if len(sentence) <= MAX_EVIDENCE:
        return sentence
    left = max(0, start - MAX_EVIDENCE // 2)
    return sentence[left : left + MAX_EVIDENCE]
