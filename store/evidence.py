"""External evidence: metrics another harness reported for a model, kept apart from results (no run key, no rank)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, fields

import aiosqlite

from store.db import Store


@dataclass(frozen=True)
class ReportedMetric:
    """What an evidence row says: one metric another harness reported (the fields the API's evidence row is
    built on, declared once here)."""

    id: int
    source: str
    harness: str
    harness_version: str
    external_model: str
    task_name: str
    task_version: str
    dataset: str
    filter: str
    metric: str
    value: float
    stderr: float | None
    ci_low: float | None
    ci_high: float | None
    n_samples: int | None
    n_shot: int | None
    evaluated_at: str


@dataclass(frozen=True)
class Evidence(ReportedMetric):
    """A stored evidence row: the metric, the model it is attached to, and the file it came from."""

    model_slug: str
    file_sha256: str
    imported_at: str


FIELDS = tuple(field.name for field in fields(Evidence))
COLUMNS = ", ".join(FIELDS)
INSERT = (
    f"INSERT OR IGNORE INTO evidence ({', '.join(FIELDS[1:])}) "
    f"VALUES ({', '.join('?' for _ in FIELDS[1:])}) RETURNING id"
)


def from_row(row: sqlite3.Row) -> Evidence:
    return Evidence(**dict(row))


async def insert_evidence(db: aiosqlite.Connection, evidence: Evidence, items: Sequence[tuple[str, bool]]) -> bool:
    """Store one metric and its per-item outcomes; False when this file's metric is stored already."""
    cursor = await db.execute(INSERT, [getattr(evidence, name) for name in FIELDS[1:]])
    row = await cursor.fetchone()
    if row is None:
        return False
    await db.executemany(
        "INSERT OR IGNORE INTO evidence_items (evidence_id, item_id, correct) VALUES (?, ?, ?)",
        [(row[0], item_id, int(correct)) for item_id, correct in items],
    )
    return True


def evidence_of_model(store: Store, model_slug: str) -> list[Evidence]:
    rows = store.read(
        f"SELECT {COLUMNS} FROM evidence WHERE model_slug = ? COLLATE NOCASE ORDER BY evaluated_at DESC, id",
        (model_slug,),
    )
    return [from_row(row) for row in rows]


def evidence_items(store: Store, evidence_id: int) -> dict[str, bool]:
    rows = store.read("SELECT item_id, correct FROM evidence_items WHERE evidence_id = ?", (evidence_id,))
    return {str(row["item_id"]): bool(row["correct"]) for row in rows}


def stored_metrics(store: Store, file_sha256: str) -> set[tuple[str, str, str]]:
    """(task, filter, metric) of every metric of one file already stored, for any model."""
    rows = store.read("SELECT task_name, filter, metric FROM evidence WHERE file_sha256 = ?", (file_sha256,))
    return {(str(row["task_name"]), str(row["filter"]), str(row["metric"])) for row in rows}
