"""Task versions: the hashed spec, its metadata and lifecycle status.

A stored version's spec never changes: `upsert_task` refuses a different spec_hash for an existing
`slug@version` (a changed definition is a new version), and keeps the stored status, which maintainers
own once the version exists.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import aiosqlite

from store.clock import utc_now
from store.db import Store, StoreError

COLUMNS = (
    "slug, version, kind, dataset_slug, title, summary, primary_metric, higher_is_better, preview, demo, "
    "status, spec_json, spec_hash, change_note, contamination_note, catalog_id, created_at"
)
# Results that count on a leaderboard: published and complete.
N_RESULTS = (
    "(SELECT COUNT(*) FROM results r WHERE r.task_slug = t.slug AND r.task_version = t.version "
    "AND r.status = 'published' AND r.partial = 0)"
)


@dataclass(frozen=True)
class Task:
    slug: str
    version: int
    kind: str
    dataset_slug: str
    title: str
    summary: str
    primary_metric: str
    higher_is_better: bool
    preview: bool
    demo: bool
    status: str
    spec_json: str
    spec_hash: str
    change_note: str
    contamination_note: str
    catalog_id: str | None
    created_at: str
    n_results: int = 0

    @property
    def ref(self) -> str:
        return f"{self.slug}@{self.version}"


def from_row(row: sqlite3.Row) -> Task:
    values = dict(row)
    for flag in ("higher_is_better", "preview", "demo"):
        values[flag] = bool(values[flag])
    return Task(**values)


def list_tasks(store: Store) -> list[Task]:
    rows = store.read(f"SELECT {COLUMNS}, {N_RESULTS} AS n_results FROM tasks t ORDER BY demo, slug, version")
    return [from_row(row) for row in rows]


def get_task(store: Store, slug: str, version: int) -> Task | None:
    row = store.read_one(
        f"SELECT {COLUMNS}, {N_RESULTS} AS n_results FROM tasks t WHERE slug = ? AND version = ?",
        (slug, version),
    )
    return from_row(row) if row else None


def task_versions(store: Store, slug: str) -> list[Task]:
    rows = store.read(
        f"SELECT {COLUMNS}, {N_RESULTS} AS n_results FROM tasks t WHERE slug = ? ORDER BY version", (slug,)
    )
    return [from_row(row) for row in rows]


def tasks_for_catalog(store: Store, catalog_id: str) -> list[Task]:
    """The task versions that run the benchmark of a catalog entry (their `catalog_id`), demo tasks last."""
    rows = store.read(
        f"SELECT {COLUMNS}, {N_RESULTS} AS n_results FROM tasks t WHERE catalog_id = ? ORDER BY demo, slug, version",
        (catalog_id,),
    )
    return [from_row(row) for row in rows]


def latest_version(store: Store, slug: str) -> int | None:
    """The latest published version of a task, or the latest version when none is published yet."""
    row = store.read_one(
        "SELECT version FROM tasks WHERE slug = ? ORDER BY status = 'published' DESC, version DESC LIMIT 1",
        (slug,),
    )
    return int(row["version"]) if row else None


def row_values(task: Task) -> tuple[object, ...]:
    """The task's values in COLUMNS order, as a row stores them (booleans as 0/1, a creation time when none)."""
    return (
        task.slug,
        task.version,
        task.kind,
        task.dataset_slug,
        task.title,
        task.summary,
        task.primary_metric,
        int(task.higher_is_better),
        int(task.preview),
        int(task.demo),
        task.status,
        task.spec_json,
        task.spec_hash,
        task.change_note,
        task.contamination_note,
        task.catalog_id,
        task.created_at or utc_now(),
    )


async def upsert_task(store: Store, task: Task) -> None:
    """Insert a task version, or refresh its metadata; refuse a changed spec for a stored version."""
    async with store.transaction() as db:
        cursor = await db.execute(
            "SELECT spec_hash FROM tasks WHERE slug = ? AND version = ?", (task.slug, task.version)
        )
        existing = await cursor.fetchone()
        if existing is None:
            await db.execute(
                f"INSERT INTO tasks ({COLUMNS}) VALUES ({', '.join('?' * 17)})",
                row_values(task),
            )
            return
        if existing["spec_hash"] != task.spec_hash:
            raise StoreError(
                f"{task.ref}: the stored spec has hash {existing['spec_hash'][:12]}…, the new one "
                f"{task.spec_hash[:12]}…; a changed definition must be a new version"
            )
        metadata = (
            task.title,
            task.summary,
            int(task.preview),
            int(task.demo),
            task.change_note,
            task.contamination_note,
            task.catalog_id,
        )
        await db.execute(  # a change note a maintainer wrote when publishing wins over the file's (0006)
            "UPDATE tasks SET title = ?, summary = ?, preview = ?, demo = ?, "
            "change_note = CASE WHEN note_set_by = '' THEN ? ELSE change_note END, "
            "contamination_note = ?, catalog_id = ? WHERE slug = ? AND version = ? "
            # unchanged metadata is not written: every process start would otherwise empty every read cache
            "AND (title, summary, preview, demo, change_note, contamination_note, catalog_id) IS NOT "
            "(?, ?, ?, ?, CASE WHEN note_set_by = '' THEN ? ELSE change_note END, ?, ?)",
            (*metadata, task.slug, task.version, *metadata),
        )


async def set_task_status(store: Store, slug: str, version: int, status: str) -> None:
    async with store.transaction() as db:
        await db.execute("UPDATE tasks SET status = ? WHERE slug = ? AND version = ?", (status, slug, version))


async def write_task_status(
    db: aiosqlite.Connection, slug: str, version: int, status: str, only_from: str, note: str | None, actor: str
) -> bool:
    """Move a task version from `only_from` to `status` inside the caller's transaction; a given note becomes
    its change note, kept over the shipped file's note from then on."""
    if note is None:
        cursor = await db.execute(
            "UPDATE tasks SET status = ? WHERE slug = ? AND version = ? AND status = ?",
            (status, slug, version, only_from),
        )
    else:
        cursor = await db.execute(
            "UPDATE tasks SET status = ?, change_note = ?, note_set_by = ? "
            "WHERE slug = ? AND version = ? AND status = ?",
            (status, note, actor, slug, version, only_from),
        )
    return cursor.rowcount == 1


async def insert_task(db: aiosqlite.Connection, task: Task, actor: str) -> bool:
    """Record a new task version (a maintainer's accepted change) unless the version exists; its note is theirs."""
    cursor = await db.execute(
        f"INSERT INTO tasks ({COLUMNS}, note_set_by) VALUES ({', '.join('?' * 18)}) "
        "ON CONFLICT (slug, version) DO NOTHING",
        (*row_values(task), actor),
    )
    return cursor.rowcount == 1
