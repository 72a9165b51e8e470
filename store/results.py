"""Results: one row per run key, never two. Metrics, config and versions are stored as canonical JSON."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import aiosqlite

from store.db import Store

COLUMNS = (
    "run_id, run_key, key_json, model_slug, task_slug, task_version, spec_hash, tier, status, partial, "
    "primary_metric, primary_value, metrics_json, n, n_units, parse_rate, cost_usd, eval_date, config_json, "
    "versions_json, instance_set_hash, predictions_path, predictions_sha256, predictions_rows, bibtex, "
    "status_reason, created_at"
)
FIELDS = tuple(name.strip() for name in COLUMNS.split(","))


@dataclass(frozen=True)
class Result:
    run_id: str
    run_key: str
    key_json: str
    model_slug: str
    task_slug: str
    task_version: int
    spec_hash: str
    tier: str
    status: str
    partial: bool
    primary_metric: str
    primary_value: float | None
    metrics_json: str
    n: int
    n_units: int
    parse_rate: float | None
    cost_usd: float | None
    eval_date: str
    config_json: str
    versions_json: str
    instance_set_hash: str
    predictions_path: str
    predictions_sha256: str
    predictions_rows: int
    bibtex: str
    status_reason: str
    created_at: str

    @property
    def task_ref(self) -> str:
        return f"{self.task_slug}@{self.task_version}"


@dataclass(frozen=True)
class ResultFilter:
    """Filters of a result search; None means any."""

    dataset_slug: str | None = None
    task_slug: str | None = None
    task_version: int | None = None
    model_slugs: tuple[str, ...] | None = None
    model_type: str | None = None
    tier: str | None = None
    status: str | None = "published"
    include_partial: bool = False


@dataclass(frozen=True)
class Ranked:
    """What a leaderboard reads of a published, complete result (a fraction of the row: leaderboards are rebuilt
    after every write, and the full rows cost ten times as much to read)."""

    run_id: str
    model_slug: str
    tier: str
    status: str
    primary_metric: str
    primary_value: float | None
    metrics_json: str
    n: int
    parse_rate: float | None
    cost_usd: float | None
    eval_date: str


RANKED = (
    "run_id, model_slug, tier, status, primary_metric, primary_value, metrics_json, n, parse_rate, cost_usd, eval_date"
)


def ranked_results(store: Store, task_slug: str, task_version: int) -> list[Ranked]:
    """Published, complete results of one task version, unordered (the caller ranks them)."""
    rows = store.read(
        f"SELECT {RANKED} FROM results WHERE task_slug = ? AND task_version = ? AND status = 'published' "
        "AND partial = 0",
        (task_slug, task_version),
    )
    return [Ranked(*row) for row in rows]


def from_row(row: sqlite3.Row) -> Result:
    return Result(**{**dict(row), "partial": bool(row["partial"])})


def get_result(store: Store, run_id: str) -> Result | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM results WHERE run_id = ?", (run_id,))
    return from_row(row) if row else None


def get_result_by_key(store: Store, run_key: str) -> Result | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM results WHERE run_key = ?", (run_key,))
    return from_row(row) if row else None


def filter_sql(where: ResultFilter) -> tuple[str, list[object]]:
    """The FROM … WHERE of a result search. Every value is bound; the clauses are fixed text."""
    clauses: list[str] = []
    params: list[object] = []
    if where.dataset_slug is not None:
        clauses.append("t.dataset_slug = ?")
        params.append(where.dataset_slug)
    if where.task_slug is not None:
        clauses.append("r.task_slug = ?")
        params.append(where.task_slug)
    if where.task_version is not None:
        clauses.append("r.task_version = ?")
        params.append(where.task_version)
    if where.model_slugs is not None:
        clauses.append(f"r.model_slug IN ({', '.join('?' * len(where.model_slugs))})")
        params.extend(where.model_slugs)
    if where.model_type is not None:
        clauses.append("m.type = ?")
        params.append(where.model_type)
    if where.tier is not None:
        clauses.append("r.tier = ?")
        params.append(where.tier)
    if where.status is not None:
        clauses.append("r.status = ?")
        params.append(where.status)
    if not where.include_partial:
        clauses.append("r.partial = 0")
    sql = (
        "FROM results r JOIN models m ON m.slug = r.model_slug "
        "JOIN tasks t ON t.slug = r.task_slug AND t.version = r.task_version"
        + (" WHERE " + " AND ".join(clauses) if clauses else "")
    )
    return sql, params


def search_results(store: Store, where: ResultFilter, limit: int = 1000, offset: int = 0) -> list[Result]:
    """Results matching every filter, newest first, from the `offset`-th."""
    sql, params = filter_sql(where)
    rows = store.read(
        f"SELECT {', '.join('r.' + name for name in FIELDS)} {sql} ORDER BY r.created_at DESC, r.run_id "
        "LIMIT ? OFFSET ?",
        [*params, limit, offset],
    )
    return [from_row(row) for row in rows]


def count_results(store: Store, where: ResultFilter) -> int:
    """How many results match every filter."""
    sql, params = filter_sql(where)
    return int(store.read(f"SELECT count(*) {sql}", params)[0][0])


async def run_key_taken(db: aiosqlite.Connection, run_key: str) -> bool:
    """Whether a result with this run key is stored, read inside the caller's write transaction."""
    cursor = await db.execute("SELECT 1 FROM results WHERE run_key = ?", (run_key,))
    return await cursor.fetchone() is not None


