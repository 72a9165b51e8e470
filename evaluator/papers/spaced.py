"""Tables rendered with spaces only, found in running text: segmentation that needs the model recogniser, so it
lives apart from segment.py, which knows no names."""

from __future__ import annotations

import re

from evaluator.papers.measures import metrics_in
from evaluator.papers.names import models_in
from evaluator.papers.segment import Table

# a row of a table rendered with spaces only: a label, then one value per column ("MMLU Clinical Knowledge 69.8 74.34"
# under "Dataset GPT-3.5 Tuned Llama 3": llama3_8b_medical_finetune_mmlu_card.md)
_SPACED_ROW = re.compile(r"^(\S.{0,80}?)((?: -?\d{1,3}(?:\.\d{1,4})?%?){2,12})$")


def spaced_tables(text: str) -> list[Table]:
    """Tables rendered with spaces only, read when their header line names one model per value of each row."""
    lines = [line.strip() for line in text.splitlines()]
    rowlike = [_SPACED_ROW.match(line) is not None if line[-1:].isdigit() else False for line in lines]
    tables = []
    for index, head in enumerate(lines[:-2]):
        if not (rowlike[index + 1] and rowlike[index + 2]):
            continue  # a header needs two rows under it; most lines are no header, and models_in costs
        if len(head) > 200 or "|" in head:
            continue
        measures = _metric_header(head)
        named = measures[1:] if measures else [name for _, name in models_in(head)]
        if len(named) < 2:
            continue
        rows = []
        for line in lines[index + 1 : index + 1 + MAX_SPACED_ROWS]:
            row = _SPACED_ROW.match(line)
            if row is None or len(row.group(2).split()) != len(named):
                break
            rows.append([row.group(1), *row.group(2).split()])
        if len(rows) >= 2 and measures:
            tables.append(
                Table(measures, rows, [head] + [" ".join(r) for r in rows], "\n".join(lines[max(0, index - 3) : index]))
            )
        elif len(rows) >= 2:
            corner = head.split(" ", 1)[0] if not head.startswith(named[0]) else ""
            tables.append(Table([corner, *named], rows, [head] + [" ".join(r) for r in rows], ""))
    return tables


MAX_SPACED_ROWS = 200
# what may stand between a spaced header's metrics: a unit or an interval's label ("Sensitivity (%)", "AUC (95% CI)")
_BETWEEN = re.compile(r"\s*(?:\((?:%|95% ?CI|CI)\))?\s*")


def _metric_header(head: str) -> list[str] | None:
    """A spaced header of metrics after a corner of a few words ("Models AUC Recall Accuracy F1 score Sensitivity
    Specificity": seven_ml_models_vs_sofa_saps2_*_pmc.md): the corner, then each metric as written; else None."""
    found = metrics_in(head)
    if len(found) < 2 or len(head[: found[0][0]].split()) > 3:
        return None
    cells = []
    for (start, end, _), after in zip(found, [*[f[0] for f in found[1:]], len(head)], strict=True):
        between = _BETWEEN.match(head, end, after)
        if between is None or between.end() != after:
            return None
        cells.append(head[start:after].strip())
    return [head[: found[0][0]].strip(), *cells]


# a row of a table rendered with spaces whose cells are values with their intervals, among p-values and other
# columns: "SVM 0.807 (0.772–0.842) < 0.001 < 0.001 0.686 0.830 (0.784–0.876)" under "Models Outcomes" and a
# caption naming the metric (crrt_hypotension_6h_auroc_table_pmc8387375.md)
_INTERVAL_CELL = re.compile(
    r"(?<![\w.])(-?\d{0,3}\.\d{1,4}|\d{1,3}) ?\((-?\d{0,3}\.\d{1,4}) ?[–-] ?(-?\d{0,3}\.\d{1,4})\)"
)
_INTERVAL_ROW = re.compile(r"^([A-Za-z][\w .+/-]{0,40}?) (?=-?\d{0,3}\.?\d{1,4} ?\()")
_CAPTION_LOOKBACK = 8


def interval_tables(text: str) -> list[Table]:
    """Runs of two rows or more of a label and values with intervals, as tables under the caption above them."""
    lines = [line.strip() for line in text.splitlines()]
    tables: list[Table] = []
    index = 0
    while index < len(lines):
        run = []
        while index < len(lines) and (row := _interval_row(lines[index])) is not None:
            run.append((lines[index], row))
            index += 1
        if len(run) >= 2:
            tables.append(_interval_table(lines[max(0, index - len(run) - _CAPTION_LOOKBACK) : index - len(run)], run))
        index += 1
    return tables


def _interval_row(line: str) -> list[str] | None:
    label = _INTERVAL_ROW.match(line)
    if label is None:
        return None
    cells = [m.group(0) for m in _INTERVAL_CELL.finditer(line, label.end())]
    return [label.group(1).strip(), *cells] if cells else None


def _interval_table(above: list[str], run: list[tuple[str, list[str]]]) -> Table:
    width = max(len(row) for _, row in run)
    corner = "Models" if any(re.match(r"(?:models?|methods?|algorithms?)\b", line, re.I) for line in above) else ""
    caption = " ".join(line for line in above if line and not line[:1].isdigit())[-400:]
    header = [corner, *[""] * (width - 1)]
    rows = [row + [""] * (width - len(row)) for _, row in run]
    return Table(header, rows, [" ".join(header), *[line for line, _ in run]], caption)
