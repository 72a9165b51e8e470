"""The audit log of every maintainer action: who, when, what, to which target, and why. Append-only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import aiosqlite
import orjson
from pydantic import Field

from store import audit as audit_store
from store.db import Store
from tools.registry import Registry
from tools.schemas import ROW_ID_MAX, Shape

if TYPE_CHECKING:
    from tools.maintainers import Actor


class AuditEntry(Shape):
    id: int
    at: str = Field(description="UTC, ISO 8601.")
    actor: str = Field(description="The maintainer's name, cli:<user> for the command line, or evaluator.")
    action: str
    target: str = Field(description="What was acted on, e.g. proposal:3, result:0123456789ab, task:clinicalqa@1.")
    why: str
    details: dict[str, Any]


class AuditLog(Shape):
    entries: list[AuditEntry]


class AuditQuery(Shape):
    limit: int = Field(default=100, ge=1, le=1000, description="At most this many entries, newest first.")
    before: int | None = Field(default=None, ge=1, le=ROW_ID_MAX, description="Only entries older than this entry id.")


async def append(
    db: aiosqlite.Connection, actor: Actor, action: str, target: str, why: str, details: dict[str, Any]
) -> None:
    """Write an entry inside the caller's transaction, so the action and its entry commit together."""
    await audit_store.append(db, actor.name, action, target, why, orjson.dumps(details).decode())


async def record(store: Store, actor: Actor, action: str, target: str, why: str, details: dict[str, Any]) -> None:
    """Write an entry in its own transaction (for actions that are nothing but the entry, e.g. a login)."""
    async with store.transaction() as db:
        await append(db, actor, action, target, why, details)


async def audit_log(registry: Registry, query: AuditQuery) -> AuditLog:
    """The audit log, newest first."""
    entries = audit_store.list_entries(registry.store, query.limit, query.before)
    return AuditLog(entries=[AuditEntry.from_row(e, details=orjson.loads(e.details_json)) for e in entries])
