"""`benchtoward backup` and `benchtoward restore` as real processes: a backup restored into a fresh folder has the
same rows in every table and the same predictions files (by sha256) and answers the same; a backup taken while
imports run is one consistent snapshot; a damaged backup and a place that is not fresh are refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import orjson
import pytest

from server.settings import Settings
from tests.conftest import LiveServer
from tests.factory import FakeModel, write_bundle
from tests.populate import MEDGEMMA
from tests.snapshots import database_rows, file_hashes, integrity, results_without_their_file
from tools import backup as backups

pytestmark = pytest.mark.anyio
BENCHTOWARD = [sys.executable, "-m", "server.cli"]


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BENCHTOWARD, *args], capture_output=True, text=True, timeout=300, check=check)


async def test_a_restored_backup_has_the_same_rows_files_and_answers(
    settings: Settings, run_ids: dict[str, str], tmp_path: Path
) -> None:
    with LiveServer(settings) as server:  # some traffic first, so events and caches exist
        lookup = f"{server.url}/v1/lookup?model={MEDGEMMA.provider_model_id}&task=clinicalqa@0"
        original = httpx.get(lookup).json()
        cli("backup", str(tmp_path / "backup"), "--db", str(settings.db))  # while the server runs
    manifest = orjson.loads((tmp_path / "backup" / "manifest.json").read_bytes())
    assert len(manifest["artifacts"]) == len(run_ids) and "secret" in manifest["not_included"]
    fresh = tmp_path / "fresh" / "restored.db"
    restored = cli("restore", str(tmp_path / "backup"), "--db", str(fresh))
    assert "integrity check: ok" in restored.stdout
    restored_artifacts = fresh.parent / "restored-artifacts"
    # the lookup's reuse event waits in the server's buffer and may be written after the snapshot (at shutdown)
    assert database_rows(fresh, skip=("events",)) == database_rows(settings.db, skip=("events",))
    assert file_hashes(restored_artifacts) == file_hashes(settings.artifacts_dir)
    assert results_without_their_file(fresh, restored_artifacts) == []
    with LiveServer(Settings(db=fresh)) as server:
        again = httpx.get(f"{server.url}/v1/lookup?model={MEDGEMMA.provider_model_id}&task=clinicalqa@0").json()
    assert again["result"]["run_id"] == original["result"]["run_id"]
    assert again["result"]["metrics"] == original["result"]["metrics"]
    assert again["result"]["predictions"]["sha256"] == original["result"]["predictions"]["sha256"]


async def test_a_backup_taken_while_imports_run_is_one_consistent_snapshot(
    settings: Settings, run_ids: dict[str, str], tmp_path: Path
) -> None:
    bundles = [
        write_bundle(tmp_path / f"b{i}", task="clinicalqa@0", model=FakeModel(f"acme/m{i}", f"M{i}"), quality=0.5)
        for i in range(4)
    ]
    importer = subprocess.Popen(
        [
            "bash",
            "-c",
            " && ".join(  # another process writes while we back up
                f"{sys.executable} -m server.cli import-result {bundle} --db {settings.db}" for bundle in bundles
            ),
        ]
    )
    taken = []
    while (importer.poll() is None or not taken) and len(taken) < 200:
        destination = tmp_path / f"backup{len(taken)}"
        backups.backup(settings.db, settings.artifacts_dir, destination)
        taken.append(destination)
    assert importer.wait(timeout=300) == 0
    counts = []
    for destination in taken:
        copy = destination / backups.DATABASE
        assert integrity(copy) == "ok"
        assert results_without_their_file(copy, destination / backups.ARTIFACTS) == []  # no row without its file
        backups.verify(destination, backups.read_manifest(destination))
        counts.append(orjson.loads((destination / "manifest.json").read_bytes())["database"]["tables"]["results"])
    assert counts == sorted(counts) and len(run_ids) <= counts[0] and counts[-1] <= len(run_ids) + 4
    assert len(set(counts)) > 1 or len(taken) == 1  # the snapshots saw the imports land one by one


async def test_a_damaged_backup_or_a_place_that_is_not_fresh_is_refused_and_nothing_is_written(
    settings: Settings, run_ids: dict[str, str], tmp_path: Path
) -> None:
    cli("backup", str(tmp_path / "backup"), "--db", str(settings.db))
    again = cli("backup", str(tmp_path / "backup"), "--db", str(settings.db), check=False)
    assert again.returncode == 2 and "not an empty folder" in again.stderr

    occupied = cli("restore", str(tmp_path / "backup"), "--db", str(settings.db), check=False)
    assert occupied.returncode == 2 and "exists" in occupied.stderr

    victim = next((tmp_path / "backup" / "artifacts").rglob("predictions.parquet"))
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    fresh = tmp_path / "fresh" / "r.db"
    damaged = cli("restore", str(tmp_path / "backup"), "--db", str(fresh), check=False)
    assert damaged.returncode == 2 and "damaged" in damaged.stderr
    assert not fresh.exists() and not (fresh.parent / "r-artifacts").exists()
