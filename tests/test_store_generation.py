"""The read cache's generation: a write to any table answers come from moves it (from this connection or another
process, tables added by later migrations included); an evaluation's per-item cache writes do not, so a running
evaluation no longer empties every cache several times a second."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from store import Store
from store import runs as run_store
from store.db import apply_migrations, configure, migrations
from store.runs import Run
from tests.factory import FakeModel, write_bundle
from tools.registry import Registry

pytestmark = pytest.mark.anyio


async def test_item_cache_writes_keep_the_cache_and_a_result_from_another_process_drops_it(
    registry: Registry, tmp_path: Path
) -> None:
    store = registry.store
    computed = []
    answer = registry.remember(("probe",), lambda: computed.append(1) or "first")
    run = Run("k" * 64, "k" * 12, "{}", "acme/x", "clinicalqa@0", "running", "me", "t", "t", None, None, 0, "")
    await run_store.claim_run(store, run)
    await run_store.save_items(store, run.run_key, [(f"q{i}", "{}") for i in range(100)])
    await run_store.heartbeat(store, run.run_key, "me", 100, 100)
    assert registry.remember(("probe",), lambda: "second") == answer and computed == [1]

    before = store.generation()
    bundle = write_bundle(tmp_path / "b", task="clinicalqa@0", model=FakeModel("acme/other", "Other"), quality=0.5)
    subprocess.run(
        [sys.executable, "-m", "server.cli", "import-result", str(bundle), "--db", str(store.path)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert store.generation() > before
    assert registry.remember(("probe",), lambda: "second") == "second"


def test_a_table_added_by_a_later_migration_moves_the_generation_too(tmp_path: Path) -> None:
    db = tmp_path / "later.db"
    connection = sqlite3.connect(db, isolation_level=None)
    configure(connection)
    later = (9998, "9998_later_table.sql", "CREATE TABLE later_things (x INTEGER) STRICT;\n")
    apply_migrations(connection, [*migrations(), later])
    start = connection.execute("SELECT n FROM generation").fetchone()[0]
    connection.execute("INSERT INTO later_things VALUES (1)")
    connection.execute(
        "INSERT INTO runs (run_key, run_id, key_json, model_slug, task_ref, status, owner, started_at, "
        "heartbeat_at) VALUES ('k', 'k', '{}', 'a/b', 't@0', 'running', 'me', 't', 't')"
    )
    connection.execute("INSERT INTO run_items VALUES ('k', 'q1', '{}')")  # a claim and a per-item cache write
    assert connection.execute("SELECT n FROM generation").fetchone()[0] == start + 1
    connection.close()


async def test_a_store_opened_twice_installs_its_triggers_once(tmp_path: Path) -> None:
    for _ in range(2):
        store = await Store.open(tmp_path / "twice.db")
        await store.close()
    connection = sqlite3.connect(tmp_path / "twice.db")
    names = [
        row[0]
        for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'generation_%'"
        )
    ]
    connection.close()
    assert len(names) == len(set(names)) > 0
    assert not any(name.startswith(("generation_run_items", "generation_runs_")) for name in names)


async def test_loading_the_same_specs_again_at_a_start_moves_nothing(registry: Registry) -> None:
    from tools.seed import sync_specs

    before = registry.store.generation()
    await sync_specs(registry.store)  # what every `benchtoward` process does when it opens the store
    assert registry.store.generation() == before
