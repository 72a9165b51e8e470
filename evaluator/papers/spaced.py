"""Tables rendered with spaces only, found in running text: segmentation that needs the model recogniser, so it
lives apart from segment.py, which knows no names."""

from __future__ import annotations

import re

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
        named = [name for _, name in models_in(head)]
        if len(named) < 2 or len(head) > 200 or "|" in head:
            continue
        rows = []
        for line in lines[index + 1 : index + 1 + MAX_SPACED_ROWS]:
            row = _SPACED_ROW.match(line)
            if row is None or len(row.group(2).split()) != len(named):
                break
            rows.append([row.group(1), *row.group(2).split()])
        if len(rows) >= 2:
            corner = head.split(" ", 1)[0] if not head.startswith(named[0]) else ""
            tables.append(Table([corner, *named], rows, [head] + [" ".join(r) for r in rows], ""))
    return tables


MAX_SPACED_ROWS = 200
