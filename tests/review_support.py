"""What the review tests share: a maintainer made the way `benchtoward maintainer add` makes one, the papers they
read, a snapshot of every table (to prove a refused request changed nothing), and bounded polling."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from server.runtime import load_secret
from server.settings import Settings
from store import Store
from tools.auth import Keys
from tools.maintainers import Actor, add_maintainer
from tools.registry import Registry
from tools.seed import sync_specs

PAPERS = Path(__file__).resolve().parent / "data" / "papers"
HARI_CARD = PAPERS / "snuh_hari-q3-8b_modelcard_excerpt.md"
DEMO = "clinicalqa-upstream-demo@0"
T = TypeVar("T")


def keys_for(settings: Settings) -> Keys:
    return Keys(load_secret(settings.secret_file))


async def make_maintainer(settings: Settings, name: str = "alice") -> str:
    """A maintainer in the test's database (before the app starts); returns the token shown once."""
    store = await Store.open(settings.db)
    try:
        await sync_specs(store)
        registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
        _, token = await add_maintainer(registry, keys_for(settings), name, Actor("cli:test"))
        return token
    finally:
        await store.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def snapshot(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, to compare before and after a refused request; the rate-limit windows left out
    (a refused attempt is counted there on purpose, and forgotten as it ages)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            table: sorted(connection.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
            for table in tables
            if table != "rate_events"
        }
    finally:
        connection.close()


def query(db: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


async def poll(check: Callable[[], Awaitable[T | None]], timeout: float = 180.0, every: float = 0.05) -> T:
    """Wait until `check` returns something, at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = await check()
        if found is not None:
            return found
        await asyncio.sleep(every)
    raise TimeoutError(f"nothing within {timeout} s")


def poll_sync(check: Callable[[], T | None], timeout: float = 180.0, every: float = 0.05) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found is not None:
            return found
        threading.Event().wait(every)
    raise TimeoutError(f"nothing within {timeout} s")
