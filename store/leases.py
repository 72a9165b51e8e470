"""Leases: which process holds a run or a job while it computes, one mechanism for both.

A lease is three columns of the leased row — its status (`running` while held), its `owner` (the holder) and its
`heartbeat_at` — so the run or job and who holds it change in one statement and nothing is stored twice. A new
run is created held (`store.runs.claim_run`); everything after that goes through here:

- `take`: acquire a free lease (a queued job, a failed run) or take over a stale one. A lease is stale when its
  holder is a process on this host that no longer exists, or when it has not heart-beaten for STALE_SECONDS.
- `heartbeat`: the holder says it is alive (a run also records how far it got), every HEARTBEAT_SECONDS.
- `end`: the holder lets go, with the row's next status (a job handed back is `queued`; a finished one `done`).

Every write is a compare-and-set on the holding as the caller read it (status, holder and heartbeat time), in
one write transaction, so of two processes that saw the same stale lease only one takes it, and a holder that
heart-beat meanwhile keeps it. `heartbeat` and `end` answer False once the caller no longer holds the lease: it
was taken over, and the new holder reports.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import aiosqlite

from store.clock import utc_now
from store.db import Store

HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 30.0
HELD = "running"


@dataclass(frozen=True)
class Leased:
    """How one table carries leases. Every fragment is fixed here: no SQL comes from a caller."""

    table: str
    key: str
    free: str  # the status a lease is taken from without a takeover
    on_take: str  # what else a take sets
    progress: str  # what else a heartbeat sets (bound names :done and :total)
    end_columns: frozenset[str]  # the columns `end` may set besides status and heartbeat


RUNS = Leased(
    table="runs",
    key="run_key",
    free="failed",  # taken again only when asked (`--resume`)
    on_take="error = ''",
    progress=", items_total = :total, items_done = :done",
    end_columns=frozenset({"error", "finished_at"}),
)
JOBS = Leased(
    table="jobs",
    key="id",
    free="queued",
    on_take="attempts = attempts + 1",
    progress="",
    end_columns=frozenset({"owner", "run_id", "message", "finished_at"}),
)


class Held(Protocol):
    """A leased row as read (a `Run` or a `Job`)."""

    @property
    def status(self) -> str: ...

    @property
    def owner(self) -> str | None: ...

    @property
    def heartbeat_at(self) -> str | None: ...


def process_holder(*more: str) -> str:
    """The holder name of this process: host:pid, then anything that tells its holders apart."""
    return ":".join((socket.gethostname(), str(os.getpid()), *more))


def holder_alive(holder: str | None) -> bool:
    """False when the holder (host:pid, perhaps :more) is a process on this host that no longer exists."""
    host, _, rest = (holder or "").partition(":")
    pid = rest.split(":", 1)[0]
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def heartbeat_stale(at: str | None, seconds: float = STALE_SECONDS, now: datetime | None = None) -> bool:
    """No heartbeat at all, or none for more than `seconds`."""
    if at is None:
        return True
    beat = datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return ((now or datetime.now(UTC)) - beat).total_seconds() > seconds


def is_stale(row: Held, now: datetime | None = None) -> bool:
    """A held lease whose holder process on this host is gone, or whose heartbeat stopped."""
    if row.status != HELD:
        return False
    return not holder_alive(row.owner) or heartbeat_stale(row.heartbeat_at, STALE_SECONDS, now)


def takeable(leased: Leased, row: Held, now: datetime | None = None) -> bool:
    """Free (a queued job, a failed run), or held by a holder that stopped."""
    return row.status == leased.free or is_stale(row, now)


async def take(store: Store, leased: Leased, key: str | int, seen: Held, holder: str) -> bool:
    """Take the lease if it may be taken and is still exactly as the caller read it; True when taken."""
    if not takeable(leased, seen):
        return False
    async with store.transaction() as db:
        cursor = await db.execute(
            f"UPDATE {leased.table} SET status = '{HELD}', owner = :holder, heartbeat_at = :now, {leased.on_take} "
            f"WHERE {leased.key} = :key AND status = :status AND owner IS :owner AND heartbeat_at IS :beat",
            {
                "holder": holder,
                "now": utc_now(),
                "key": key,
                "status": seen.status,
                "owner": seen.owner,
                "beat": seen.heartbeat_at,
            },
        )
        return cursor.rowcount == 1


async def heartbeat(
    store: Store, leased: Leased, key: str | int, holder: str, done: int = 0, total: int | None = None
) -> bool:
    """Keep a held lease fresh (and record a run's progress); False when `holder` no longer holds it."""
    async with store.transaction() as db:
        cursor = await db.execute(
            f"UPDATE {leased.table} SET heartbeat_at = :now{leased.progress} "
            f"WHERE {leased.key} = :key AND owner = :holder AND status = '{HELD}'",
            {"now": utc_now(), "done": done, "total": total, "key": key, "holder": holder},
        )
        return cursor.rowcount == 1


async def end(
    db: aiosqlite.Connection, leased: Leased, key: str | int, holder: str, status: str, **columns: Any
) -> bool:
    """Let go of a held lease inside the caller's transaction, setting the row's next status and `columns`;
    False (and nothing written) when `holder` no longer holds it."""
    unknown = set(columns) - leased.end_columns
    if unknown:
        raise ValueError(f"{leased.table} has no lease end column {sorted(unknown)}")
    assignments = "".join(f", {name} = :{name}" for name in sorted(columns))
    cursor = await db.execute(
        f"UPDATE {leased.table} SET status = :status, heartbeat_at = :now{assignments} "
        f"WHERE {leased.key} = :key AND owner = :holder AND status = '{HELD}'",
        {**columns, "status": status, "now": utc_now(), "key": key, "holder": holder},
    )
    return cursor.rowcount == 1
