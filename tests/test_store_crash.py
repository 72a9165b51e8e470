"""kill -9 in the middle of writing: a result import (while its predictions file is being placed, and after the
file is in place but before the row), and a migration. Afterwards the database passes `PRAGMA integrity_check`,
every result has its predictions file with the stored sha256, no half result is visible, leftovers are
cleaned up at the next start, and the interrupted work completes when it is run again."""

from __future__ import annotations

import asyncio
import base64
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluator.canonical import file_sha256
from evaluator.predictions import FILE_NAME
from server.settings import Settings
from store import Store
from tests.factory import FakeModel, write_bundle
from tests.killing import kill_inside
from tests.snapshots import database_rows, file_hashes, integrity, results_without_their_file
from tools.seed import sync_specs

BENCHTOWARD = [sys.executable, "-m", "server.cli"]
ROWS = 20_000


def big_bundle(directory: Path) -> Path:
    """A valid partial bundle whose predictions file is ~20 MB (long raw answers), so placing it takes a while."""
    model = FakeModel("acme/verbose-1", "Verbose 1", provider_model_id="verbose-1")
    config = {"adapter": "test-fixture", "partial": True, "limit": ROWS}
    write_bundle(directory, task="clinicalqa@0", model=model, quality=0.6, n=ROWS, config=config)
    path = directory / FILE_NAME
    table = pq.read_table(path)
    noise = np.random.default_rng(7).bytes(ROWS * 720)
    long_answers = [base64.b64encode(noise[i * 720 : (i + 1) * 720]).decode() for i in range(ROWS)]
    column = table.schema.get_field_index("raw_output")
    table = table.set_column(column, "raw_output", pa.array(long_answers, type=pa.string()))
    pq.write_table(table, path, compression="zstd", write_statistics=False, store_schema=False)
    result = orjson.loads((directory / "result.json").read_bytes())
    result["predictions"]["sha256"] = file_sha256(path)
    (directory / "result.json").write_bytes(orjson.dumps(result))
    return directory


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return big_bundle(tmp_path_factory.mktemp("big") / "bundle")


def fresh_database(db: Path) -> None:
    async def create() -> None:
        store = await Store.open(db)
        await sync_specs(store)
        await store.close()

    asyncio.run(create())


def result_count(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        count = int(connection.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    connection.close()
    return count


def temporaries(artifacts: Path) -> list[Path]:
    return list(artifacts.glob("*/.*.tmp"))


def placing(artifacts: Path, db: Path) -> Callable[[], bool]:
    return lambda: bool(temporaries(artifacts))


def placed_without_row(artifacts: Path, db: Path) -> Callable[[], bool]:
    def window() -> bool:
        try:
            return any(artifacts.glob(f"*/{FILE_NAME}")) and result_count(db) == 0
        except sqlite3.OperationalError:  # "database is locked": the import is committing; look again
            return False

    return window


@pytest.mark.parametrize("window", [placing, placed_without_row], ids=["while-placing-the-file", "file-placed-no-row"])
def test_an_import_killed_mid_write_leaves_no_half_result_and_completes_when_run_again(
    tmp_path: Path, bundle: Path, window: Callable[[Path, Path], Callable[[], bool]]
) -> None:
    landed = False
    for attempt in range(4):  # the window is milliseconds wide: try again if the import got through it first
        db, artifacts = tmp_path / f"bt{attempt}.db", tmp_path / f"bt{attempt}-artifacts"
        fresh_database(db)
        victim = subprocess.Popen(
            [*BENCHTOWARD, "import-result", str(bundle), "--db", str(db)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        landed = kill_inside(victim, window(artifacts, db))
        if landed:
            break
    assert landed, "the kill never landed inside the window"
    assert integrity(db) == "ok"
    # no half result: the row comes only after the file is durable. The window's check can miss a commit in flight
    # (its WAL frames written, the shared index not yet updated when the process was frozen): SQLite's recovery then
    # shows the whole committed row, file and all, which keeps the same promise
    committed = result_count(db)
    assert committed in (0, 1) and results_without_their_file(db, artifacts) == []

    rerun = subprocess.run(
        [*BENCHTOWARD, "import-result", str(bundle), "--db", str(db)], capture_output=True, text=True, timeout=120
    )
    said = "already stored" if committed else "imported"
    assert rerun.returncode == 0 and said in rerun.stdout, rerun.stderr
    assert result_count(db) == 1 and results_without_their_file(db, artifacts) == []
    assert temporaries(artifacts) == []  # what the killed process left was removed at the next start
    assert integrity(db) == "ok"


SLOW_MIGRATION = (
    9999,
    "9999_slow_test.sql",
    "CREATE TABLE slow_test (x BLOB) STRICT;\n"
    "INSERT INTO slow_test SELECT randomblob(200) FROM "
    "(WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c LIMIT 400000) SELECT i FROM c);\n",
)
MIGRATE = f"""
import sqlite3, sys
from store.db import apply_migrations, configure, migrations
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
configure(connection)
connection.execute("PRAGMA journal_mode = WAL")
apply_migrations(connection, [*migrations(), {SLOW_MIGRATION!r}])
"""


@pytest.mark.anyio
async def test_a_migration_killed_half_way_leaves_the_previous_schema_and_applies_whole_next_time(
    run_ids: dict[str, str], settings: Settings
) -> None:
    db = settings.db
    before = database_rows(db), file_hashes(settings.artifacts_dir)
    wal = db.with_name(db.name + "-wal")
    victim = subprocess.Popen([sys.executable, "-c", MIGRATE, str(db)])
    assert kill_inside(victim, lambda: wal.exists() and wal.stat().st_size > 8 * 1024 * 1024)
    assert integrity(db) == "ok"
    assert (database_rows(db), file_hashes(settings.artifacts_dir)) == before  # nothing of it is visible
    with sqlite3.connect(db) as connection:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        applied = {row[0] for row in connection.execute("SELECT name FROM schema_migrations")}
    connection.close()
    assert "slow_test" not in names and SLOW_MIGRATION[1] not in applied
    assert results_without_their_file(db, settings.artifacts_dir) == []

    subprocess.run([sys.executable, "-c", MIGRATE, str(db)], check=True, timeout=300)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM slow_test").fetchone()[0] == 400_000
        assert (
            connection.execute(
                "SELECT COUNT(*) FROM schema_migrations WHERE name = ?", (SLOW_MIGRATION[1],)
            ).fetchone()[0]
            == 1
        )
    connection.close()
    assert integrity(db) == "ok"
