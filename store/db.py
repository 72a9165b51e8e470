"""The one SQLite store: connections, migrations and the single write path.

Reads run inline on a read-only connection: they are short, indexed and cost ~10-50 µs, far less than
a thread hop. Writes go through one writer connection behind one lock (`transaction()`), so two
coroutines can never interleave statements inside each other's transactions. Several processes may
open the same file (WAL, busy timeout); SQLite serialises their writers.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

T = TypeVar("T")
Params = Sequence[Any] | dict[str, Any]
MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
BUSY_TIMEOUT_MS = 10_000


def create_private(path: Path) -> None:
    """Create the database file readable by the service alone (0600), unless it exists: SQLite then gives its
    -wal and -shm files the same mode, so visitor hashes and token hashes are not readable by every local user."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


class StoreError(Exception):
    """The store cannot do what was asked (a conflict with what is stored, a bad migration)."""


def migrations() -> list[tuple[int, str, str]]:
    """The numbered migrations shipped with the package: (number, name, sql), in order of number."""
    found = []
    for entry in resources.files("store").joinpath("migrations").iterdir():
        match = MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    numbers = [number for number, _, _ in found]
    if len(set(numbers)) != len(numbers):
        raise StoreError(f"two migrations share a number: {numbers}")
    return found


def split_statements(sql: str) -> Iterable[str]:
    """Split a migration script into complete statements (sqlite3 decides where one ends)."""
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                yield pending
            pending = ""
    if pending.strip() and not pending.strip().startswith("--"):
        raise StoreError(f"incomplete statement at the end of a migration: {pending.strip()[:80]}")


def apply_migrations(connection: sqlite3.Connection, found: list[tuple[int, str, str]] | None = None) -> int:
    """Apply every migration not yet recorded, in one IMMEDIATE transaction; return how many are applied.

    Applied migrations are recorded by name (so branches that add migrations in parallel merge cleanly),
    and read inside the transaction, so processes starting at once apply each migration once; a process
    killed half-way leaves the previous schema intact (the journal rolls the transaction back). `found`
    replaces the shipped list (tests apply a slow migration of their own).
    """
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL) STRICT"
        )
        applied = {row[0] for row in connection.execute("SELECT name FROM schema_migrations")}
        for _number, name, sql in migrations() if found is None else found:
            if name in applied:
                continue
            for statement in split_statements(sql):
                connection.execute(statement)
            connection.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ'))", (name,)
            )
            applied.add(name)
        if connection.execute("PRAGMA user_version").fetchone()[0] != len(applied):  # setting it writes a page
            connection.execute(f"PRAGMA user_version = {len(applied)}")
        install_generation(connection)
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return len(applied)


# Tables whose writes change no answer a reader caches: an evaluation's claim and its per-item cache, written
# several times a second while it runs, the rate-limit windows (a failed login must not empty every cache), and
# the day's visitor keys and served pages (written as pages are served). Every other table moves the generation
# (tables added later included).
UNCACHED_TABLES = frozenset(
    {"runs", "run_items", "schema_migrations", "generation", "visitor_keys", "served_pages", "rate_events"}
)


def install_generation(connection: sqlite3.Connection) -> None:
    """A counter that every write to a table readers cache answers from moves (by triggers), so caches are
    dropped when an answer may have changed, not on every commit. Table names come from the schema itself."""
    connection.execute(
        "CREATE TABLE IF NOT EXISTS generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL) STRICT"
    )
    connection.execute("INSERT OR IGNORE INTO generation (id, n) VALUES (1, 0)")
    tables = connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = [name for name, sql in tables if (sql or "").upper().startswith("CREATE VIRTUAL TABLE")]
    for name, _ in tables:
        if name in UNCACHED_TABLES or name.startswith("sqlite_") or any(name.startswith(v) for v in virtual):
            continue  # FTS shadow tables move with the table that writes them
        for event in ("INSERT", "UPDATE", "DELETE"):
            connection.execute(
                f'CREATE TRIGGER IF NOT EXISTS "generation_{name}_{event.lower()}" AFTER {event} ON "{name}" '
                "BEGIN UPDATE generation SET n = n + 1 WHERE id = 1; END"
            )


def configure(connection: sqlite3.Connection) -> None:
    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    connection.execute("PRAGMA foreign_keys = ON")


class Store:
    """One SQLite database file: an inline reader, one locked writer, migrations applied at open."""

    def __init__(self, path: Path, reader: sqlite3.Connection, writer: aiosqlite.Connection) -> None:
        self.path = path
        self._reader = reader
        self._writer = writer
        self._write_lock = asyncio.Lock()
        self.commits = 0  # transactions this process committed: read caches recheck after each

    @classmethod
    async def open(cls, path: Path) -> Store:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        create_private(path)
        setup = sqlite3.connect(path, isolation_level=None)
        try:
            configure(setup)
            setup.execute("PRAGMA journal_mode = WAL")
            apply_migrations(setup)
        finally:
            setup.close()
        reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        configure(reader)
        reader.execute("PRAGMA query_only = ON")
        reader.row_factory = sqlite3.Row
        writer = await aiosqlite.connect(path, isolation_level=None)
        writer.row_factory = sqlite3.Row
        await writer.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await writer.execute("PRAGMA foreign_keys = ON")
        await writer.execute("PRAGMA synchronous = NORMAL")
        return cls(path, reader, writer)

    async def close(self) -> None:
        async with self._write_lock:
            await self._writer.close()
        self._reader.close()

    def schema_version(self) -> int:
        return int(self._reader.execute("PRAGMA user_version").fetchone()[0])

    def generation(self) -> int:
        """Moves whenever a table that answers are read from is written, by any connection or process."""
        row = self._reader.execute("SELECT n FROM generation WHERE id = 1").fetchone()
        return int(row[0]) if row else 0

    def read(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """A short indexed read, run inline on the event loop."""
        return self._reader.execute(sql, params).fetchall()

    def read_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self._reader.execute(sql, params).fetchone()
        return row

    async def read_off_loop(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """A long read (a scan, an export) on its own connection in a worker thread."""

        def run() -> T:
            connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
            try:
                configure(connection)
                connection.row_factory = sqlite3.Row
                return work(connection)
            finally:
                connection.close()

        return await asyncio.to_thread(run)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """The single write path: BEGIN IMMEDIATE … COMMIT under the store's lock, ROLLBACK on any error."""
        async with self._write_lock:
            try:
                await self._writer.execute("BEGIN IMMEDIATE")
            except BaseException:
                # Cancelled while BEGIN was queued on the writer's thread: it runs anyway, so end it. rollback()
                # runs after it on the same thread and does nothing when no transaction is open.
                await asyncio.shield(self._writer.rollback())
                raise
            try:
                yield self._writer
            except BaseException:
                await asyncio.shield(self._writer.rollback())
                raise
            try:
                await self._writer.execute("COMMIT")
            finally:
                self.commits += 1  # even a failed COMMIT may have changed what readers see
