"""The `benchtoward` command: import-result and export-result round trip through real processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from tests.factory import write_bundle
from tests.populate import HARI

BENCHTOWARD = [sys.executable, "-m", "server.cli"]


def benchtoward(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BENCHTOWARD, *arguments], capture_output=True, text=True, timeout=120, check=False)


def test_import_then_export_then_import_elsewhere_round_trips(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "bundle", task="clinicalqa@0", model=HARI, quality=0.7)
    first = benchtoward("import-result", str(bundle), "--db", str(tmp_path / "a.db"))
    assert first.returncode == 0, first.stderr
    run_id = first.stdout.split()[0]
    again = benchtoward("import-result", str(bundle), "--db", str(tmp_path / "a.db"))
    assert "already stored" in again.stdout
    exported = benchtoward("export-result", run_id, str(tmp_path / "out"), "--db", str(tmp_path / "a.db"))
    assert exported.returncode == 0, exported.stderr
    original = orjson.loads((bundle / "result.json").read_bytes())
    copy = orjson.loads((tmp_path / "out" / "result.json").read_bytes())
    assert copy["run_key"] == original["run_key"] and copy["metrics"] == original["metrics"]
    elsewhere = benchtoward("import-result", str(tmp_path / "out"), "--db", str(tmp_path / "b.db"))
    assert elsewhere.returncode == 0 and elsewhere.stdout.split()[0] == run_id


def test_a_bad_bundle_exits_2_with_a_json_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = benchtoward("import-result", str(tmp_path / "empty"), "--db", str(tmp_path / "a.db"))
    assert done.returncode == 2
    assert orjson.loads(done.stderr.strip().splitlines()[-1])["error"] == "bad_request"


def test_exporting_an_unknown_run_is_run_not_found(tmp_path: Path) -> None:
    done = benchtoward("export-result", "000000000000", str(tmp_path / "x"), "--db", str(tmp_path / "a.db"))
    assert done.returncode == 2 and "run_not_found" in done.stderr
