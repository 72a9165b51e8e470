"""Tables copied from a web page with one cell per line (a journal's table page: "Model", "AUROC (95% CI)", ...,
then "XGBoost", "0.755 (0.744, 0.767)", ...), found in running text and set back into rows.

A header is a run of short label lines ending with the columns that name metrics; after it, a row is a name line
followed by one value line per value column. A cell spanning rows in the page (a group's label, its count or
prevalence) is written only in the group's first row, so a row may hold values for the metric columns only, and
label lines that start no row label the rows that follow them (pop_surgical_risk_xgboost_*_bmc_table3.md,
apricot_m_mortality_table.md)."""

from __future__ import annotations

import re

from evaluator.papers.measures import metric_of
from evaluator.papers.segment import Table
from evaluator.papers.table_shapes import MODEL_HEADER, cell_number, not_a_score

MAX_CELL = 60  # a label or a value line; a longer line is prose or a caption
MAX_LINED_ROWS = 300
_MARK = re.compile(r"[*†‡§¹²³]+$")


def lined_tables(text: str) -> tuple[list[Table], set[str]]:
    """The one-cell-per-line tables of `text`, and the lines they were read from (not to be read again as prose)."""
    lines, parts = _joined_intervals([line.strip() for line in text.splitlines() if line.strip()])
    labels = [_is_label(line) for line in lines]
    tables: list[Table] = []
    used: set[str] = set()
    index = 0
    while index < len(lines):
        # a header starts a run of labels
        header_end = _header_end(lines, labels, index) if labels[index] and not (index and labels[index - 1]) else None
        if header_end is None:
            index += 1
            continue
        table, end = _read_rows(lines, index, header_end)
        if table is not None:
            tables.append(table)
            used.update(part for line in lines[index:end] for part in parts.get(line, [line]))
        index = max(end, index + 1)
    return tables, used


# an interval on a line of its own: the page wrapped a cell's "0.881 (0.856–0.905)" after its value
# (icu_intubation_ml_models_test_set_scirep_table.md)
_INTERVAL_LINE = re.compile(r"[(\[] ?-?\d[\d.]* ?(?:[-–—,]|to) ?-?\d[\d.]* ?[)\]]")


def _joined_intervals(lines: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The lines with each interval line joined to the value line before it, and the lines each joined line was
    made of."""
    joined: list[str] = []
    parts: dict[str, list[str]] = {}
    for line in lines:
        if joined and _INTERVAL_LINE.fullmatch(line) and _value(joined[-1]) is not None and "(" not in joined[-1]:
            before = joined.pop()
            joined.append(f"{before} {line}")
            parts[joined[-1]] = [*parts.get(before, [before]), line]
        else:
            joined.append(line)
    return joined, parts


# a count with its share ("116 (1.01%)", "4,351 (37.92%)"): a group's size, not a result
_COUNT_CELL = re.compile(r"\d[\d,]* \(\d{1,3}(?:\.\d{1,3})? ?%\)")


def _value(line: str) -> str | None:
    if len(line) > MAX_CELL or _COUNT_CELL.fullmatch(line):
        return None
    return cell_number(_MARK.sub("", line))


def _is_label(line: str) -> bool:
    return len(line) <= MAX_CELL and not line.startswith(("|", "#", "-", "*")) and _value(line) is None


def _header_end(lines: list[str], labels: list[bool], start: int) -> int | None:
    """The end of a header run starting at `start`: label lines, the last of them naming a metric, two or more of
    them naming metrics, and value lines after the run."""
    end = start
    while end < len(lines) and labels[end]:
        end += 1
    named = [i for i in range(start, end) if metric_of(lines[i])]
    if len(named) < 2 or end >= len(lines) or (_value(lines[end]) is None and end - named[-1] > 6):
        return None
    return named[-1] + 1


_SPLIT_ROW = re.compile(
    r"(?i)(?:(?:the )?(?:training|train|test|testing|val|valid|validation|internal|external|temporal|derivation|"
    r"development|hold-?out|all)(?: (?:set|cohort|data|validation|test))?)"
)


def _metric_tail(header: list[str]) -> int:
    """How many of the header's last cells name metrics."""
    tail = 0
    while tail < len(header) and metric_of(header[-1 - tail]) and not not_a_score(header[-1 - tail]):
        tail += 1
    return tail


def _read_rows(lines: list[str], start: int, header_end: int) -> tuple[Table | None, int]:
    header = lines[start:header_end]
    values = [i for i, cell in enumerate(header) if metric_of(cell) or not_a_score(cell)]
    scored = [i for i in values if metric_of(header[i]) and not not_a_score(header[i])]
    group = next((cell for i, cell in enumerate(header) if i < values[0] and not MODEL_HEADER.match(cell)), "Group")
    rows: list[list[str]] = []
    labels: list[str] = []
    current = ""  # the label of the group the rows are in
    index = header_end
    while index < len(lines) and len(rows) < MAX_LINED_ROWS and _is_label(lines[index]):
        count = 0
        while index + 1 + count < len(lines) and _value(lines[index + 1 + count]) is not None:
            count += 1
        cells = [_MARK.sub("", line) for line in lines[index + 1 : index + 1 + count]]
        if not rows and count not in (len(values), len(scored)) and 2 <= count <= _metric_tail(header):
            # the header's first cells span the metric columns under them ("Regression task (mRS score)" over
            # "MAE", "Classification task" over "AUC", "Sensitivity (%)", ...: asah_*_npj_dm.md): the rows' values
            # are those of its last columns
            values = scored = list(range(len(header) - count, len(header)))
        if count in (len(values), len(scored)):
            kept = cells if count == len(scored) else [c for i, c in zip(values, cells, strict=True) if i in scored]
            current, labels = (labels[0] if labels else current), []
            rows.append([lines[index], current, *kept])
            index += 1 + count
        elif count == 0:
            labels.append(lines[index])  # a group's label, count or prevalence, over the rows that follow
            index += 1
        else:
            break
    if len(rows) < 2:
        return None, header_end
    if sum(bool(_SPLIT_ROW.fullmatch(row[0])) for row in rows) * 2 > len(rows) and all(row[1] for row in rows):
        # rows of a model's splits under its name ("Random Forest" over "Training", "Test", each with its values:
        # sepsis_survival_coagulation_heparin_models_table1_jtm.md): the name is the model, the split its setting
        rows = [[row[1], row[0], *row[2:]] for row in rows]
        group = ""
    columns = ["Model", group, *[header[i] for i in scored]]
    return Table(columns, rows, [" | ".join(columns), *[" | ".join(row) for row in rows]], ""), index
