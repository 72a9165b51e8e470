"""Models and every name a caller may use for one (slug, provider model id, aliases)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

import aiosqlite

from store.clock import utc_now
from store.db import Store

COLUMNS = (
    "slug, name, type, provider, provider_model_id, version, status, endpoint, "
    "price_input_per_mtok, price_output_per_mtok, created_at"
)


@dataclass(frozen=True)
class Model:
    slug: str
    name: str
    type: str
    provider: str
    provider_model_id: str | None = None
    version: str = ""
    status: str = "published"
    endpoint: str | None = None
    price_input_per_mtok: float | None = None
    price_output_per_mtok: float | None = None
    created_at: str = ""
    aliases: tuple[str, ...] = field(default=())

    def names(self) -> set[str]:
        """The names this model answers to."""
        names = {self.slug, *self.aliases}
        if self.provider_model_id:
            names.add(self.provider_model_id)
        return names


def from_row(row: sqlite3.Row, aliases: tuple[str, ...] = ()) -> Model:
    return Model(**dict(row), aliases=aliases)


def get_model(store: Store, slug: str) -> Model | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM models WHERE slug = ?", (slug,))
    if row is None:
        return None
    aliases = tuple(
        r["alias"] for r in store.read("SELECT alias FROM model_aliases WHERE model_slug = ? ORDER BY alias", (slug,))
    )
    return from_row(row, aliases)


def find_models(store: Store, name: str) -> list[str]:
    """Slugs of the models that answer to `name` (a slug, a provider model id or an alias), ignoring case."""
    rows = store.read(
        "SELECT DISTINCT model_slug FROM model_aliases WHERE alias = ? COLLATE NOCASE ORDER BY model_slug", (name,)
    )
    return [row["model_slug"] for row in rows]


def list_models(store: Store) -> list[Model]:
    return [from_row(row) for row in store.read(f"SELECT {COLUMNS} FROM models ORDER BY slug")]


def all_aliases(store: Store) -> dict[str, tuple[str, ...]]:
    """slug → every other name of that model (for listing models, and "did you mean")."""
    found: dict[str, list[str]] = {}
    for row in store.read("SELECT alias, model_slug FROM model_aliases WHERE alias != model_slug ORDER BY alias"):
        found.setdefault(row["model_slug"], []).append(row["alias"])
    return {slug: tuple(names) for slug, names in found.items()}


async def upsert_model(store: Store, model: Model) -> None:
    """Register a model, or update its description; its names are replaced by the model's names()."""
    async with store.transaction() as db:
        await write_model(db, model)


async def write_model(db: aiosqlite.Connection, model: Model) -> None:
    """`upsert_model` inside a transaction the caller holds."""
    await db.execute(
        f"INSERT INTO models ({COLUMNS}) VALUES ({', '.join('?' * 11)}) "
        "ON CONFLICT (slug) DO UPDATE SET name = excluded.name, type = excluded.type, "
        "provider = excluded.provider, provider_model_id = excluded.provider_model_id, "
        "version = excluded.version, endpoint = excluded.endpoint, "
        "price_input_per_mtok = excluded.price_input_per_mtok, "
        "price_output_per_mtok = excluded.price_output_per_mtok",
        (
            model.slug,
            model.name,
            model.type,
            model.provider,
            model.provider_model_id,
            model.version,
            model.status,
            model.endpoint,
            model.price_input_per_mtok,
            model.price_output_per_mtok,
            model.created_at or utc_now(),
        ),
    )
    await db.execute("DELETE FROM model_aliases WHERE model_slug = ?", (model.slug,))
    await db.executemany(
        "INSERT INTO model_aliases (alias, model_slug) VALUES (?, ?)",
        [(name, model.slug) for name in sorted(model.names())],
    )


async def set_model_status(store: Store, slug: str, status: str) -> None:
    async with store.transaction() as db:
        await write_model_status(db, slug, status)


async def write_model_status(db: aiosqlite.Connection, slug: str, status: str, only_from: str | None = None) -> None:
    """`set_model_status` inside a transaction the caller holds; with `only_from`, only from that status."""
    if only_from is None:
        await db.execute("UPDATE models SET status = ? WHERE slug = ?", (status, slug))
    else:
        await db.execute("UPDATE models SET status = ? WHERE slug = ? AND status = ?", (status, slug, only_from))


def models_by_slug(store: Store, slugs: set[str]) -> dict[str, Model]:
    """Several models in one read (without their aliases), for building tables."""
    if not slugs:
        return {}
    ordered = sorted(slugs)
    rows = store.read(f"SELECT {COLUMNS} FROM models WHERE slug IN ({', '.join('?' * len(ordered))})", ordered)
    return {row["slug"]: from_row(row) for row in rows}
