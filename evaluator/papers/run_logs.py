"""An evaluation script's output pasted into a README as fenced code: "[medqa] mean acc: 0.7714" under a block that
names its model ("llm_name: OpenAI/gpt-4.1-nano": flare_med_gpt41nano_mirage_cot_rag_results.md). Each task's
line is one claim; the block's averages restate them, and its times, counts and settings are no results. Other
fenced code is not read (segment.py leaves it out).
"""

from __future__ import annotations

import re

from evaluator.papers.measures import metric_of
from evaluator.papers.names import models_in
from evaluator.papers.record import ExtractedClaim
from evaluator.papers.results_json import NOT_A_MODEL
from evaluator.papers.vocabulary import canonical_metric, read_value

_FENCE = re.compile(r"^ {0,3}```[^\n`]{0,20}\n(.{0,20000}?)^ {0,3}```", re.S | re.M)
_MODEL_LINE = re.compile(
    r"^\s{0,8}(?:llm_name|model_name|model_id|model|model_path|pretrained)\s{0,4}[:=]\s{0,4}['\"]?"
    r"([A-Za-z0-9][\w./-]{1,120})",
    re.M | re.I,
)
_RESULT_LINE = re.compile(
    r"^\s{0,8}\[?([A-Za-z][\w .-]{1,40}?)\]?\s{0,4}[:|-]?\s{0,4}(?:mean |average |avg )?"
    r"(accuracy|acc|acc_norm|f1|auroc|auc|exact[_ ]match|em)\s{0,4}[:=]\s{0,4}(\d?\.\d{1,6}|\d{1,3}(?:\.\d{1,4})?%?)"
    r"[;,]?",
    re.M | re.I,
)
_AVERAGE = re.compile(r"^(?:average|avg|mean|overall|all|total)$", re.I)
MAX_BLOCKS = 200


# a line of several metrics a script printed: "Accuracy: 0.8922, Precision: 0.5740, Recall: 0.2594, AUC-ROC: 0.8295"
# in a block under the heading of the model it ran ("# XGBoost": icu_mortality_mimic3_xgb_lr_rf_time_windows_log.md)
_PAIR = re.compile(r"([A-Za-z][\w -]{1,24}?)\s{0,2}[:=]\s{0,2}(-?\d?\.\d{1,6})\b")
_RUN_LABEL = re.compile(r"^\s{0,4}#\s{0,2}([\w .=-]{1,30})$", re.M)
_HEADING = re.compile(r"^#{1,6}\s{1,3}(.{2,80}?)\s*$", re.M)


def run_log_claims(text: str) -> list[ExtractedClaim]:
    """One claim per task line of each fenced block that names its model, and one per metric of each line of
    several metrics in a block under a heading that names its model."""
    claims: list[ExtractedClaim] = []
    for block in list(_FENCE.finditer(text))[:MAX_BLOCKS]:
        body = block.group(1)
        named = [m.group(1) for m in _MODEL_LINE.finditer(body) if not NOT_A_MODEL.match(m.group(1))]
        if not named:
            claims += _metric_lines(body, _heading_model(text[: block.start()]))
            continue
        for line in _RESULT_LINE.finditer(body):
            task, written, raw = line.group(1).strip(), line.group(2), line.group(3)
            if _AVERAGE.match(task):
                continue
            metric = canonical_metric(written)
            reading = read_value(raw, metric=metric)
            if reading is None or reading.value is None:
                continue
            claims.append(
                ExtractedClaim(
                    model=named[0],
                    dataset=task[:200],
                    metric=metric,
                    value=reading.value,
                    raw_value=raw,
                    unit=reading.unit,
                    evidence=line.group(0).strip()[:600],
                    notes=["read from an evaluation script's output"],
                )
            )
    return claims


def _heading_model(before: str) -> str | None:
    """The model the last heading before a block names, when the heading is just its name."""
    headings = _HEADING.findall(before[-3000:])
    if not headings:
        return None
    found = models_in(headings[-1])
    return found[0][1] if len(found) == 1 and found[0][1] == headings[-1].strip() else None


def _metric_lines(body: str, model: str | None) -> list[ExtractedClaim]:
    if model is None:
        return []
    claims: list[ExtractedClaim] = []
    label: str | None = None
    for line in body.splitlines():
        run = _RUN_LABEL.match(line)
        if run:
            label = run.group(1).strip()
            continue
        pairs = [(key, raw) for key, raw in _PAIR.findall(line) if metric_of(key.strip())]
        if len(pairs) < 2:
            continue
        for key, raw in pairs:
            metric = canonical_metric(key.strip())
            reading = read_value(raw, metric=metric)
            if reading is None or reading.value is None:
                continue
            claims.append(
                ExtractedClaim(
                    model=model,
                    metric=metric,
                    value=reading.value,
                    raw_value=raw,
                    setting=label,
                    evidence=line.strip()[:600],
                    notes=["read from an evaluation script's output"],
                )
            )
    return claims
