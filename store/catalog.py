"""The benchmark catalog: every revision of every entry, the newest revision of each, and its search index.

An entry's JSON is stored exactly as it was imported (in canonical form); this module reads it only through
SQLite's JSON functions, for the tag and language filters. A revision is added only when the content is new
(see `save_revisions`), and the search index is rewritten in the same transaction as the entry it indexes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from store.clock import utc_now
from store.db import Store

Origin = Literal["shipped", "import"]
# "latest": a new revision unless the content equals the newest one (an explicit import).
# "any": a new revision unless the content equals any stored revision (the shipped entries at start, so an
# operator's newer import is not undone by a restart).
SkipWhen = Literal["latest", "any"]

REVISION_COLUMNS = "r.seq, r.id, r.revision, r.entry_json, r.entry_sha256, r.origin, r.imported_at"
# Filters shared by both list queries; every value is bound, absent filters are NULL.
FILTERS = """
    (:tag IS NULL OR EXISTS (
        SELECT 1 FROM json_each(r.entry_json, '$.page.tags') j WHERE j.type = 'text' AND lower(j.value) = :tag))
    AND (:language IS NULL OR EXISTS (
        SELECT 1 FROM json_each(r.entry_json, '$.page.dataset.languages') j
        WHERE j.type = 'text' AND lower(j.value) = :language))
    AND (:status IS NULL OR e.disposition = :status)
    AND (:runs_here IS NULL OR EXISTS (
        SELECT 1 FROM tasks t WHERE t.catalog_id = e.id AND t.demo = 0) = :runs_here)
"""
LIST_QUERIES = {
    "all": f"""
        SELECT {REVISION_COLUMNS}, COUNT(*) OVER () AS total
        FROM catalog_entries e JOIN catalog_revisions r ON r.id = e.id AND r.revision = e.revision
        WHERE {FILTERS}
        ORDER BY lower(e.name), e.id
        LIMIT :limit OFFSET :offset
    """,
    # An entry named exactly as searched comes first; then bm25 (lower is better), where name matches weigh
    # most, then aliases, tags and the summary.
    "search": f"""
        SELECT {REVISION_COLUMNS}, COUNT(*) OVER () AS total
        FROM (
            SELECT id, bm25(catalog_search, 0.0, 10.0, 5.0, 3.0, 1.0) AS score
            FROM catalog_search WHERE catalog_search MATCH :match
        ) s
        JOIN catalog_entries e ON e.id = s.id
        JOIN catalog_revisions r ON r.id = e.id AND r.revision = e.revision
        WHERE {FILTERS}
        ORDER BY lower(e.name) = :exact DESC, s.score, lower(e.name), e.id
        LIMIT :limit OFFSET :offset
    """,
}


@dataclass(frozen=True)
class Revision:
    """One stored revision of an entry: its JSON as imported (canonical form) and where it came from."""

    seq: int
    id: str
    revision: int
    entry_json: str
    entry_sha256: str
    origin: str
    imported_at: str


@dataclass(frozen=True)
class NewRevision:
    """What an import writes: the canonical JSON and the few values the list filters, sorts and searches on."""

    id: str
    name: str
    disposition: str
    entry_json: str
    entry_sha256: str
    aliases: str
    tags: str
    summary: str


@dataclass(frozen=True)
class Saved:
    id: str
    revision: int
    created: bool


@dataclass(frozen=True)
class Filters:
    """List filters; None means absent. `match` is an FTS5 expression built by the caller from words; `exact`,
    the searched text, puts an entry of exactly that name (any case) first."""

    tag: str | None = None
    language: str | None = None
    status: str | None = None
    runs_here: bool | None = None
    match: str | None = None
    exact: str | None = None
    limit: int = 100
    offset: int = 0


def from_row(row: sqlite3.Row) -> Revision:
    return Revision(**{key: row[key] for key in Revision.__dataclass_fields__})


def list_entries(store: Store, filters: Filters) -> tuple[list[Revision], int]:
    """The newest revision of each entry matching every filter, and how many match before the limit."""
    params = {
        "tag": filters.tag.lower() if filters.tag else None,
        "language": filters.language.lower() if filters.language else None,
        "status": filters.status,
        "runs_here": None if filters.runs_here is None else int(filters.runs_here),
        "match": filters.match,
        "exact": filters.exact.lower() if filters.exact else None,
        "limit": filters.limit,
        "offset": filters.offset,
    }
    rows = store.read(LIST_QUERIES["all" if filters.match is None else "search"], params)
    return [from_row(row) for row in rows], int(rows[0]["total"]) if rows else 0


def dispositions(store: Store) -> list[str]:
    """The disposition statuses entries have, sorted."""
    return [row[0] for row in store.read("SELECT DISTINCT disposition FROM catalog_entries ORDER BY 1")]


def all_entries(store: Store) -> list[Revision]:
    """The newest revision of every entry, in import order of their first revision."""
    rows = store.read(
        f"SELECT {REVISION_COLUMNS} FROM catalog_entries e "
        "JOIN catalog_revisions r ON r.id = e.id AND r.revision = e.revision "
        "ORDER BY (SELECT MIN(seq) FROM catalog_revisions f WHERE f.id = e.id)"
    )
    return [from_row(row) for row in rows]


def get_revision(store: Store, id: str, revision: int | None = None) -> Revision | None:
    """One revision of an entry; its newest when `revision` is None."""
    if revision is None:
        row = store.read_one(
            f"SELECT {REVISION_COLUMNS} FROM catalog_entries e "
            "JOIN catalog_revisions r ON r.id = e.id AND r.revision = e.revision WHERE e.id = ?",
            (id,),
        )
    else:
        row = store.read_one(
            f"SELECT {REVISION_COLUMNS} FROM catalog_revisions r WHERE r.id = ? AND r.revision = ?", (id, revision)
        )
    return from_row(row) if row else None


def list_revisions(store: Store, id: str) -> list[Revision]:
    rows = store.read(f"SELECT {REVISION_COLUMNS} FROM catalog_revisions r WHERE r.id = ? ORDER BY r.revision", (id,))
    return [from_row(row) for row in rows]


def find_entries(store: Store, names: Sequence[str]) -> dict[str, tuple[str, str]]:
    """For each name that is an entry's id or (case-insensitively) its name: {name: (id, entry name)}."""
    found: dict[str, tuple[str, str]] = {}
    for name in names:
        row = store.read_one(
            "SELECT id, name FROM catalog_entries WHERE id = ? OR lower(name) = lower(?) ORDER BY id = ? DESC LIMIT 1",
            (name, name, name),
        )
        if row is not None:
            found[name] = (row["id"], row["name"])
    return found


