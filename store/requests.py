"""Evaluation requests: a model and a task version someone asked to have run, with what they typed and nothing
about them. Each request is stored with the review proposal it entered the queue as."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import aiosqlite

from store.clock import utc_now
from store.db import Store

COLUMNS = (
    "id, model, model_key, model_slug, task_slug, task_version, source_url, note, source_read, proposal_id, created_at"
)


@dataclass(frozen=True)
class EvaluationRequest:
    id: int
    model: str  # as typed (the display form)
    model_key: str  # lower case
    model_slug: str  # the slug proposed or registered for it
    task_slug: str
    task_version: int
    source_url: str | None
    note: str
    source_read: str
    proposal_id: int
    created_at: str

    @property
    def task_ref(self) -> str:
        return f"{self.task_slug}@{self.task_version}"


@dataclass(frozen=True)
class NewRequest:
    model: str
    model_slug: str
    task_slug: str
    task_version: int
    source_url: str | None
    note: str
    source_read: str


def from_row(row: sqlite3.Row) -> EvaluationRequest:
    return EvaluationRequest(**dict(row))


def find_request(
    store: Store, model: str, slugs: tuple[str, ...], task_slug: str, task_version: int
) -> EvaluationRequest | None:
    """The request for this model (by the name typed, ignoring case, or by any of its slugs) on a task version."""
    slug_clause = "".join(" OR model_slug = ? COLLATE NOCASE" for _ in slugs)
    row = store.read_one(
        f"SELECT {COLUMNS} FROM evaluation_requests WHERE task_slug = ? AND task_version = ? "
        f"AND (model_key = ?{slug_clause}) ORDER BY id LIMIT 1",
        (task_slug, task_version, model.lower(), *slugs),
    )
    return from_row(row) if row else None


async def insert_request(db: aiosqlite.Connection, new: NewRequest, proposal_id: int) -> int | None:
    """Store a request inside the caller's transaction; None when one for the same model and task exists."""
    cursor = await db.execute(
        f"INSERT INTO evaluation_requests ({COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (model_key, task_slug, task_version) DO NOTHING",
        (
            new.model,
            new.model.lower(),
            new.model_slug,
            new.task_slug,
            new.task_version,
            new.source_url,
            new.note,
            new.source_read,
            proposal_id,
            utc_now(),
        ),
    )
    return int(cursor.lastrowid) if cursor.rowcount == 1 and cursor.lastrowid is not None else None
