"""Metric tables: Markdown tables (HTML and CSV inputs arrive as Markdown tables too) read into claims.

A wide table whose header lists models and whose rows list subsets (or the transpose) gives one claim per
numeric cell; a long table with `model` and `value` columns gives one claim per row. The metric, dataset and
setting come from the table's corner cell and from the caption or heading just above it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from evaluator.papers.record import ExtractedClaim
from evaluator.papers.vocabulary import (
    has_percent_hint,
    metric_of,
    read_value,
    resolve_dataset,
    settings_of,
    strip_markup,
    subset_of,
)

MAX_LINE = 4000
MAX_COLUMNS = 64
MAX_ROWS = 500
MAX_CLAIMS_PER_TABLE = 400

_NOT_RESULTS = re.compile(
    r"^(?:#|n|params?|parameters|size|#? ?params?(?: \(.{1,10}\))?|year|date|release(?: date)?|licen[sc]e|"
    r"tokens?|context(?: length)?|type|open|weights|link|url|base(?: model)?|provider|organi[sz]ation|"
    r"notes?)$",
    re.I,
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_AGGREGATE = re.compile(r"^(?:avg\.?|average|mean|overall|total|all)$", re.I)
_OURS = re.compile(r"\s?[(\[]ours[)\]]|\s?\(proposed\)|\s?†", re.I)
_CAPTION_START = re.compile(r"^(?:\*{0,2}|_)?(?:table|caption)\b", re.I)

ModelResolver = Callable[[str], str]


@dataclass(frozen=True)
class Table:
    """One table: its header and rows as cells, the raw lines and the caption text around it."""

    header: list[str]
    rows: list[list[str]]
    header_line: str
    row_lines: list[str]
    caption: str


def is_table_line(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) <= MAX_LINE and stripped.startswith("|") and stripped.count("|") >= 2


def is_separator(line: str) -> bool:
    stripped = line.strip()
    return "-" in stripped and "|" in stripped and not stripped.strip("|:- \t")


def split_cells(line: str) -> list[str]:
    stripped = line.strip()
    stripped = stripped[1:] if stripped.startswith("|") else stripped
    stripped = stripped[:-1] if stripped.endswith("|") else stripped
    return [strip_markup(cell) for cell in stripped.split("|", MAX_COLUMNS)[:MAX_COLUMNS]]


def find_tables(lines: list[str]) -> list[Table]:
    """Every block of at least two pipe-led lines (a header and a row), with its caption."""
    tables: list[Table] = []
    index = 0
    while index < len(lines):
        if not is_table_line(lines[index]):
            index += 1
            continue
        start = index
        while index < len(lines) and is_table_line(lines[index]):
            index += 1
        block = [line for line in lines[start:index] if not is_separator(line)][: MAX_ROWS + 1]
        if len(block) >= 2:
            tables.append(
                Table(
                    header=split_cells(block[0]),
                    rows=[split_cells(line) for line in block[1:]],
                    header_line=block[0].strip(),
                    row_lines=[line.strip() for line in block[1:]],
                    caption=_caption(lines, start, index),
                )
            )
    return tables


def _caption(lines: list[str], start: int, end: int) -> str:
    """Up to three non-empty lines above the table (stopping after a heading) and a "Table ..." line below."""
    found: list[str] = []
    for line in reversed(lines[max(0, start - 8) : start]):
        stripped = line.strip()
        if not stripped or is_table_line(stripped):
            continue
        found.insert(0, stripped[:MAX_LINE])
        if stripped.startswith("#") or len(found) == 3:
            break
    for line in lines[end : end + 2]:
        if _CAPTION_START.match(line.strip()):
            found.append(line.strip()[:MAX_LINE])
    return strip_markup(" ".join(found))


def table_claims(table: Table, resolve_model: ModelResolver) -> list[ExtractedClaim]:
    """The claims in one table (long or wide layout)."""
    claims = _long_claims(table, resolve_model)
    if claims is None:
        claims = _wide_claims(table, resolve_model)
    return claims[:MAX_CLAIMS_PER_TABLE]


def clean_model_label(label: str) -> tuple[str, bool]:
    """A model column/row label without "(ours)" marks, and whether it carried one."""
    cleaned = _OURS.sub("", label).strip()
    return cleaned, cleaned != label.strip()


def _is_result_label(label: str) -> bool:
    return bool(resolve_dataset(label) or subset_of(label) or metric_of(label) or _AGGREGATE.match(label.strip()))


def _long_claims(table: Table, resolve_model: ModelResolver) -> list[ExtractedClaim] | None:
    names = [cell.lower() for cell in table.header]
    column = {key: _column(names, options) for key, options in _LONG_COLUMNS.items()}
    value_column = column["value"]
    metric_columns = [i for i, name in enumerate(names) if metric_of(name)]
    if value_column is None and column["dataset"] is not None and len(metric_columns) == 1:
        value_column = metric_columns[0]  # model | dataset | accuracy: still one number per row
    if column["model"] is None or value_column is None:
        return None  # not a long table: read as a wide one
    claims = []
    for row, line in zip(table.rows, table.row_lines, strict=True):
        if len(row) <= max(column["model"], value_column):
            continue
        fields = {key: row[i] if i is not None and i < len(row) and row[i] else None for key, i in column.items()}
        metric = metric_of(fields["metric"] or "") or metric_of(table.header[value_column]) or metric_of(table.caption)
        reading = read_value(
            row[value_column], metric=metric, percent_hint=has_percent_hint(table.header[value_column])
        )
        model_label, _ = clean_model_label(row[column["model"]])
        if reading is None or not model_label:
            continue
        dataset = resolve_dataset(fields["dataset"]) or resolve_dataset(table.caption)
        claims.append(
            ExtractedClaim(
                model=resolve_model(model_label),
                dataset=dataset.display if dataset else fields["dataset"],
                task_variant=subset_of(fields["subset"] or "") or fields["subset"],
                metric=metric,
                value=reading.value,
                raw_value=row[value_column][:100],
                unit=reading.unit,
                setting=fields["setting"] or settings_of(table.caption),
                evidence=f"{table.header_line}\n{line}"[:2000],
                notes=[reading.note] if reading.note else [],
            )
        )
    return claims


_LONG_COLUMNS: dict[str, tuple[str, ...]] = {
    "model": ("model", "models", "model name", "model id"),
    "value": ("value", "score", "result"),
    "dataset": ("dataset", "benchmark", "task", "exam"),
    "subset": ("subset", "split", "variant", "category", "section"),
    "metric": ("metric",),
    "setting": ("setting", "shots", "prompting", "mode"),
}


def _column(names: list[str], options: tuple[str, ...]) -> int | None:
    return next((i for i, name in enumerate(names) if name.strip() in options), None)


def _wide_claims(table: Table, resolve_model: ModelResolver) -> list[ExtractedClaim]:
    corner, column_labels = (table.header[0], table.header[1:]) if table.header else ("", [])
    row_labels = [row[0] if row else "" for row in table.rows]
    column_score = sum(_is_result_label(label) for label in column_labels)
    row_score = sum(_is_result_label(label) for label in row_labels)
    models_in_columns = row_score > column_score and corner.strip().lower() not in ("model", "models")
    table_metric = metric_of(corner) or metric_of(table.caption)
    table_dataset = resolve_dataset(corner) or resolve_dataset(table.caption)
    percent_hint = has_percent_hint(corner) or has_percent_hint(table.caption)
    setting = settings_of(f"{table.caption} {corner}")
    claims: list[ExtractedClaim] = []
    for row_index, row in enumerate(table.rows):
        for column_index in range(1, min(len(row), len(table.header))):
            model_label, result_label = (
                (column_labels[column_index - 1], row_labels[row_index])
                if models_in_columns
                else (row_labels[row_index], column_labels[column_index - 1])
            )
            if not model_label.strip() or _NOT_RESULTS.match(result_label.strip()):
                continue
            if not (_is_result_label(result_label) or table_dataset or table_metric):
                continue  # a column of something that is not a result (we cannot tell what it measures)
            dataset = resolve_dataset(result_label) or table_dataset
            metric = metric_of(result_label) or table_metric
            reading = read_value(row[column_index], metric=metric, percent_hint=percent_hint)
            if reading is None:
                continue
            year = _YEAR.search(result_label) if dataset else None
            variant = (
                subset_of(result_label)
                or (year.group(0) if year else None)
                or (
                    None
                    if dataset and result_label.strip().lower() == dataset.display.lower()
                    else result_label or None
                )
            )
            if variant and metric_of(variant) == metric and metric is not None and not subset_of(result_label):
                variant = None
            claims.append(
                ExtractedClaim(
                    model=resolve_model(clean_model_label(model_label)[0]),
                    dataset=dataset.display if dataset else None,
                    task_variant=variant,
                    metric=metric,
                    value=reading.value,
                    raw_value=row[column_index][:100],
                    unit=reading.unit,
                    setting=setting,
                    evidence=f"{table.header_line}\n{table.row_lines[row_index]}"[:2000],
                    notes=[reading.note] if reading.note else [],
                )
            )
    return claims