def entry_names(store: Store) -> list[tuple[str, str, list[str]]]:
    """(id, name, aliases) of the newest revision of every entry, by id."""
    rows = store.read(
        "SELECT e.id, e.name, json_extract(r.entry_json, '$.page.aliases') AS aliases FROM catalog_entries e "
        "JOIN catalog_revisions r ON r.id = e.id AND r.revision = e.revision ORDER BY e.id"
    )
    found = []
    for row in rows:
        aliases = json.loads(row["aliases"]) if row["aliases"] else []
        found.append((row["id"], row["name"], [a for a in aliases if isinstance(a, str)]))
    return found


async def save_revisions(
    store: Store, entries: Sequence[NewRevision], origin: Origin, skip_when: SkipWhen = "latest"
) -> list[Saved]:
    """Store each entry as a new revision unless its content is already stored (see SkipWhen), all in one
    transaction: either every new revision is written, with its entry row and search row, or none is."""
    saved = []
    async with store.transaction() as db:
        for entry in entries:
            cursor = await db.execute(
                "SELECT revision, entry_sha256 FROM catalog_revisions WHERE id = ? ORDER BY revision", (entry.id,)
            )
            stored = [(row["revision"], row["entry_sha256"]) for row in await cursor.fetchall()]
            latest = stored[-1][0] if stored else 0
            known = {sha for _, sha in stored} if skip_when == "any" else {sha for _, sha in stored[-1:]}
            if entry.entry_sha256 in known:
                saved.append(Saved(entry.id, latest, created=False))
                continue
            await db.execute(
                "INSERT INTO catalog_revisions (id, revision, entry_json, entry_sha256, origin, imported_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (entry.id, latest + 1, entry.entry_json, entry.entry_sha256, origin, utc_now()),
            )
            await db.execute(
                "INSERT INTO catalog_entries (id, revision, name, disposition) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, name = excluded.name, "
                "disposition = excluded.disposition",
                (entry.id, latest + 1, entry.name, entry.disposition),
            )
            await db.execute("DELETE FROM catalog_search WHERE id = ?", (entry.id,))
            await db.execute(
                "INSERT INTO catalog_search (id, name, aliases, tags, summary) VALUES (?, ?, ?, ?, ?)",
                (entry.id, entry.name, entry.aliases, entry.tags, entry.summary),
            )
            saved.append(Saved(entry.id, latest + 1, created=True))
    return saved
