"""What a store holds, read from its files: every row of every table, and the sha256 of every artifact. Tests of
hostile input, faults and backups compare these before and after."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

Rows = dict[str, list[tuple[object, ...]]]


def database_rows(db: Path, skip: tuple[str, ...] = ()) -> Rows:
    """Every row of every table (sorted), on a read-only connection; FTS shadow tables included; the cache
    generation counter and the rate-limit windows left out (bookkeeping: the counter moves at every start, the
    windows count failed and refused attempts, which is their purpose, and forget them as they age)."""
    skip = (*skip, "generation", "rate_events")
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            table: sorted(connection.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
            for table in sorted(tables)
            if table not in skip
        }
    finally:
        connection.close()


def file_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every file under `folder`, by relative path."""
    if not folder.exists():
        return {}
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def integrity(db: Path) -> str:
    connection = sqlite3.connect(db)
    try:
        return str(connection.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        connection.close()


def results_without_their_file(db: Path, artifacts: Path) -> list[str]:
    """run_ids whose predictions file is missing or does not have the stored sha256."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = connection.execute("SELECT run_id, predictions_path, predictions_sha256 FROM results").fetchall()
    finally:
        connection.close()
    bad = []
    for run_id, relative, sha256 in rows:
        path = artifacts / relative
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != sha256:
            bad.append(run_id)
    return bad
