"""Sliding-window limits, keyed by the daily visitor hash (never an address), kept in the store.

Used for failed maintainer logins (brute force) and for withdrawal requests (spam). Each limit has a share
per visitor and a total over all visitors, so neither one address nor many can go past it. The windows live
in the database (store/ratelimits.py), so every worker process of `serve --workers N` counts against one
limit; nothing about a visitor outlives the window. Only refusable writes are limited (logins, withdrawals),
never a read: `check` is one indexed read, `record` and `hit` one short write.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from store import ratelimits
from store.db import Store
from tools.errors import RateLimited


@dataclass(frozen=True)
class Limit:
    per_visitor: int
    total: int
    window_seconds: float


@dataclass(frozen=True)
class RateLimiter:
    store: Store
    name: str  # the limit's key in the store: "login_failures", "withdrawals"
    limit: Limit
    what: str  # for the message: "failed logins", "withdrawal requests"

    def check(self, visitor: str | None, now: float | None = None) -> None:
        """Raise `rate_limited` when this visitor, or everyone together, used up the window."""
        now = time.time() if now is None else now
        used = ratelimits.usage(self.store, self.name, visitor or "-", now - self.limit.window_seconds)
        self._raise_if_full(used, now)

    async def record(self, visitor: str | None, now: float | None = None) -> None:
        """Count one event (for things limited after they fail, such as a login)."""
        now = time.time() if now is None else now
        since = now - self.limit.window_seconds
        await ratelimits.count_event(self.store, self.name, visitor or "-", now, since, None, None)

    async def hit(self, visitor: str | None, now: float | None = None) -> None:
        """Check, then count one event (for things limited whether or not they succeed): one transaction, so
        two workers can never both take the last place."""
        now = time.time() if now is None else now
        since = now - self.limit.window_seconds
        refused = await ratelimits.count_event(
            self.store, self.name, visitor or "-", now, since, self.limit.per_visitor, self.limit.total
        )
        if refused is not None:
            self._raise_if_full(refused, now)

    def _raise_if_full(self, used: ratelimits.Usage, now: float) -> None:
        if used.mine.count >= self.limit.per_visitor:
            self._refuse(used.mine.oldest, now)
        if used.everyone.count >= self.limit.total:
            self._refuse(used.everyone.oldest, now)

    def _refuse(self, oldest: float | None, now: float) -> None:
        start = now if oldest is None else oldest
        retry_after = max(1, math.ceil(start + self.limit.window_seconds - now))
        raise RateLimited(f"too many {self.what}; try again in {retry_after} s", retry_after)


LOGIN_FAILURES = Limit(per_visitor=10, total=100, window_seconds=900)
WITHDRAWAL_REQUESTS = Limit(per_visitor=5, total=200, window_seconds=3600)


@dataclass(frozen=True)
class Limiters:
    """The limiters of one store, shared by every process that serves it."""

    login_failures: RateLimiter
    withdrawals: RateLimiter

    @classmethod
    def of(cls, store: Store) -> Limiters:
        return cls(
            login_failures=RateLimiter(store, "login_failures", LOGIN_FAILURES, "failed logins"),
            withdrawals=RateLimiter(store, "withdrawals", WITHDRAWAL_REQUESTS, "withdrawal requests"),
        )
