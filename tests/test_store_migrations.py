"""The store: migrations at open, WAL and foreign keys, one write path, specs that never change in place."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from store import Store, StoreError
from store import tasks as task_store
from store.db import migrations
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio


async def test_opening_a_new_file_applies_every_migration_in_wal_mode(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "new.db")
    try:
        assert store.schema_version() == len(migrations())
        assert store.read_one("PRAGMA journal_mode")[0] == "wal"
        assert store.read_one("PRAGMA foreign_keys")[0] == 1
    finally:
        await store.close()


async def test_reopening_keeps_the_schema_and_the_rows(tmp_path: Path) -> None:
    path = tmp_path / "again.db"
    store = await Store.open(path)
    await sync_specs(store)
    await store.close()
    store = await Store.open(path)
    try:
        assert store.schema_version() == len(migrations())
        assert {t.ref for t in task_store.list_tasks(store)} >= {"clinicalqa@0", "vitaldb-ioh@0"}
    finally:
        await store.close()


async def test_a_changed_spec_for_a_stored_version_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "spec.db")
    try:
        await sync_specs(store)
        before = task_store.get_task(store, "clinicalqa", 0)
        assert before is not None
        with pytest.raises(StoreError, match="new version"):
            await task_store.upsert_task(store, replace(before, spec_hash="0" * 64, title="Changed"))
        assert task_store.get_task(store, "clinicalqa", 0) == before
    finally:
        await store.close()


async def test_a_failed_transaction_rolls_back_every_statement(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "rollback.db")
    try:
        await sync_specs(store)
        with pytest.raises(sqlite3.IntegrityError):
            async with store.transaction() as db:
                await db.execute("UPDATE tasks SET title = 'half' WHERE slug = 'clinicalqa'")
                await db.execute("INSERT INTO tasks (slug) VALUES ('broken')")  # violates NOT NULL
        assert task_store.get_task(store, "clinicalqa", 0).title == "ClinicalQA"  # type: ignore[union-attr]
    finally:
        await store.close()


async def test_foreign_keys_refuse_a_result_for_an_unknown_model(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "fk.db")
    try:
        await sync_specs(store)
        with pytest.raises(sqlite3.IntegrityError):
            async with store.transaction() as db:
                await db.execute("INSERT INTO model_aliases (alias, model_slug) VALUES ('x', 'nobody/none')")
    finally:
        await store.close()


def test_migrations_have_distinct_numbers_and_are_recorded_by_name(tmp_path: Path) -> None:
    numbers = [number for number, _, _ in migrations()]
    assert len(set(numbers)) == len(numbers) and numbers == sorted(numbers)
    with sqlite3.connect(tmp_path / "x.db") as connection:
        connection.isolation_level = None
        from store.db import apply_migrations

        assert apply_migrations(connection) == len(numbers)
        assert apply_migrations(connection) == len(numbers)  # a second start applies nothing
        names = [row[0] for row in connection.execute("SELECT name FROM schema_migrations ORDER BY name")]
    assert names == [name for _, name, _ in migrations()]
