"""The daily visitor keys: one random key per Korea-time day, kept only for today and tomorrow."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from store.db import Store

KEY_BYTES = 32


async def keep_days(store: Store, days: Sequence[str]) -> dict[str, bytes]:
    """Make a key for each of `days` that has none, delete every other day's key and the pages served on days
    before them (overwritten on disk: secure delete), and return the keys of `days`. Processes doing this at once
    agree: the first key made wins."""
    marks = ", ".join("?" for _ in days)
    async with store.transaction() as db:
        await db.execute("PRAGMA secure_delete = ON")
        for day in days:
            await db.execute(
                "INSERT INTO visitor_keys (day, key) VALUES (?, ?) ON CONFLICT (day) DO NOTHING",
                (day, secrets.token_bytes(KEY_BYTES)),
            )
        await db.execute(f"DELETE FROM visitor_keys WHERE day NOT IN ({marks})", tuple(days))
        await db.execute("DELETE FROM served_pages WHERE day < ?", (min(days),))
        rows = await db.execute_fetchall(f"SELECT day, key FROM visitor_keys WHERE day IN ({marks})", tuple(days))
    return {str(row[0]): bytes(row[1]) for row in rows}


def key_of_day(store: Store, day: str) -> bytes | None:
    row = store.read_one("SELECT key FROM visitor_keys WHERE day = ?", (day,))
    return bytes(row[0]) if row else None
