"""Maintainers: who may review, how a token or a web session proves it, and the audit trail of their logins."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import Field

from store import maintainers as maintainer_store
from store.maintainers import Maintainer
from tools.audit import record
from tools.auth import Keys, Session, parse_token
from tools.errors import BadRequest, Unauthorized
from tools.registry import Registry
from tools.schemas import Shape

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,39}$")
REFUSED = "a maintainer token is required (Authorization: Bearer TOKEN); the one given is missing, wrong or revoked"
_DUMMY_HASH = "0" * 64


@dataclass(frozen=True)
class Actor:
    """Who does a review action: a maintainer (by name), the CLI's operator, or the evaluator itself."""

    name: str
    maintainer_id: int | None = None


class MaintainerInfo(Shape):
    name: str
    created_at: str
    revoked_at: str | None = Field(description="Set when the maintainer's token was revoked.")


async def add_maintainer(registry: Registry, keys: Keys, name: str, actor: Actor) -> tuple[Maintainer, str]:
    """Register a maintainer (or issue a new token to one): return the row and the token, shown once.
    Only the token's keyed hash is stored; a previous token of the same name stops working."""
    if NAME.match(name) is None:
        raise BadRequest("a maintainer name is 1-40 characters: lowercase letters, digits, '.', '_' or '-'")
    new = keys.new_token()
    maintainer = await maintainer_store.add_maintainer(registry.store, name, new.key_id, keys.token_hash(new.token))
    await record(registry.store, actor, "maintainer_add", f"maintainer:{name}", "", {"key_id": new.key_id})
    return maintainer, new.token


async def revoke_maintainer(registry: Registry, name: str, actor: Actor, why: str) -> bool:
    revoked = await maintainer_store.revoke(registry.store, name)
    if revoked:
        await record(registry.store, actor, "maintainer_revoke", f"maintainer:{name}", why, {})
    return revoked


def list_maintainers(registry: Registry) -> list[MaintainerInfo]:
    return [
        MaintainerInfo(name=m.name, created_at=m.created_at, revoked_at=m.revoked_at)
        for m in maintainer_store.list_maintainers(registry.store)
    ]


def authenticate_token(registry: Registry, keys: Keys, token: str | None) -> Maintainer:
    """The active maintainer a token belongs to, or `unauthorized`. The comparison is constant-time, and an
    unknown key id still costs one comparison, so timing tells nothing about which ids exist."""
    key_id = parse_token(token) if token and len(token) < 200 else None
    maintainer = maintainer_store.get_by_key_id(registry.store, key_id) if key_id else None
    matches = keys.token_matches(token or "", maintainer.token_hash if maintainer else _DUMMY_HASH)
    if maintainer is None or not matches or not maintainer.active:
        raise Unauthorized(REFUSED)
    return maintainer


def session_maintainer(registry: Registry, keys: Keys, session: Session | None) -> Maintainer | None:
    """The maintainer of a signed, unexpired session, if they are still active, still hold the token the
    session was opened with, and have not logged out since."""
    if session is None:
        return None
    maintainer = maintainer_store.get_by_id(registry.store, session.maintainer_id)
    if maintainer is None or not maintainer.active or maintainer.key_id != session.key_id:
        return None
    if datetime.fromtimestamp(session.issued / 1000, UTC) < datetime.fromisoformat(maintainer.sessions_after):
        return None
    return maintainer


async def log_in(registry: Registry, keys: Keys, token: str) -> tuple[Maintainer, str]:
    """Exchange a token for a signed session cookie value (the login is audited)."""
    maintainer = authenticate_token(registry, keys, token)
    cookie = keys.sign_session(maintainer.id, maintainer.key_id)
    await record(registry.store, actor_of(maintainer), "login", f"maintainer:{maintainer.name}", "", {})
    return maintainer, cookie


async def log_out(registry: Registry, maintainer: Maintainer) -> None:
    """End every web session of this maintainer issued until now."""
    # Sessions are dated to the millisecond and this instant to the microsecond: every session issued until now
    # ends, and a login a moment later (even in the same second) opens one that lives.
    after = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    await maintainer_store.end_sessions(registry.store, maintainer.id, after)
    await record(registry.store, actor_of(maintainer), "logout", f"maintainer:{maintainer.name}", "", {})


def actor_of(maintainer: Maintainer) -> Actor:
    return Actor(maintainer.name, maintainer.id)
