"""Shapes of result tables copied from journal pages: footnote letters run into the names they mark (their superscript
lost), and a header copied without its empty corner cell."""

from __future__ import annotations

import re
from itertools import pairwise

from evaluator.papers.measures import metric_of
from evaluator.papers.segment import Table, without_trailing_empties
from evaluator.papers.table_shapes import cell_number

# a footnote's letter run into the name it marks, its superscript lost: "MLAa", "MEWSb", "SAPS-IId", "AUROCe"
_LETTER_MARKED = re.compile(r"^(.{1,40}?[A-Z0-9+)–-])([a-l])$")


# a footnote letter before a row's label: "bAI model" over "cAI model" (hip_repair_surgery_ai_vs_asa_*_tab*.md)
_LEADING_MARK = re.compile(r"^([a-d])([A-Z][\w -]{1,40})$")


def without_footnote_letters(table: Table) -> Table:
    """A table whose header and row labels carry footnote letters run into them (mortality_mla_vs_mews_*_pmc.md), with
    the letters taken off: three or more labels ending in a lower-case letter after a capital, a digit or a sign,
    lettered a, b, c, ... in reading order; or two row labels or more that are one name after a letter from a to d
    ("bAI model", "cAI model"), which no model's name is written with twice ("qSOFA" is not lettered so)."""
    leading = [m for row in table.rows if row and (m := _LEADING_MARK.match(row[0].strip()))]
    if len(leading) >= 2 and len({m.group(2) for m in leading}) == 1:
        rows = [[_LEADING_MARK.sub(r"\2", row[0].strip()), *row[1:]] if row else row for row in table.rows]
        table = Table(table.header, rows, table.lines, table.caption)
    labels = [*table.header, *[row[0] for row in table.rows if row]]
    found = [(i, m) for i, label in enumerate(labels) if (m := _LETTER_MARKED.match(label.strip()))]
    marked = [m for _, m in found]
    letters = [m.group(2) for m in marked]
    lettered = bool(letters) and letters == [chr(ord(letters[0]) + i) for i in range(len(letters))]
    # from "a" over three labels or more; or later letters (the header's went to a line not read as one: "AKIa" over
    # rows "RQIb", "RSIc": postop_aki_reintubation_*_npj_pmc.md) on two acronyms or more
    acronyms = all(re.fullmatch(r"[A-Z][A-Z0-9-]{1,9}", m.group(1)) for m in marked)
    strip = {i: m.group(1) for i, m in found}
    # or from a later letter over five labels or more, the first letter gone to the caption ("AKDa" above "AUROCb",
    # "PPVc", "NPVd", "LRMe", "XGBoostf", "LightGBMg", ...: elderly_akd_risk_*_table1_*.md), where a letter after a
    # lower-case one ("XGBoostf") is told by its place in the run
    # (or several: "KNNd", "Decision tree", "XGBooste", "AdaBoostf", "DNNg": ml_models_without_clinical_*_pmc.md)
    long_run = len(letters) >= 5 and letters[0] <= "d" and all(1 <= ord(b) - ord(a) <= 4 for a, b in pairwise(letters))
    if long_run:
        for (i, a), (j, b) in pairwise(found):
            missing = [chr(c) for c in range(ord(a.group(2)) + 1, ord(b.group(2)))]
            between = [k for k in range(i + 1, j) if labels[k].strip()[-1:] in missing]
            if [labels[k].strip()[-1] for k in between] == missing:
                strip.update({k: labels[k].strip()[:-1] for k in between})
    elif not lettered or len(letters) < 2 or ((len(letters) < 3 or letters[0] != "a") and not acronyms):
        return table
    width = len(table.header)
    header = [strip.get(i, cell) for i, cell in enumerate(table.header)]
    named = [i for i, row in enumerate(table.rows) if row]
    rows = [list(row) for row in table.rows]
    for k, index in enumerate(named):
        rows[index][0] = strip.get(width + k, rows[index][0])
    return Table(header, rows, table.lines, table.caption)


def with_corner_restored(table: Table) -> Table:
    """A table whose header was copied without its empty corner cell ("| AUROC (CI) | AUPRC (CI) | ... | |" over
    "| A-line | 0.913 (0.899–0.927) | ... |": critical_interventions_xgboost_table_pmc.md), with the corner put back,
    so that each header names the column of values under it: the first header names a metric, and every row holds
    one cell more than the header's named ones, a label before its values."""
    named = without_trailing_empties(table.header)
    rows = [row for row in table.rows if any(cell.strip() for cell in row)]
    if not named or not metric_of(named[0]) or not rows:
        return table
    labelled = all(
        len([c for c in row if c.strip()]) == len(named) + 1 and row[0].strip() and cell_number(row[0]) is None
        for row in rows
    )
    if not labelled:
        return table
    return Table(["", *named], table.rows, table.lines, table.caption)
