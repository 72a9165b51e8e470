"""Authors' requests to withdraw a result: the run id, the reason and an optional contact; never an address."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import aiosqlite

from store.clock import utc_now
from store.db import Store

COLUMNS = "id, run_id, reason, contact, status, created_at, decided_by, decided_at, decision_why"


@dataclass(frozen=True)
class WithdrawalRequest:
    id: int
    run_id: str
    reason: str
    contact: str
    status: str  # 'open' | 'withdrawn' | 'declined'
    created_at: str
    decided_by: str | None
    decided_at: str | None
    decision_why: str


def from_row(row: sqlite3.Row) -> WithdrawalRequest:
    return WithdrawalRequest(**dict(row))


def get_request(store: Store, request_id: int) -> WithdrawalRequest | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM withdrawal_requests WHERE id = ?", (request_id,))
    return from_row(row) if row else None


def list_requests(store: Store, status: str | None, limit: int) -> list[WithdrawalRequest]:
    if status is None:
        rows = store.read(f"SELECT {COLUMNS} FROM withdrawal_requests ORDER BY id DESC LIMIT ?", (limit,))
    else:
        rows = store.read(
            f"SELECT {COLUMNS} FROM withdrawal_requests WHERE status = ? ORDER BY id LIMIT ?", (status, limit)
        )
    return [from_row(row) for row in rows]


def open_request(store: Store, run_id: str) -> WithdrawalRequest | None:
    """The oldest open request for a result, if it has one."""
    sql = f"SELECT {COLUMNS} FROM withdrawal_requests WHERE run_id = ? AND status = 'open' ORDER BY id LIMIT 1"
    row = store.read_one(sql, (run_id,))
    return from_row(row) if row else None


async def insert_request(store: Store, run_id: str, reason: str, contact: str) -> WithdrawalRequest:
    """A new open request, unless the result has one already (opened meanwhile): then that one."""
    async with store.transaction() as db:
        rows = await db.execute_fetchall(
            "SELECT id FROM withdrawal_requests WHERE run_id = ? AND status = 'open' ORDER BY id LIMIT 1", (run_id,)
        )
        existing = list(rows)
        if existing:
            request_id = int(existing[0][0])
        else:
            cursor = await db.execute(
                "INSERT INTO withdrawal_requests (run_id, reason, contact, status, created_at) "
                "VALUES (?, ?, ?, 'open', ?)",
                (run_id, reason, contact, utc_now()),
            )
            request_id = int(cursor.lastrowid or 0)
    stored = get_request(store, request_id)
    assert stored is not None
    return stored


async def close_requests(
    db: aiosqlite.Connection, run_id: str, status: str, actor: str, why: str, request_id: int | None = None
) -> int:
    """Close the open requests of a result (or one request) inside the caller's transaction; return how many."""
    sql = (
        "UPDATE withdrawal_requests SET status = ?, decided_by = ?, decided_at = ?, decision_why = ? "
        "WHERE run_id = ? AND status = 'open'"
    )
    params: list[object] = [status, actor, utc_now(), why, run_id]
    if request_id is not None:
        sql += " AND id = ?"
        params.append(request_id)
    cursor = await db.execute(sql, params)
    return cursor.rowcount