async def insert_result(db: aiosqlite.Connection, result: Result) -> None:
    """Insert inside a transaction the caller holds; the UNIQUE run_key refuses a second row for a key."""
    values = [int(result.partial) if name == "partial" else getattr(result, name) for name in FIELDS]
    await db.execute(f"INSERT INTO results ({COLUMNS}) VALUES ({', '.join('?' * len(values))})", values)


async def set_result_status(store: Store, run_id: str, status: str, reason: str = "") -> None:
    async with store.transaction() as db:
        await write_result_status(db, run_id, status, reason)


async def write_result_status(
    db: aiosqlite.Connection, run_id: str, status: str, reason: str, only_from: tuple[str, ...] | None = None
) -> bool:
    """`set_result_status` inside a transaction the caller holds; with `only_from`, only from those statuses."""
    sql = "UPDATE results SET status = ?, status_reason = ? WHERE run_id = ?"
    params: list[object] = [status, reason, run_id]
    if only_from is not None:
        sql += f" AND status IN ({', '.join('?' * len(only_from))})"
        params.extend(only_from)
    cursor = await db.execute(sql, params)
    return cursor.rowcount == 1


def published_totals(store: Store) -> dict[str, float]:
    """Counts over published, complete results: results, models, tasks, known total cost."""
    row = store.read_one(
        "SELECT COUNT(*) AS results, COUNT(DISTINCT model_slug) AS models, "
        "COUNT(DISTINCT task_slug || '@' || task_version) AS tasks, COALESCE(SUM(cost_usd), 0) AS cost, "
        "SUM(cost_usd IS NULL) AS unknown_cost FROM results WHERE status = 'published' AND partial = 0"
    )
    assert row is not None  # an aggregate always returns one row
    return {key: row[key] or 0 for key in row.keys()}  # noqa: SIM118 (sqlite3.Row iterates over values)


def model_has_results(store: Store, model_slug: str) -> bool:
    return store.read_one("SELECT 1 FROM results WHERE model_slug = ? LIMIT 1", (model_slug,)) is not None


def published_counts_by_model(store: Store) -> dict[str, int]:
    """How many published, complete results each model has (models without any are absent)."""
    rows = store.read(
        "SELECT model_slug, COUNT(*) AS results FROM results WHERE status = 'published' AND partial = 0 "
        "GROUP BY model_slug"
    )
    return {row["model_slug"]: row["results"] for row in rows}
