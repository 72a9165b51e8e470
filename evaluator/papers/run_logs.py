"""An evaluation script's output pasted into a README as fenced code: "[medqa] mean acc: 0.7714" under a block that
names its model ("llm_name: OpenAI/gpt-4.1-nano": flare_med_gpt41nano_mirage_cot_rag_results.md). Each task's
line is one claim; the block's averages restate them, and its times, counts and settings are no results. Other
fenced code is not read (segment.py leaves it out).

A script's printed results, fenced or not, are read too: a line that announces whose results follow ("[DONE]
TRANSFORMER model test results:", "Results for XGBoost:", "Model: GPT-4o") over a block of "metric: value" lines or
a printed dict ({'P@10': 0.308, 'Acc@10': 0.213}), with the short label above it as the run's setting ("5%:")
(mimic4_trinetx_transformer_results_log_project1.md). Its lines are no prose.
"""

from __future__ import annotations

import re

from evaluator.papers.measures import is_benchmark_or_metric, metric_of, metrics_in
from evaluator.papers.model_words import AVERAGE, METHODS
from evaluator.papers.names import heading_model, is_model_name
from evaluator.papers.record import ExtractedClaim
from evaluator.papers.results_json import NOT_A_MODEL
from evaluator.papers.vocabulary import canonical_metric, read_value

_FENCE = re.compile(r"^ {0,3}```[^\n`]{0,20}\n(.{0,20000}?)^ {0,3}```[ \t]*$", re.S | re.M)
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
MAX_BLOCKS = 200
MAX_LINES = 20000
MAX_PRINTED = 2000
_KEY_VALUE = re.compile(
    r"^\s{0,8}(?:[-*]\s{1,2})?([A-Za-z][\w ./()-]{0,30}?(?:@\d{1,3})?)\s{0,4}[:=]\s{0,4}"
    # perhaps with its count: "Sensitivity: 0.852 (69/81)"
    r"(-?\d{0,3}\.\d{1,17}|\d{1,3}(?:\.\d{1,4})?%)\s{0,4}(?:\(\d{1,6} ?/ ?\d{1,6}\))?"
    # or its spread over runs: "AUROC:\t 0.821 +/- 0.011" (mimic_mortality_context_*_results_txt.md)
    r"(?:\s{0,4}(?:±|\+ ?/ ?-)\s{0,4}\d{0,3}\.?\d{1,6}%?)?\s{0,4}[,;]?\s*$"
)
_DICT_PAIR = re.compile(r"['\"]([A-Za-z][\w ./()-]{0,30}?(?:@\d{1,3})?)['\"]\s{0,2}:\s{0,2}(-?\d{0,3}\.\d{1,17})\b")
# whose results a line announces: "[DONE] MLP model test results:", "Results for XGBoost:", "Model: GPT-4o",
# "Evaluating BioBERT ..."
_ANNOUNCES = re.compile(
    r"^\s{0,8}(?:\[\w{1,10}\]\s{0,2})?(?:"
    r"(?P<a>[A-Za-z][\w.+/-]{1,60})(?P<kind> model| classifier)? (?:test |validation |val |eval(?:uation)? |final )?"
    r"(?:results?|metrics|scores|performance)\b"
    r"|(?:test |eval(?:uation)? |final )?(?:results?|metrics|scores|performance) (?:for|of) (?:the )?"
    r"(?P<b>[A-Za-z][\w.+/-]{1,60})"
    # perhaps after the run's other labels: "Dataset: mimic | Model: baseline_LSTM_64"
    r"|(?:[A-Za-z][\w ]{0,20}\s{0,2}[:=]\s{0,2}[\w.-]{1,40}\s{0,2}[|,;]\s{0,2}){0,3}"
    r"(?:model|model_name|model name)\s{0,2}[:=]\s{0,2}['\"]?(?P<c>[A-Za-z][\w.+/-]{1,60})"
    r"|(?:evaluating|testing) (?:the )?(?P<d>[A-Za-z][\w.+/-]{1,60})"
    r")",
    re.I,
)
_LABEL = re.compile(r"^\s{0,3}(?:#{1,6}\s{0,2})?([^:#\n]{1,40}?):?\s*$")
_NOT_NAMED = re.compile(r"^(?:the|our|this|that|each|every|best|final|base|baseline|proposed|trained|new|a|an)$", re.I)
_RULE_LINE = re.compile(r"^\s{0,8}[=*_~-]{3,}\s*$")
_COUNT_LINE = re.compile(r"^\s{0,8}(?:TP|FP|TN|FN|confusion matrix)\b", re.I)


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
            if AVERAGE.match(task):
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
    """The model the last heading before a block names."""
    headings = _HEADING.findall(before[-3000:])
    return heading_model(headings[-1]) if headings else None


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


