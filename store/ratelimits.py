"""Rate-limit windows kept in the database, so every server process on one file counts against one limit.

A window is the events of one limit since a moment: how many, and the oldest (which says when a place frees).
Reads run inline on the reader connection; counting an event checks and writes in one IMMEDIATE transaction,
so two processes can never both take the last place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aiosqlite

from store.db import Store


@dataclass(frozen=True)
class Window:
    count: int
    oldest: float | None  # Unix seconds of the oldest event still in the window


@dataclass(frozen=True)
class Usage:
    mine: Window  # the events counted against one key
    everyone: Window  # the events of the limit, all keys together


MINE = "SELECT COUNT(*), MIN(at) FROM rate_events WHERE limiter = ? AND key = ? AND at > ?"
EVERYONE = "SELECT COUNT(*), MIN(at) FROM rate_events WHERE limiter = ? AND at > ?"


def window(row: Sequence[Any] | None) -> Window:
    return Window(int(row[0]), row[1]) if row else Window(0, None)


def usage(store: Store, limiter: str, key: str, since: float) -> Usage:
    """The events of `limiter` after `since`: for `key`, and for everyone."""
    mine = store.read_one(MINE, (limiter, key, since))
    everyone = store.read_one(EVERYONE, (limiter, since))
    return Usage(window(mine), window(everyone))


async def usage_in(db: aiosqlite.Connection, limiter: str, key: str, since: float) -> Usage:
    async with db.execute(MINE, (limiter, key, since)) as cursor:
        mine = await cursor.fetchone()
    async with db.execute(EVERYONE, (limiter, since)) as cursor:
        everyone = await cursor.fetchone()
    return Usage(window(mine), window(everyone))


async def count_event(
    store: Store, limiter: str, key: str, at: float, since: float, per_key: int | None, total: int | None
) -> Usage | None:
    """Count one event at `at` unless `key` already has `per_key` events after `since` or everyone `total`
    (None: no such cap); return None when counted, else the usage that refused it. Events of this limit
    from before `since` are deleted in the same transaction."""
    async with store.transaction() as db:
        await db.execute("DELETE FROM rate_events WHERE limiter = ? AND at <= ?", (limiter, since))
        if per_key is not None or total is not None:
            used = await usage_in(db, limiter, key, since)
            if (per_key is not None and used.mine.count >= per_key) or (
                total is not None and used.everyone.count >= total
            ):
                return used
        await db.execute("INSERT INTO rate_events (limiter, key, at) VALUES (?, ?, ?)", (limiter, key, at))
    return None
