"""A Hugging Face card's `model-index` metadata: the hub's own format for a model's results (one `- name:` per model,
under it `results:`, each result a task, a dataset and a list of metrics with `type`, `value` and `name`). The Open
LLM Leaderboard's bot adds one to cards (biomistral_7b_dare_readme_pr2_open_llm_leaderboard_model_index.md,
doctorllm_chatdoctor_card_*, meditron_7b_chat_alpaca_card_*), and trainers write one for their fine-tunes. Read line
by line, without a YAML library, because copies lose what a parser needs: the indentation (a code view copied as a
one-column table, a bar on every line: medichat_llama3_8b_card_code_view_model_index.md) or the end (a stored copy
cut inside a metric).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evaluator.papers.record import ExtractedClaim
from evaluator.papers.vocabulary import canonical_metric, read_value

_START = re.compile(r"(?m)^[ \t|]*model-index:[ \t]*\|?[ \t]*$")
# one line of the block: an optional list dash, a key and a value, and the bar a copied code view leaves at its end
_LINE = re.compile(r"^[ \t|]*(-[ \t]+)?([A-Za-z_][\w-]{0,40}):[ \t]*(.*?)[ \t]*\|?[ \t]*$")
_BLANK = re.compile(r"^[ \t|]*$")
# the leaderboard's shares are written on a 0-100 scale ("value: 58.28" for acc_norm); a share is a fraction
_SHARE = re.compile(r"^(?:acc\w*|accuracy|mc\d|exact[ _]match|em|f1\w*|pass@\d+)$", re.I)
_SHOTS = re.compile(r"^\d{1,3}$")
MAX_LINES = 5_000


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