def printed_results(text: str) -> tuple[list[ExtractedClaim], set[str]]:
    """The claims of a script's printed result blocks (see the module docstring), and the lines they were read
    from, which are then no prose."""
    lines = text.splitlines()[:MAX_LINES]
    reported, used = _classification_reports(lines)
    claims: list[ExtractedClaim | None] = list(reported)
    at = 0
    while at < len(lines) and len(claims) < MAX_PRINTED:  # the reader keeps 1,000 claims a text at most anyway
        labelled = _labelled_line(lines[at])
        if labelled:
            used.add(lines[at].strip())
            claims += labelled
            at += 1
            continue
        pairs, end = _pairs_from(lines, at)
        if len(pairs) < 2:
            at += 1
            continue
        model, label = _announced(lines, at)
        if model is not None:
            used.update(line.strip() for line in lines[at:end])
            claims += [_printed_claim(model, key, raw, label, lines[at:end]) for key, raw in pairs]
        at = end
    return [c for c in claims if c is not None], used


# scikit-learn's classification report: a header of four columns, a row per class and per average, and the accuracy
# with its support (biobert_ner_demo_bc5cdr_*_readme.md, vitaldb_ioh_random_forest_training_guide_excerpt.md)
_REPORT_HEADER = re.compile(r"^\s*precision\s+recall\s+f1-score\s+support\s*$")
_REPORT_ROW = re.compile(r"^\s*(\S(?:.{0,40}?\S)?)\s{2,}(\d?\.\d{1,6})\s+(\d?\.\d{1,6})\s+(\d?\.\d{1,6})\s+\d+\s*$")
_REPORT_ACCURACY = re.compile(r"^\s*accuracy\s+(\d?\.\d{1,6})\s+\d+\s*$")


def _classification_reports(lines: list[str]) -> tuple[list[ExtractedClaim], set[str]]:
    """Each class's (or average's) precision, recall and F1 of a classification report, the class as the claim's
    variant, and its accuracy, for the model a line above announces or trains. A report of no model named near it
    gives no claim (whose it is would be a guess), and its lines are no prose either."""
    claims: list[ExtractedClaim] = []
    used: set[str] = set()
    for at, header in enumerate(lines):
        if not _REPORT_HEADER.match(header):
            continue
        model = _report_model(lines, at)
        for row in lines[at + 1 : at + 60]:
            cells, accuracy = _REPORT_ROW.match(row), _REPORT_ACCURACY.match(row)
            if not (cells or accuracy or not row.strip()):
                break
            used.add(row.strip())
            named = [("accuracy", accuracy.group(1))] if accuracy else []
            if cells:
                named = list(zip(("precision", "recall", "f1"), cells.group(2, 3, 4), strict=True))
            claims += [
                ExtractedClaim(
                    model=model,
                    task_variant=cells.group(1) if cells else None,
                    metric=metric,
                    value=float(raw),
                    raw_value=raw,
                    unit="fraction",
                    evidence=f"{header}\n{row}"[:600],
                    notes=["read from a classification report"],
                )
                for metric, raw in named
                if model is not None
            ]
        used.add(header.strip())
    return claims, used


def _report_model(lines: list[str], at: int) -> str | None:
    """The model a line above a report announces, not a section's heading (which names its dataset as often:
    "#### BC5CDR results -"), else the method a line above trains: "TRAINING RANDOM FOREST MODEL"
    (vitaldb_ioh_random_forest_*.md)."""
    announced = _announcing(lines, at - 1) if at else None
    if announced is not None and announced[0] is not None:
        return announced[0]
    trained = [m for line in lines[max(0, at - 25) : at] for m in METHODS.finditer(line)]
    return trained[-1].group(1) if trained else None


def _pairs_from(lines: list[str], at: int) -> tuple[list[tuple[str, str]], int]:
    """The metric pairs of the block starting at line `at` (one line with a printed dict, or a run of "metric:
    value" lines), and where it ends."""
    on_line = [(k, v) for k, v in _DICT_PAIR.findall(lines[at]) if _metric_key(k)]
    if on_line:
        return on_line, at + 1
    pairs: list[tuple[str, str]] = []
    end = at
    while end < len(lines) and (match := _KEY_VALUE.match(lines[end])) and _metric_key(match.group(1)):
        pairs.append((match.group(1), match.group(2)))
        end += 1
    return pairs, max(end, at + 1)


def _metric_key(key: str) -> str | None:
    """The metric a printed key names: "auc", "f1", "Acc@10" ("acc@10"), else None ("threshold", "loss")."""
    base, at, _ = key.strip().partition("@")
    if at:
        return (
            key.strip().lower()
            if base.lower() in ("p", "r", "acc", "hits", "ndcg", "map", "mrr") or metric_of(base)
            else None
        )
    plain = re.sub(r"^(?:test|val|valid|eval|final)[_ ]", "", key.strip(), flags=re.I).replace("_", " ")
    found = metrics_in(plain)
    return found[0][2] if len(found) == 1 and found[0][:2] == (0, len(plain)) else None


