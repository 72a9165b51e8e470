"""Privacy that expires: the key of the daily visitor hash is made at random for one Korea-time day and destroyed
after it.

A hash keyed by a permanent secret can be reversed by whoever holds the secret (the IPv4 space is 2^32 addresses:
minutes on a GPU per day of history). So each day has its own random key, kept in the store (so every worker
process hashes a visitor alike) from the day before it begins until it ends, then deleted and overwritten. Once
a day has passed, nothing can recompute its hashes from an address: not the operator, not a copy of the server.
Each process keeps the keys of today and tomorrow in memory and drops a day's key when the day is over.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from store import visitor_keys as key_store
from store.db import Store
from tools.usage import KOREA, korea_day

log = logging.getLogger("benchtoward")
REFRESH_SECONDS = 600.0  # besides the tick just after each Korea-time midnight


def days_kept(now: datetime | None = None) -> list[str]:
    """Today and tomorrow, in Korea time."""
    now = now or datetime.now(UTC)
    return [korea_day(now), korea_day(now + timedelta(days=1))]


def seconds_to_midnight(now: datetime | None = None) -> float:
    """Seconds until just after the next Korea-time midnight."""
    local = (now or datetime.now(UTC)).astimezone(KOREA)
    midnight = datetime.combine(local.date() + timedelta(days=1), datetime.min.time(), KOREA)
    return (midnight - local).total_seconds() + 1.0


@dataclass
class DailyKeys:
    """The visitor keys one process holds: today's and tomorrow's, as the store has them."""

    keys: dict[str, bytes] = field(default_factory=dict)

    async def refresh(self, store: Store, now: datetime | None = None) -> None:
        """Make the keys of today and tomorrow if missing, delete older ones, and hold exactly these two."""
        self.keys = await key_store.keep_days(store, days_kept(now))

    def key(self, store: Store, day: str) -> bytes:
        """The key of `day` (today, for the caller): from memory, else from the store; other days are dropped.
        Should the store have none (it always has, made a day ahead), a key of this process alone is used for
        the day and never written anywhere."""
        found = self.keys.get(day) or key_store.key_of_day(store, day)
        if found is None:
            log.warning("no visitor key for %s in the store; using one of this process", day)
            found = secrets.token_bytes(key_store.KEY_BYTES)
        if day not in self.keys or min(self.keys) < day:  # a day began: the day before is forgotten here too
            self.keys = {kept: key for kept, key in self.keys.items() if kept > day} | {day: found}
        return found

    async def keep_forever(self, store: Store) -> None:
        """Refresh just after each Korea-time midnight and every REFRESH_SECONDS; a failure is logged, retried."""
        while True:  # the server's start has just refreshed them: wait first, so no write races its first requests
            await asyncio.sleep(min(REFRESH_SECONDS, seconds_to_midnight()))
            try:
                await self.refresh(store)
            except Exception:
                log.exception("could not refresh the daily visitor keys")
