"""The audit log: append-only (triggers refuse UPDATE and DELETE). Entries are written inside the caller's
transaction, so an action and its entry are stored together or not at all."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import aiosqlite

from store.clock import utc_now
from store.db import Store

COLUMNS = "id, at, actor, action, target, why, details_json"


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    actor: str
    action: str
    target: str
    why: str
    details_json: str


def from_row(row: sqlite3.Row) -> AuditEntry:
    return AuditEntry(**dict(row))


async def append(db: aiosqlite.Connection, actor: str, action: str, target: str, why: str, details_json: str) -> None:
    """Append one entry inside a transaction the caller holds."""
    await db.execute(
        "INSERT INTO audit_log (at, actor, action, target, why, details_json) VALUES (?, ?, ?, ?, ?, ?)",
        (utc_now(), actor, action, target, why, details_json),
    )


def list_entries(store: Store, limit: int, before: int | None = None) -> list[AuditEntry]:
    """Newest first; `before` pages back from an entry id."""
    if before is None:
        rows = store.read(f"SELECT {COLUMNS} FROM audit_log ORDER BY id DESC LIMIT ?", (limit,))
    else:
        rows = store.read(f"SELECT {COLUMNS} FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?", (before, limit))
    return [from_row(row) for row in rows]