def _announced(lines: list[str], at: int) -> tuple[str | None, str | None]:
    """The model the nearest line above a block (or the block's own line) announces, within a few lines, past
    counts ("TP: 496, FP: 201") and blank lines; and the short label above that line ("5%:"), as its setting; else
    the model the block's section heading names."""
    found = _announcing(lines, at)
    return found if found is not None else (_section_model(lines, at), None)


def _announcing(lines: list[str], at: int) -> tuple[str | None, str | None] | None:
    """What a line announcing a block says (see `_announced`), or None when no such line is near."""
    for back in range(at, max(-1, at - 6), -1):
        line = lines[back]
        if back < at and (not line.strip() or _COUNT_LINE.match(line) or _RULE_LINE.match(line)):
            continue  # a blank line, counts, or a rule under the announcing line ("=====")
        found = _ANNOUNCES.match(line)
        if found:
            name = next(g for g in found.group("a", "b", "c", "d") if g)
            # "MLP model test results": the line says it is a model, whatever its shape; else its shape must say so
            # and so does a "Model:" label ("Model: context_RNN_64_0.01", a run's name)
            said = bool(found.group("kind") or found.group("c")) and not _NOT_NAMED.match(name)
            if NOT_A_MODEL.match(name) or is_benchmark_or_metric(name) or not (said or is_model_name(name)):
                return None, None
            return name, _label_above(lines, back)
        if back < at:
            return None
    return None


_SECTION = re.compile(r"^#{2,6}\s{1,3}([^#\n]{2,60}?)\s*$")


def _section_model(lines: list[str], at: int) -> str | None:
    """The model a block's section heading names, within a few lines above it ("#### Base Model" over a fenced
    confusion matrix and its "Sensitivity: 0.852 (69/81)" lines: icu_admission_febrile_oncology_*_report.md)."""
    for line in reversed(lines[max(0, at - 15) : at]):
        heading = _SECTION.match(line)
        if heading:
            return heading_model(heading.group(1))
    return None


def _label_above(lines: list[str], at: int) -> str | None:
    for line in reversed(lines[max(0, at - 3) : at]):
        if not line.strip() or _COUNT_LINE.match(line) or _KEY_VALUE.match(line):
            continue
        label = _LABEL.match(line)
        return label.group(1).strip() if label else None
    return None


def _printed_claim(model: str, key: str, raw: str, label: str | None, block: list[str]) -> ExtractedClaim | None:
    metric = _metric_key(key)
    reading = read_value(raw, metric=metric)
    if metric is None or reading is None or reading.value is None:
        return None
    return ExtractedClaim(
        model=model,
        metric=metric,
        value=reading.value,
        raw_value=raw,
        unit=reading.unit,
        setting=label,
        evidence="\n".join(block)[:600],
        notes=["read from a script's printed results"],
    )


# a line of one model's metrics after its label: "- LR (test): AUROC ≈ 0.867, AUPRC ≈ 0.668, Brier ≈ 0.155"
# (ioh_5min_vitaldb_tcn_logreg_thesis_readme_excerpt.md), the bracket its setting
_MODEL_METRICS_LINE = re.compile(
    r"^\s{0,8}(?:[-*+]\s{1,3}|\d{1,2}[.)]\s{1,3})?\**([A-Za-z][\w.+/-]{0,40}?)(?: \(([^()]{1,30})\))?\**:\**"
    r"\s{1,4}(.{8,300})$"
)
_LINE_PAIR = re.compile(
    r"([A-Za-z][\w -]{0,24}?)\s{0,2}(?:[:=≈]|\bof\b)\s{0,2}(-?\d?\.\d{1,6}|\d{1,3}(?:\.\d{1,4})?%)(?![\d.])"
)
# the methods clinical prediction papers abbreviate, in capitals only ("LR" is also a learning rate, "lr")
_METHOD_ACRONYM = re.compile(r"(?-i:LR|RF|TCN|SVM|XGB|GBM|GBDT|KNN|NB|DT|MLP|CNN|RNN|LSTM|GRU|DNN|ANN|LGBM)")


def _labelled_line(line: str) -> list[ExtractedClaim]:
    """The claims of a line giving one model's metrics after its label, else none."""
    found = _MODEL_METRICS_LINE.match(line)
    if found is None:
        return []
    label, setting, rest = found.groups()
    if metric_of(label) or not (_METHOD_ACRONYM.fullmatch(label) or is_model_name(label)):
        return []
    pairs = [(key, raw) for key, raw in _LINE_PAIR.findall(rest) if _metric_key(key.strip())]
    if len(pairs) < 2:
        return []
    claims = [_printed_claim(label, key.strip(), raw, setting, [line.strip()]) for key, raw in pairs]
    return [c for c in claims if c is not None]
