"""In-memory sliding-window limits, keyed by the daily visitor hash (never an address).

Used for failed maintainer logins (brute force), withdrawal requests and evaluation requests (spam). Each limit
has a share per visitor and a total over all visitors, so neither one address nor many can go past it. The windows live
in the server process: with several worker processes each keeps its own (a multiple of the limit, still
bounded); nothing about a visitor outlives the window.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field

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
WITHDRAWAL_REQUESTS = Limit(per_visitor=5, total=200, window_seconds=3600)
# New evaluation requests (a repeated request answers the first one and is not counted): a person or agent asks
# for a few models at a time; a maintainer reads every one.
EVALUATION_REQUESTS = Limit(per_visitor=10, total=300, window_seconds=3600)


@dataclass
class Limiters:
    """The limiters one server process keeps."""

    login_failures: RateLimiter = field(default_factory=lambda: RateLimiter(LOGIN_FAILURES, "failed logins"))
    withdrawals: RateLimiter = field(default_factory=lambda: RateLimiter(WITHDRAWAL_REQUESTS, "withdrawal requests"))
