"""A consistent copy of the database file while it is in use, and what a backup needs to read from a copy.

`copy_database` uses SQLite's online backup API in one step: it reads one snapshot under a read transaction
(WAL readers do not block writers), so the copy holds every committed transaction up to one moment and none
after it. The copy is a single file in rollback-journal mode, ready to be moved elsewhere.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from store.db import configure


@dataclass(frozen=True)
class StoredFile:
    run_id: str
    path: str  # relative to the artifacts folder
    sha256: str


def copy_database(source: Path, destination: Path) -> None:
    reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True, isolation_level=None)
    writer = sqlite3.connect(destination, isolation_level=None)
    try:
        configure(reader)
        reader.backup(writer)  # pages=-1: the whole database from one snapshot
        writer.execute("PRAGMA journal_mode = DELETE")
    finally:
        writer.close()
        reader.close()


def integrity_check(db: Path) -> str:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return "; ".join(str(row[0]) for row in connection.execute("PRAGMA integrity_check"))
    finally:
        connection.close()


def table_counts(db: Path) -> dict[str, int]:
    """Rows per table (names come from sqlite_master, never from a caller)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        names = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        return {name: int(connection.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]) for name in names}
    finally:
        connection.close()


def stored_files(db: Path) -> list[StoredFile]:
    """The predictions file every result row pins, with its sha256."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = connection.execute(
            "SELECT run_id, predictions_path, predictions_sha256 FROM results ORDER BY run_id"
        ).fetchall()
    finally:
        connection.close()
    return [StoredFile(run_id, path, sha256) for run_id, path, sha256 in rows]
