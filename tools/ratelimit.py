"""Sliding-window limits, keyed by the daily visitor hash (never an address), and the rules that use them.

The rules punish the attacker, not the owner:

- Failed maintainer logins (brute force) are counted per visitor, per token key id and in total, and only a
  *failure* is ever refused: a valid token or session is checked first and always gets in, so no number of
  wrong tokens from anyone can lock a maintainer out.
- Withdrawal requests (spam) are counted per visitor for every request (5 an hour), and in total only for
  those that open a new entry in the queue: a request for a result that already has an open one is folded
  into it, so the queue holds at most one open request per result and a visitor repeating it closes nothing.

A visitor is an address's daily hash, an IPv6 address counted by its /64 (tools/usage.py), and the address is
the connection's own unless it comes from a proxy the operator named (`--forwarded-allow-ips`). The windows
live in `RateLimiter`; `check`, `record` and `hit` are all the rules use, so where the counts are kept can
change without touching them. Nothing about a visitor outlives the window.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field

from tools.auth import parse_token
from tools.errors import RateLimited


@dataclass(frozen=True)
class Limit:
    per_visitor: int
    total: int
    window_seconds: float


@dataclass
class RateLimiter:
    limit: Limit
    what: str  # for the message: "failed logins", "withdrawal requests"
    _by_visitor: dict[str, deque[float]] = field(default_factory=dict)
    _all: deque[float] = field(default_factory=deque)

    def _prune(self, now: float) -> None:
        horizon = now - self.limit.window_seconds
        while self._all and self._all[0] <= horizon:
            self._all.popleft()
        for key in [k for k, times in self._by_visitor.items() if not times or times[-1] <= horizon]:
            del self._by_visitor[key]
        for times in self._by_visitor.values():
            while times and times[0] <= horizon:
                times.popleft()

    def check(self, visitor: str | None, now: float | None = None) -> None:
        """Raise `rate_limited` when this visitor, or everyone together, used up the window."""
        now = time.monotonic() if now is None else now
        self._prune(now)
        mine = self._by_visitor.get(visitor or "-")
        if mine is not None and len(mine) >= self.limit.per_visitor:
            self._refuse(mine[0], now)
        if len(self._all) >= self.limit.total:
            self._refuse(self._all[0], now)

    def record(self, visitor: str | None, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self._by_visitor.setdefault(visitor or "-", deque()).append(now)
        self._all.append(now)

    def hit(self, visitor: str | None, now: float | None = None) -> None:
        """Check, then count one event (for things limited whether or not they succeed)."""
        self.check(visitor, now)
        self.record(visitor, now)

    def _refuse(self, oldest: float, now: float) -> None:
        retry_after = max(1, math.ceil(oldest + self.limit.window_seconds - now))
        raise RateLimited(f"too many {self.what}; try again in {retry_after} s", retry_after)


LOGIN_FAILURES = Limit(per_visitor=10, total=100, window_seconds=900)
# Wrong secrets for one maintainer's key id, from any number of visitors (the key id is not secret).
TOKEN_FAILURES = Limit(per_visitor=20, total=100_000, window_seconds=900)
WITHDRAWAL_REQUESTS = Limit(per_visitor=5, total=100_000, window_seconds=3600)
NEW_WITHDRAWALS = Limit(per_visitor=5, total=200, window_seconds=3600)


@dataclass
class Limiters:
    """The limiters one server process keeps."""

    login_failures: RateLimiter = field(default_factory=lambda: RateLimiter(LOGIN_FAILURES, "failed logins"))
    token_failures: RateLimiter = field(
        default_factory=lambda: RateLimiter(TOKEN_FAILURES, "failed logins with this token id")
    )
    withdrawals: RateLimiter = field(default_factory=lambda: RateLimiter(WITHDRAWAL_REQUESTS, "withdrawal requests"))
    new_withdrawals: RateLimiter = field(
        default_factory=lambda: RateLimiter(NEW_WITHDRAWALS, "new withdrawal requests")
    )

    def login_failed(self, visitor: str | None, token: str) -> None:
        """Count one failed login: by its visitor and by the key id the token names (when it names one). Once
        either is over its limit the failure is answered `rate_limited` instead of `unauthorized`. Called only
        after the token was checked and refused, so a valid token never meets this limit."""
        key_id = parse_token(token) if len(token) < 200 else None
        self.login_failures.check(visitor)
        if key_id is not None:
            self.token_failures.check(key_id)
            self.token_failures.record(key_id)
        self.login_failures.record(visitor)
