"""Maintainers: a name, the public key id of their token and the token's keyed hash (never the token)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from store.clock import utc_now
from store.db import Store

COLUMNS = "id, name, key_id, token_hash, created_at, sessions_after, revoked_at"


@dataclass(frozen=True)
class Maintainer:
    id: int
    name: str
    key_id: str
    token_hash: str
    created_at: str
    sessions_after: str
    revoked_at: str | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def from_row(row: sqlite3.Row) -> Maintainer:
    return Maintainer(**dict(row))


def get_by_key_id(store: Store, key_id: str) -> Maintainer | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM maintainers WHERE key_id = ?", (key_id,))
    return from_row(row) if row else None


def get_by_id(store: Store, maintainer_id: int) -> Maintainer | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM maintainers WHERE id = ?", (maintainer_id,))
    return from_row(row) if row else None


def get_by_name(store: Store, name: str) -> Maintainer | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM maintainers WHERE name = ?", (name,))
    return from_row(row) if row else None


def list_maintainers(store: Store) -> list[Maintainer]:
    return [from_row(row) for row in store.read(f"SELECT {COLUMNS} FROM maintainers ORDER BY name")]


async def add_maintainer(store: Store, name: str, key_id: str, token_hash: str) -> Maintainer:
    """Insert a maintainer, or give an existing (even revoked) one a new token: the old token stops working,
    and so do the sessions opened with it."""
    now = utc_now()
    async with store.transaction() as db:
        await db.execute(
            "INSERT INTO maintainers (name, key_id, token_hash, created_at, sessions_after) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET key_id = excluded.key_id, token_hash = excluded.token_hash, "
            "sessions_after = excluded.sessions_after, revoked_at = NULL",
            (name, key_id, token_hash, now, now),
        )
    added = get_by_name(store, name)
    assert added is not None
    return added


async def revoke(store: Store, name: str) -> bool:
    async with store.transaction() as db:
        cursor = await db.execute(
            "UPDATE maintainers SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (utc_now(), name)
        )
        return cursor.rowcount == 1


async def end_sessions(store: Store, maintainer_id: int, at: str) -> None:
    """Refuse every web session of this maintainer issued before `at` (logging out ends them all)."""
    async with store.transaction() as db:
        await db.execute("UPDATE maintainers SET sessions_after = ? WHERE id = ?", (at, maintainer_id))
