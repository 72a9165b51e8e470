"""`benchtoward catalog import` and `benchtoward catalog export` through real processes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.catalog_factory import SEED_FILE, entry_with, seed_entry, write_entry
from tools.catalog_files import SHIPPED_DIR

BENCHTOWARD = [sys.executable, "-m", "server.cli"]


def shipped_ids() -> list[str]:
    """The shipped entries in load order (file-name order), MedBench first."""
    return [json.loads(path.read_text(encoding="utf-8"))["page"]["id"] for path in sorted(SHIPPED_DIR.glob("*.json"))]


def benchtoward(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BENCHTOWARD, *arguments], capture_output=True, text=True, timeout=120, check=False)


def revision_rows(db: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as connection:
        return list(connection.execute("SELECT id, revision FROM catalog_revisions ORDER BY seq"))


def test_import_is_idempotent_a_change_is_a_revision_and_export_round_trips(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    first = benchtoward("catalog", "import", str(SEED_FILE), "--db", db)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == ["medbench unchanged, newest revision 1"]  # shipped at start already
    changed = seed_entry()
    changed["page"]["status"] = "superseded"
    changed["page"]["x_new_field"] = {"kept": True}
    second = benchtoward("catalog", "import", str(write_entry(tmp_path / "in" / "medbench.json", changed)), "--db", db)
    assert second.stdout.splitlines() == ["medbench stored as revision 2"]
    again = benchtoward("catalog", "import", str(tmp_path / "in"), "--db", db)
    assert again.stdout.splitlines() == ["medbench unchanged, newest revision 2"]

    exported = benchtoward("catalog", "export", "--out", str(tmp_path / "out"), "--db", db)
    assert exported.returncode == 0, exported.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(f"{id}.json" for id in shipped_ids())
    assert json.loads((tmp_path / "out" / "medbench.json").read_text(encoding="utf-8")) == changed
    old = benchtoward("catalog", "export", "--id", "medbench", "--revision", "1", "--db", db)
    assert old.stdout.rstrip("\n").encode() == SEED_FILE.read_bytes()

    elsewhere = str(tmp_path / "b.db")
    moved = benchtoward("catalog", "import", str(tmp_path / "out"), "--db", elsewhere)
    assert moved.returncode == 0, moved.stderr
    assert "medbench stored as revision 2" in moved.stdout  # revision 1 is the shipped seed there too
    assert revision_rows(Path(elsewhere))[-1] == ("medbench", 2)


def test_export_to_a_file_writes_every_entry_as_an_array(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    done = benchtoward("catalog", "export", "--out", str(tmp_path / "catalog.json"), "--db", db)
    assert done.returncode == 0, done.stderr
    entries = json.loads((tmp_path / "catalog.json").read_text(encoding="utf-8"))
    assert [entry["page"]["id"] for entry in entries] == shipped_ids()
    assert entries[0] == seed_entry()


def test_a_bad_entry_exits_2_with_a_json_error_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    good = write_entry(tmp_path / "in" / "a-good.json", entry_with("good-bench", "Good Bench"))
    bad = entry_with("bad-bench", "Bad Bench")
    bad["page"]["measures"] = "x" * (5 * 1024 * 1024)
    write_entry(tmp_path / "in" / "b-bad.json", bad)
    done = benchtoward("catalog", "import", str(good.parent), "--db", str(db))
    assert done.returncode == 2
    error = json.loads(done.stderr.strip().splitlines()[-1])
    assert error["error"] == "bad_request"
    assert "b-bad.json: page.measures is 5,242,880 characters long" in error["message"]
    assert [id for id, _ in revision_rows(db)] == shipped_ids()  # the shipped ones only


def test_exporting_an_unknown_entry_exits_2_with_benchmark_not_found(tmp_path: Path) -> None:
    done = benchtoward("catalog", "export", "--id", "nope", "--db", str(tmp_path / "a.db"))
    assert done.returncode == 2 and json.loads(done.stderr.strip().splitlines()[-1])["error"] == "benchmark_not_found"
