"""Tables rendered with spaces only, found in running text: segmentation that needs the model recogniser, so it
lives apart from segment.py, which knows no names."""

from __future__ import annotations

import re
from collections import Counter

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
    while found and found[0][2] == "score" and len(found) > 2:
        found = found[1:]  # a corner's word the vocabulary also knows: "Scoring System ROC AUC (95% CI) PR AUC"
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
_VALUE = r"(-?\d{0,3}\.\d{1,4}|\d{1,3})"
_INTERVAL = r" ?\((-?\d{0,3}\.\d{1,4}) ?[–-] ?(-?\d{0,3}\.\d{1,4})\)"
_INTERVAL_CELL = re.compile(r"(?<![\w.])" + _VALUE + _INTERVAL)
_INTERVAL_ROW = re.compile(r"^([A-Za-z][\w .+/:-]{0,40}?) (?=-?\d{0,3}\.?\d{1,4} ?\()")  # "NEWS:LDTEWS 0.860 (...)"
_CAPTION_LOOKBACK = 8


def interval_tables(text: str) -> list[Table]:
    """Runs of two rows or more of a label and values with intervals, as tables under the caption above them."""
    lines = [line.strip() for line in text.splitlines()]
    tables: list[Table] = []
    index = ended = 0
    while index < len(lines):
        run = []
        first = index
        while index < len(lines) and (row := _interval_row(lines[index])) is not None:
            run.append((lines[index], row))
            index += 1
            # a run goes on over blank lines and a group's label ("Internal validation cohort") to its next row
            # (elderly_akd_risk_*_table1_*.md, a journal table copied with a blank line after each row)
            gap = index
            while gap < len(lines) and gap - index < 3 and (not lines[gap] or _GROUP_LABEL.fullmatch(lines[gap])):
                gap += 1
            if gap > index and gap < len(lines) and _interval_row(lines[gap]) is not None:
                index = gap
        if len(run) >= 2:
            table = _interval_table(lines[max(0, first - _CAPTION_LOOKBACK) : first], run)
            if tables and not any(table.header[1:]) and _continues(tables[-1], table, ended, first):
                # the rows after a row of p-values and a group's label ("P value < 0.001 ...", "Validation set")
                # go on under the header above the first group (ann_vs_logistic_apache2_*_tab*.md)
                table = Table(tables[-1].header, table.rows, table.lines, tables[-1].caption)
            tables.append(table)
            ended = index
        index += 1
    return tables


def _continues(before: Table, table: Table, ended: int, first: int) -> bool:
    return any(before.header[1:]) and len(before.header) == len(table.header) and first - ended <= 3


# a group's label between a table's rows: a few words, no number
_GROUP_LABEL = re.compile(r"[A-Za-z][A-Za-z ()/-]{2,50}")


def _interval_row(line: str) -> list[str] | None:
    label = _INTERVAL_ROW.match(line)
    if label is None:
        return None
    cells = [m.group(0) for m in _INTERVAL_CELL.finditer(line, label.end())]
    return [label.group(1).strip(), *cells] if cells else None


# a value cell of a spaced row, with its interval when it has one: "0.046", "0.852 (0.764–0.941)"
_VALUE_CELL = re.compile(r"(?<!\S)" + _VALUE + "(?:" + _INTERVAL + r")?(?=\s|$)")
# a header's qualifier of the column before it, and the words that end a term of two ("Youden index", "p value")
_QUALIFIER = re.compile(r"\s*\((?:%|95% ?CI|CI|95% confidence interval)\)", re.I)
_TERM_END = re.compile(r"(?i)index|score|value|ratio|rate|time|error|loss|system|set")


def _mixed_rows(run: list[tuple[str, list[str]]]) -> list[list[str]] | None:
    """The rows of a run cut at every value, plain or with its interval ("qSOFA + SII 0.046 0.852 (0.764–0.941)
    ...": sepsis_qsofa_sii_*_table5_*.md), when some hold plain values among their intervals and all are as wide."""
    rows = []
    for line, _ in run:
        cells = list(_VALUE_CELL.finditer(line))
        if not cells or not line[: cells[0].start()].strip():
            return None
        rows.append([line[: cells[0].start()].strip(), *[m.group(0) for m in cells]])
    plain = any(m.group(2) is None for line, _ in run for m in _VALUE_CELL.finditer(line))
    # rows as wide as most: a row the copy cut short, or one holding a note's number, is left out
    width = Counter(len(row) for row in rows).most_common(1)[0][0]
    kept = [row for row in rows if len(row) == width]
    return kept if plain and len(kept) >= 2 and len(kept) * 4 >= len(rows) * 3 else None


def _spaced_header(head: str, width: int) -> list[str] | None:
    """A header written with spaces cut into a corner and `width` columns: its qualifiers dropped, a metric of
    several words ("F1 score") and a term of two ("Youden index") kept whole, the words left over the corner."""
    head = _QUALIFIER.sub("", head).strip()
    spans = [(start, end) for start, end, _ in metrics_in(head)]
    words: list[str] = []
    for match in re.finditer(r"\S+", head):
        inside = next(((s, e) for s, e in spans if s <= match.start() < e), None)
        if inside and words and inside[0] < match.start():
            words[-1] += " " + match.group(0)  # the rest of a metric of several words
        elif _TERM_END.fullmatch(match.group(0)) and words and not metrics_in(match.group(0)):
            words[-1] += " " + match.group(0)
        else:
            words.append(match.group(0))
    if len(words) <= width or not metrics_in(" ".join(words[-width:])):
        return None
    return [" ".join(words[:-width]), *words[-width:]]


def _interval_table(above: list[str], run: list[tuple[str, list[str]]]) -> Table:
    mixed = _mixed_rows(run)
    # the header is the last line above that is not a group's label ("Training cohort" under the header)
    head = next((line for line in reversed(above) if line and not _GROUP_LABEL.fullmatch(line)), "")
    columns = _spaced_header(head, len(mixed[0]) - 1) if mixed else None
    if mixed and columns:
        caption = " ".join(line for line in above[:-1] if line and not line[:1].isdigit())[-400:]
        return Table(columns, mixed, [head, *[line for line, _ in run]], caption)
    width = max(len(row) for _, row in run)
    # "Model type AKI ..." or "Score AKI ..." above the rows: a corner over models (postop_aki_reintubation_*.md)
    corner = (
        "Models"
        if any(re.match(r"(?:models?|methods?|algorithms?|scores?|scoring systems?)\b", line, re.I) for line in above)
        else ""
    )
    # a caption is prose, not the rows of a table right above these ("Table 2. AUC for prediction of ..." over two
    # runs of rows, each under its own header line)
    caption = " ".join(line for line in above if line and not line[:1].isdigit() and _interval_row(line) is None)[-600:]
    header = [corner, *[""] * (width - 1)]
    # a header of metrics right above the rows names their columns: "Scoring System ROC AUC (95% CI) PR AUC (95% CI)"
    # (ward_early_warning_scores_haven_*_pmc.md)
    named = _metric_header(head)
    if named is not None and len(named) == width:
        header = named
    rows = [row + [""] * (width - len(row)) for _, row in run]
    return Table(header, rows, [" ".join(header), *[line for line, _ in run]], caption)
