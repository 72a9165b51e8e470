"""Sliding-window limits, keyed by the daily visitor hash (never an address), kept in the store, and the rules
that use them.

The rules punish the attacker, not the owner:

- Failed maintainer logins (brute force) are counted per visitor, per token key id and in total, and only a
  *failure* is ever refused: a valid token or session is checked first and always gets in, so no number of
  wrong tokens from anyone can lock a maintainer out.
- Withdrawal requests (spam) are counted per visitor for every request (5 an hour), and in total only for
  those that open a new entry in the queue: a request for a result that already has an open one is folded
  into it, so the queue holds at most one open request per result and a visitor repeating it closes nothing.
- Evaluation requests (spam) are counted per visitor and in total; a repeated request answers the first one
  and is not counted.

A visitor is an address's daily hash, an IPv6 address counted by its /64 (tools/usage.py), and the address is
the connection's own unless it comes from a proxy the operator named (`--forwarded-allow-ips`). The windows
live in the database (store/ratelimits.py), so every worker process of `serve --workers N` counts against one
limit; nothing about a visitor outlives the window. Only refusable writes are limited, never a read: `check` is
one indexed read, `record` and `hit` one short write.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from store import ratelimits
from store.db import Store
from tools.auth import parse_token
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
# Wrong secrets for one maintainer's key id, from any number of visitors (the key id is not secret).
TOKEN_FAILURES = Limit(per_visitor=20, total=100_000, window_seconds=900)
WITHDRAWAL_REQUESTS = Limit(per_visitor=5, total=100_000, window_seconds=3600)
NEW_WITHDRAWALS = Limit(per_visitor=5, total=200, window_seconds=3600)
# New evaluation requests (a repeated request answers the first one and is not counted): a person or agent asks
# for a few models at a time; a maintainer reads every one.
EVALUATION_REQUESTS = Limit(per_visitor=10, total=300, window_seconds=3600)


@dataclass(frozen=True)
class Limiters:
    """The limiters of one store, shared by every process that serves it."""

    login_failures: RateLimiter
    token_failures: RateLimiter
    withdrawals: RateLimiter
    new_withdrawals: RateLimiter

    @classmethod
    def of(cls, store: Store) -> Limiters:
        return cls(
            login_failures=RateLimiter(store, "login_failures", LOGIN_FAILURES, "failed logins"),
            token_failures=RateLimiter(store, "token_failures", TOKEN_FAILURES, "failed logins with this token id"),
            withdrawals=RateLimiter(store, "withdrawals", WITHDRAWAL_REQUESTS, "withdrawal requests"),
            new_withdrawals=RateLimiter(store, "new_withdrawals", NEW_WITHDRAWALS, "new withdrawal requests"),
        )

    async def login_failed(self, visitor: str | None, token: str) -> None:
        """Count one failed login: by its visitor and by the key id the token names (when it names one). Once
        either is over its limit the failure is answered `rate_limited` instead of `unauthorized`. Called only
        after the token was checked and refused, so a valid token never meets this limit."""
        key_id = parse_token(token) if len(token) < 200 else None
        self.login_failures.check(visitor)
        if key_id is not None:
            self.token_failures.check(key_id)
            await self.token_failures.record(key_id)
        await self.login_failures.record(visitor)
