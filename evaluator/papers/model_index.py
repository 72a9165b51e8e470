"""A Hugging Face card's `model-index` metadata, and the same results as the hub's page shows them. The metadata is
the hub's own format for a model's results (one `- name:` per model,
under it `results:`, each result a task, a dataset and a list of metrics with `type`, `value` and `name`). The Open
LLM Leaderboard's bot adds one to cards (biomistral_7b_dare_readme_pr2_open_llm_leaderboard_model_index.md,
doctorllm_chatdoctor_card_*, meditron_7b_chat_alpaca_card_*), and trainers write one for their fine-tunes. Read line
by line, without a YAML library, because copies lose what a parser needs: the indentation (a code view copied as a
one-column table, a bar on every line: medichat_llama3_8b_card_code_view_model_index.md) or the end (a stored copy
cut inside a metric). The page renders each metric as "<metric> [on <dataset>] self-reported <value>", often run
together when copied ("ROUGE-1self-reported39.409": sumedh_biomedical_text_summarization_*.md,
clinicalner_posos_*_model_card.md); those are the card's own model's results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evaluator.papers.record import ExtractedClaim
from evaluator.papers.table_shapes import not_a_score
from evaluator.papers.vocabulary import canonical_metric, read_value

_START = re.compile(r"(?m)^[ \t|]*model-index:[ \t]*\|?[ \t]*$")
# one line of the block: an optional list dash, a key and a value, and the bar a copied code view leaves at its end
_LINE = re.compile(r"^[ \t|]*(-[ \t]+)?([A-Za-z_][\w-]{0,40}):[ \t]*(.*?)[ \t]*\|?[ \t]*$")
_BLANK = re.compile(r"^[ \t|]*$")
# the leaderboard's shares are written on a 0-100 scale ("value: 58.28" for acc_norm); a share is a fraction
_SHARE = re.compile(r"^(?:acc\w*|accuracy|mc\d|exact[ _]match|em|f1\w*|pass@\d+)$", re.I)
_SHOTS = re.compile(r"^\d{1,3}$")
MAX_LINES = 5_000
_SELF_REPORTED = re.compile(
    r"(?m)^[ \t]*[-*•]?[ \t]*([^\n]{1,120}?)[ \t]*self-reported[ \t]*(-?\d{1,4}(?:\.\d{1,6})?)[ \t]*$"
)
_ON_DATASET = re.compile(r"^(.{1,60}?) on (?:the )?(.{1,80}?)(?: ?(?:test|validation|dev) ?(?:set|split))?$", re.I)
SELF_REPORTED = "read from the hub's rendering of the card's results (self-reported)"


@dataclass
class _Result:
    dataset: str | None = None
    dataset_type: str | None = None
    variant: list[str] = field(default_factory=list)
    shots: str | None = None


def model_index(text: str) -> tuple[list[ExtractedClaim], tuple[int, int]]:
    """The claims of the first `model-index` block in `text`, and where the block is written ((0, 0) if none)."""
    start = _START.search(text)
    if start is None:
        return [], (0, 0)
    claims: list[ExtractedClaim] = []
    model: str | None = None
    section = "model"
    result = _Result()
    metric: dict[str, str] = {}
    end = start.end()

    def flush() -> None:
        claim = _claim(model, result, metric, text[start.start() : end])
        if claim is not None:
            claims.append(claim)
        metric.clear()

    lines = text[start.end() :].split("\n", MAX_LINES)[:MAX_LINES]
    position = start.end()
    for line in lines:
        position += len(line) + 1
        if _BLANK.match(line):
            continue
        item = _LINE.match(line)
        if item is None or line.strip() == "---":
            break  # the block ends where the YAML does
        dash, key, value = bool(item.group(1)), item.group(2).lower(), item.group(3).strip("\"'")
        end = position
        if key in ("task", "dataset", "metrics", "source", "results", "args"):
            if key == "task":
                flush()
                result = _Result()
            section = key
            if key == "results" or not value:
                continue
        if section == "model" or (dash and key == "name" and section in ("results", "source")):
            if key == "name":  # "- name: BioMistral-7B-DARE", before its "results:"
                flush()
                model, section = value, "model"
            continue
        if section == "metrics":
            if dash and metric:
                flush()
            if key in ("type", "value", "name"):
                metric[key] = value
        elif section == "dataset" or section == "args":
            if key == "name":
                result.dataset = value
            elif key == "type":
                result.dataset_type = value
            elif key in ("config", "split"):
                result.variant.append(value)
            elif key == "num_few_shot" and _SHOTS.match(value):
                result.shots = f"{value}-shot"
    flush()
    return claims, (start.start(), end)


def card_results(text: str, start: int) -> tuple[list[ExtractedClaim], str]:
    """The results a card gives as metadata or as its page shows them, read from all of `text` (front matter
    included), and `text[start:]` with where they are written blanked out, so that they are not read again."""
    indexed, block = model_index(text)
    shown, places = self_reported(text)
    after = text[start:]
    for first, last in [block, *places]:
        first, last = max(first - start, 0), max(last - start, 0)
        after = after[:first] + re.sub(r"[^\n]", " ", after[first:last]) + after[last:]
    return indexed + shown, after


def self_reported(text: str) -> tuple[list[ExtractedClaim], list[tuple[int, int]]]:
    """The results a copied card page shows as "<metric> [on <dataset>] self-reported <value>", without a model (the
    card's own, named by the caller), and where each is written."""
    claims: list[ExtractedClaim] = []
    places: list[tuple[int, int]] = []
    for match in _SELF_REPORTED.finditer(text):
        label = match.group(1).strip()
        on = _ON_DATASET.match(label)
        kind, dataset = (on.group(1), on.group(2)) if on else (label, None)
        kind = re.sub(r"(?i)(?<=\w) score$", "", kind)  # "micro-F1 score"
        claim = _claim(None, _Result(dataset=dataset), {"type": kind, "value": match.group(2)}, match.group(0))
        if claim is not None and not (not_a_score(kind) or _LOGGED.search(kind)):
            claims.append(claim.model_copy(update={"notes": [SELF_REPORTED, *claim.notes[1:]]}))
            places.append(match.span())
    return claims, places


def of_the_card(claims: list[ExtractedClaim], text: str, subjects: list[str]) -> list[ExtractedClaim]:
    """The self-reported results as the results of the card's model: the repo the page's "Dataset used to train
    <org/name>" names, else the one model the text names as its subject."""
    trained = _TRAINED.search(text)
    model = trained.group(1) if trained else subjects[0] if len(subjects) == 1 else None
    if model is None:
        return claims
    return [
        c.model_copy(update={"model": model}) if c.model is None and SELF_REPORTED in c.notes else c for c in claims
    ]


# the page's side panel under the card: "Dataset used to train Posos/ClinicalNER"
_TRAINED = re.compile(r"(?m)^[ \t]*Datasets? used to train ([A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95})[ \t]*$")
# what a trainer logs beside its results that table_shapes.not_a_score does not name: steps, epochs, generated lengths
_LOGGED = re.compile(r"\b(?:steps|epochs?)\b|gen_len|\blen\b|length", re.I)


def _claim(model: str | None, result: _Result, metric: dict[str, str], block: str) -> ExtractedClaim | None:
    written = metric.get("value", "")
    kind = metric.get("type") or metric.get("name")
    if not written or not kind:
        return None
    name = canonical_metric(kind)
    reading = read_value(written, metric=name)
    if reading is None or reading.value is None:
        return None
    value, unit, notes = reading.value, reading.unit, ["read from a card's model-index metadata"]
    if unit is None and 1 < value <= 100 and _SHARE.match(kind):
        value, unit = round(value / 100, 6), "fraction"
        notes.append(f"{name} written on a 0-100 scale; divided by 100")
    dataset = result.dataset or result.dataset_type
    return ExtractedClaim(
        model=model,
        dataset=dataset[:300] if dataset else None,
        task_variant=" ".join(result.variant)[:500] or None,
        metric=name,
        value=value,
        raw_value=written[:100],
        unit=unit,
        setting=result.shots,
        evidence=block[:2000],
        notes=notes,
    )
