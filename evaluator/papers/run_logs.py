"""An evaluation script's output pasted into a README as fenced code: "[medqa] mean acc: 0.7714" under a block that
names its model ("llm_name: OpenAI/gpt-4.1-nano": flare_med_gpt41nano_mirage_cot_rag_results.md). Each task's
line is one claim; the block's averages restate them, and its times, counts and settings are no results. Other
fenced code is not read (segment.py leaves it out).
"""

from __future__ import annotations

import re

from evaluator.papers.record import ExtractedClaim
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
_NOT_A_MODEL = re.compile(r"^(?:hf|hf-auto|vllm|openai|true|false|none|null|\d.*)$", re.I)
MAX_BLOCKS = 200


def run_log_claims(text: str) -> list[ExtractedClaim]:
    """One claim per task line of each fenced block that names its model."""
    claims: list[ExtractedClaim] = []
    for block in list(_FENCE.finditer(text))[:MAX_BLOCKS]:
        body = block.group(1)
        named = [m.group(1) for m in _MODEL_LINE.finditer(body) if not _NOT_A_MODEL.match(m.group(1))]
        if not named:
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
