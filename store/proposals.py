"""Papers the evaluator agent read, and what it proposed from them (models to register, runs to compute)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import aiosqlite

from store.clock import utc_now
from store.db import Store

READING_COLUMNS = "id, sha256, source, extractor, record_json, outcome_json, read_by, read_at"
COLUMNS = (
    "id, key, kind, status, reading_id, model_slug, task_ref, run_key, tier, payload_json, reason, excerpt, "
    "created_at, decided_by, decided_at, decision_why"
)


@dataclass(frozen=True)
class Reading:
    id: int
    sha256: str
    source: str
    extractor: str
    record_json: str
    outcome_json: str
    read_by: str
    read_at: str


@dataclass(frozen=True)
class Proposal:
    id: int
    key: str
    kind: str  # 'model' | 'run'
    status: str  # 'pending' | 'approved' | 'rejected'
    reading_id: int
    model_slug: str
    task_ref: str | None
    run_key: str | None
    tier: str | None
    payload_json: str
    reason: str
    excerpt: str
    created_at: str
    decided_by: str | None
    decided_at: str | None
    decision_why: str


@dataclass(frozen=True)
class NewProposal:
    """A proposal before it is stored."""

    key: str
    kind: str
    model_slug: str
    task_ref: str | None
    run_key: str | None
    tier: str | None
    payload_json: str
    reason: str
    excerpt: str


def get_reading(store: Store, reading_id: int) -> Reading | None:
    row = store.read_one(f"SELECT {READING_COLUMNS} FROM paper_readings WHERE id = ?", (reading_id,))
    return Reading(**dict(row)) if row else None


def list_readings(store: Store, limit: int) -> list[Reading]:
    rows = store.read(f"SELECT {READING_COLUMNS} FROM paper_readings ORDER BY id DESC LIMIT ?", (limit,))
    return [Reading(**dict(row)) for row in rows]


def reading_of_document(store: Store, sha256: str, extractor: str) -> Reading | None:
    """The latest reading of one document by one extractor (an evidence file is read once)."""
    row = store.read_one(
        f"SELECT {READING_COLUMNS} FROM paper_readings WHERE sha256 = ? AND extractor = ? ORDER BY id DESC LIMIT 1",
        (sha256, extractor),
    )
    return Reading(**dict(row)) if row else None


def from_row(row: sqlite3.Row) -> Proposal:
    return Proposal(**dict(row))


def get_proposal(store: Store, proposal_id: int) -> Proposal | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM proposals WHERE id = ?", (proposal_id,))
    return from_row(row) if row else None


def get_by_key(store: Store, key: str) -> Proposal | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM proposals WHERE key = ?", (key,))
    return from_row(row) if row else None


def list_proposals(store: Store, status: str | None, limit: int) -> list[Proposal]:
    if status is None:
        rows = store.read(f"SELECT {COLUMNS} FROM proposals ORDER BY id DESC LIMIT ?", (limit,))
    else:
        rows = store.read(f"SELECT {COLUMNS} FROM proposals WHERE status = ? ORDER BY id LIMIT ?", (status, limit))
    return [from_row(row) for row in rows]


def run_proposals_for(store: Store, model_slug: str, task_ref: str) -> list[Proposal]:
    """The run proposals of one model on one task version, newest first."""
    rows = store.read(
        f"SELECT {COLUMNS} FROM proposals WHERE kind = 'run' AND model_slug = ? COLLATE NOCASE AND task_ref = ? "
        "ORDER BY id DESC",
        (model_slug, task_ref),
    )
    return [from_row(row) for row in rows]


def proposals_of_reading(store: Store, reading_id: int) -> list[Proposal]:
    rows = store.read(f"SELECT {COLUMNS} FROM proposals WHERE reading_id = ? ORDER BY id", (reading_id,))
    return [from_row(row) for row in rows]


async def insert_reading(
    db: aiosqlite.Connection, sha256: str, source: str, extractor: str, record_json: str, read_by: str
) -> int:
    """A reading inside the caller's transaction; its outcome is filled in once the proposals are stored."""
    cursor = await db.execute(
        "INSERT INTO paper_readings (sha256, source, extractor, record_json, outcome_json, read_by, read_at) "
        "VALUES (?, ?, ?, ?, '[]', ?, ?)",
        (sha256, source, extractor, record_json, read_by, utc_now()),
    )
    assert cursor.lastrowid is not None
    return int(cursor.lastrowid)


async def set_outcome(db: aiosqlite.Connection, reading_id: int, outcome_json: str) -> None:
    await db.execute("UPDATE paper_readings SET outcome_json = ? WHERE id = ?", (outcome_json, reading_id))


async def insert_proposal(db: aiosqlite.Connection, reading_id: int, new: NewProposal) -> int | None:
    """Store a proposal unless one with the same key exists (then None: nothing new is proposed)."""
    cursor = await db.execute(
        "INSERT INTO proposals (key, kind, status, reading_id, model_slug, task_ref, run_key, tier, payload_json, "
        "reason, excerpt, created_at) VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (key) DO NOTHING",
        (
            new.key,
            new.kind,
            reading_id,
            new.model_slug,
            new.task_ref,
            new.run_key,
            new.tier,
            new.payload_json,
            new.reason,
            new.excerpt,
            utc_now(),
        ),
    )
    return int(cursor.lastrowid) if cursor.rowcount == 1 and cursor.lastrowid is not None else None


async def decide(db: aiosqlite.Connection, proposal_id: int, status: str, actor: str, why: str) -> bool:
    """Move a pending proposal to approved or rejected (compare-and-set on 'pending')."""
    cursor = await db.execute(
        "UPDATE proposals SET status = ?, decided_by = ?, decided_at = ?, decision_why = ? "
        "WHERE id = ? AND status = 'pending'",
        (status, actor, utc_now(), why, proposal_id),
    )
    return cursor.rowcount == 1
