"""Evaluation jobs of approved runs, and the claims workers hold on them.

A worker claims a queued job by writing its owner; it heart-beats while the run computes. The claim is a lease
(`store.leases`, shared with the harness's run claims): a job whose owner stopped (a dead process on this host, or
no heartbeat for a while) is claimed again, and the run resumes from the harness's per-item cache. A worker
stopped on purpose hands its job back (queued).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import aiosqlite

from store import leases
from store.clock import utc_now
from store.db import Store

COLUMNS = (
    "id, proposal_id, model_slug, task_ref, run_key, tier, endpoint, api_key_env, status, owner, attempts, "
    "heartbeat_at, run_id, message, created_at, finished_at"
)


@dataclass(frozen=True)
class Job:
    id: int
    proposal_id: int
    model_slug: str
    task_ref: str
    run_key: str
    tier: str
    endpoint: str
    api_key_env: str | None
    status: str  # 'queued' | 'running' | 'done' | 'failed'
    owner: str | None
    attempts: int
    heartbeat_at: str | None
    run_id: str | None
    message: str
    created_at: str
    finished_at: str | None


def from_row(row: sqlite3.Row) -> Job:
    return Job(**dict(row))


def get_job(store: Store, job_id: int) -> Job | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM jobs WHERE id = ?", (job_id,))
    return from_row(row) if row else None


def job_of_proposal(store: Store, proposal_id: int) -> Job | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM jobs WHERE proposal_id = ?", (proposal_id,))
    return from_row(row) if row else None


def list_jobs(store: Store, status: str | None, limit: int) -> list[Job]:
    if status is None:
        rows = store.read(f"SELECT {COLUMNS} FROM jobs ORDER BY id DESC LIMIT ?", (limit,))
    else:
        rows = store.read(f"SELECT {COLUMNS} FROM jobs WHERE status = ? ORDER BY id LIMIT ?", (status, limit))
    return [from_row(row) for row in rows]


def jobs_for(store: Store, model_slug: str, task_ref: str) -> list[Job]:
    """The jobs of one model on one task version, newest first."""
    rows = store.read(
        f"SELECT {COLUMNS} FROM jobs WHERE model_slug = ? COLLATE NOCASE AND task_ref = ? ORDER BY id DESC",
        (model_slug, task_ref),
    )
    return [from_row(row) for row in rows]


def open_jobs(store: Store) -> list[Job]:
    """Queued and running jobs, oldest first: what a worker may claim."""
    rows = store.read(f"SELECT {COLUMNS} FROM jobs WHERE status IN ('queued', 'running') ORDER BY id")
    return [from_row(row) for row in rows]


async def enqueue(
    db: aiosqlite.Connection,
    proposal_id: int,
    model_slug: str,
    task_ref: str,
    run_key: str,
    tier: str,
    endpoint: str,
    api_key_env: str | None,
) -> int:
    """Queue the job of an approved run inside the caller's transaction; a failed job is queued again."""
    cursor = await db.execute(
        "INSERT INTO jobs (proposal_id, model_slug, task_ref, run_key, tier, endpoint, api_key_env, status, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?) "
        "ON CONFLICT (proposal_id) DO UPDATE SET status = 'queued', owner = NULL, endpoint = excluded.endpoint, "
        "api_key_env = excluded.api_key_env, message = '', finished_at = NULL WHERE jobs.status = 'failed' "
        "RETURNING id",
        (proposal_id, model_slug, task_ref, run_key, tier, endpoint, api_key_env, utc_now()),
    )
    row = await cursor.fetchone()
    if row is None:
        raise ValueError(f"the job of proposal {proposal_id} is not failed; it is not queued again")
    return int(row[0])


async def claim(store: Store, job: Job, owner: str) -> bool:
    """Take a queued or stale job if it is still as the caller saw it (see `store.leases`)."""
    return await leases.take(store, leases.JOBS, job.id, job, owner)


async def heartbeat(store: Store, job_id: int, owner: str) -> bool:
    """Keep `owner`'s claim fresh; False when the job was taken over."""
    return await leases.heartbeat(store, leases.JOBS, job_id, owner)


async def release(store: Store, job_id: int, owner: str, message: str) -> bool:
    """Hand a running job back to the queue (its worker is stopping)."""
    async with store.transaction() as db:
        return await leases.end(db, leases.JOBS, job_id, owner, "queued", owner=None, message=message[:2000])


async def finish(
    db: aiosqlite.Connection, job_id: int, owner: str, status: str, run_id: str | None, message: str
) -> bool:
    """Record a job's end inside the caller's transaction, only if `owner` still holds it."""
    return await leases.end(
        db, leases.JOBS, job_id, owner, status, run_id=run_id, message=message[:2000], finished_at=utc_now()
    )
