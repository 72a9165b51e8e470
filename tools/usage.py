"""Counting reuse without tracking anyone.

A visitor is known only by a daily hash: sha256(day key ‖ Korea-time date ‖ address), where the day key is
random, made for that day and deleted after it (tools/visitor_keys.py) and an IPv6 address counts by its /64.
The address is never stored or logged, the hash changes every day, and once a day is over nobody can recompute
its hashes. Lookups that find a result count once each;
downloads (a listed result's predictions file or JSON, a leaderboard CSV) count once per visitor, file
and Korea-time day; known crawlers are not counted. Browser page visits come only from beacons (the
small script on each page posts its path to /v1/beacon) and count once per page, visitor and day, and only
for a page the server sent that visitor that day (noted by server/served_pages.py).
Events and visits are buffered in memory and written in batches by `flush`, so counting never adds a
write to a request.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, timezone

from store import events as event_store
from store import visits as visit_store
from store.db import Store

KOREA = timezone(timedelta(hours=9), "KST")  # Korea has no daylight saving time.
# Known crawler user agents, kept in this one place. Agents acting for a person (curl, httpx, MCP
# clients) are users, not crawlers, and are counted.
BOT_AGENTS = re.compile(
    r"bot\b|bot/|crawler|spider|slurp|bingpreview|facebookexternalhit|embedly|quora link preview|"
    r"whatsapp|slackbot|discordbot|telegrambot|applebot|yandex|baiduspider|duckduckbot|semrush|ahrefs|"
    r"mj12bot|petalbot|bytespider|gptbot|ccbot|claudebot|amazonbot|headlesschrome|lighthouse",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Visitor:
    """Who made a request, as far as counting needs to know."""

    hash: str | None
    day: str
    bot: bool = False

    @classmethod
    def anonymous(cls) -> Visitor:
        return cls(hash=None, day=korea_day(), bot=False)

    @classmethod
    def uncounted(cls) -> Visitor:
        """A call that never counts as reuse (a HEAD request; `bot` means "not counted")."""
        return cls(hash=None, day=korea_day(), bot=True)

    @classmethod
    def local(cls, secret: bytes) -> Visitor:
        """The one caller of a stdio session: a fixed daily hash, so its downloads count once a day, as one
        visitor's do over HTTP."""
        day = korea_day()
        digest = hashlib.sha256(secret + b"\x00" + day.encode() + b"\x00stdio").hexdigest()
        return cls(hash=digest, day=day, bot=False)


def korea_day(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).astimezone(KOREA).date().isoformat()


def is_bot(user_agent: str | None) -> bool:
    return bool(user_agent) and BOT_AGENTS.search(user_agent or "") is not None


def visitor_address(address: str) -> str:
    """The part of an address that names one visitor: an IPv4 address (also when written as IPv6-mapped), or
    the /64 network of an IPv6 address, since one subscriber or host is given a whole /64 and could otherwise
    be 2^64 visitors. Anything else (a Unix socket path, a test client's name) is taken as it is."""
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


def visitor_for(key: bytes, address: str | None, user_agent: str | None, now: datetime | None = None) -> Visitor:
    """The visitor hash of an address under a day's key; the address goes no further than this function."""
    day = korea_day(now)
    if not address:
        return Visitor(hash=None, day=day, bot=is_bot(user_agent))
    named = visitor_address(address).encode()
    digest = hashlib.sha256(key + b"\x00" + day.encode() + b"\x00" + named).hexdigest()
    return Visitor(hash=digest, day=day, bot=is_bot(user_agent))


def utc_stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# A beacon may reach one worker before the page's record, served by another worker, reaches the store: it waits
# this many flushes (a few seconds each) for it, then counts nothing.
MAX_WAIT_FLUSHES = 5


@dataclass
class UsageCounter:
    """Buffers reuse events, pages served and page visits until the next flush."""

    pending: list[event_store.Event] = field(default_factory=list)
    # where an event of the same kind, target, visitor and day sits in `pending` (folded into it, not appended)
    folded: dict[tuple[str, str, str | None, str], int] = field(default_factory=dict)
    pending_visits: list[visit_store.Visit] = field(default_factory=list)
    pending_served: set[visit_store.Visit] = field(default_factory=set)
    waiting: dict[visit_store.Visit, int] = field(default_factory=dict)  # visits whose page is not known served yet

    def count_served(self, visitor: Visitor, path: str) -> None:
        """A page sent to a visitor: today, a beacon from that visitor for that page is a visit."""
        if not visitor.bot:
            self.pending_served.add(visit_store.Visit(path, visitor.hash, visitor.day))

    def count_visit(self, visitor: Visitor, path: str) -> None:
        """A beacon from a browser that opened `path` (already checked to be one of our pages). It counts once the
        store knows the page was served to this visitor today, so a script posting beacons counts nothing."""
        if visitor.bot:
            return
        self.pending_visits.append(visit_store.Visit(path, visitor.hash, visitor.day))

    def count_lookup(self, visitor: Visitor, run_id: str) -> None:
        self._add("lookup", run_id, run_id, visitor)

    def count_download(self, visitor: Visitor, target: str, run_id: str | None) -> None:
        self._add("download", target, run_id, visitor)

    def _add(self, kind: str, target: str, run_id: str | None, visitor: Visitor) -> None:
        """Buffer one event. A lookup repeated before the next flush adds to the row it repeats (each counts); a
        download repeated by one visitor the same day is left out, as the store would ignore it."""
        if visitor.bot:
            return
        key = (kind, target, visitor.hash, visitor.day)
        at = self.folded.get(key) if visitor.hash is not None else None
        if at is None:
            self.folded[key] = len(self.pending)
            self.pending.append(event_store.Event(kind, target, run_id, visitor.hash, visitor.day, utc_stamp()))
        elif kind == "lookup":
            self.pending[at] = replace(self.pending[at], n=self.pending[at].n + 1)

    async def flush(self, store: Store) -> int:
        """Write what is buffered; return how many events and visits were handed to the store. What a failed
        write held (its transaction rolled back) goes back to the buffer for the next flush; a visit whose page
        is not known to have been served waits a few flushes for it."""
        batch, self.pending, self.folded = self.pending, [], {}
        visits, self.pending_visits = self.pending_visits, []
        served, self.pending_served = self.pending_served, set()
        try:
            await event_store.record_events(store, batch)
        except Exception:
            self.pending[:0], self.pending_visits[:0] = batch, visits
            self.folded = {}  # positions moved; what comes next is appended (still counted once each)
            self.pending_served |= served
            raise
        try:
            unserved = await visit_store.record_visits(store, list(served), [*visits, *self.waiting])
        except Exception:
            self.pending_visits[:0] = visits
            self.pending_served |= served
            raise
        ages = {visit: self.waiting.get(visit, 0) + 1 for visit in unserved}
        self.waiting = {visit: age for visit, age in ages.items() if age < MAX_WAIT_FLUSHES}
        return len(batch) + len(visits)
