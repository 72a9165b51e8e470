"""VitalDB data as it comes, through the `benchtoward` command in a real process: a CSV case file without the MAP
column is a case without an arterial line (skipped, counted and named by `data check`), and a case table or case
file that cannot be read ends `eval` with one line naming the file and an exit code, never a traceback."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from evaluator.vitaldb.cases import is_adult, read_case_table
from evaluator.vitaldb.synthetic import CohortConfig, write_synthetic_cohort

BENCHTOWARD = [sys.executable, "-m", "server.cli"]
TASK = "vitaldb-ioh@0"
SAMPLES = Path(__file__).parent / "data" / "vital-format-samples"


def benchtoward(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BENCHTOWARD, *arguments], capture_output=True, text=True, timeout=240, check=False)


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small VitalDB-like cohort (synthetic, generated here) laid out as `benchtoward data fetch` writes one."""
    directory = tmp_path_factory.mktemp("cohort")
    write_synthetic_cohort(directory, CohortConfig(n_patients=24))
    return directory


@pytest.fixture
def data(cohort: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(cohort, tmp_path / "vitaldb"))


def adult_caseids(data: Path) -> list[int]:
    return [case.caseid for case in read_case_table(data / "cases.csv") if is_adult(case, 18)]


def case_file(data: Path, caseid: int) -> Path:
    return next(data.glob(f"{caseid}.*"))


def one_json_line(stderr: str) -> dict[str, str]:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    body: dict[str, str] = orjson.loads(lines[0])
    return body


def test_data_check_counts_and_names_csv_case_files_without_the_map_column(data: Path, tmp_path: Path) -> None:
    without = adult_caseids(data)[:3]
    for caseid in without:
        path = case_file(data, caseid)
        path.write_bytes(gzip.compress(b"Time,Solar8000/HR,BIS/BIS\n1.0,80,40\n3.0,82,41\n"))
    done = benchtoward("data", "check", TASK, "--data", str(data), "--db", str(tmp_path / "bt.db"), "--json")
    assert "Traceback" not in done.stderr
    report = orjson.loads(done.stdout)
    named = ", ".join(str(caseid) for caseid in without)
    assert f"3 case file(s) hold no Solar8000/ART_MBP (caseid {named})" in " ".join(report["notes"])
    assert not any("Solar8000/ART_MBP" in difference for difference in report["differences"])
    assert done.returncode == 1  # the small cohort is not the 6,388 cases the task pins: that is a difference


def test_eval_skips_csv_case_files_without_the_map_column_and_computes(data: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "bt.db")
    arguments = ["eval", "--model", "baseline/last-map", "--task", TASK, "--data", str(data), "--db", db]
    whole = benchtoward(*arguments, "--allow-partial", "--json")
    assert whole.returncode == 0, whole.stderr
    without = adult_caseids(data)[:4]
    for caseid in without:
        case_file(data, caseid).write_bytes(gzip.compress(b"Time,Solar8000/HR\n1.0,80\n"))
    fewer = benchtoward(*arguments, "--allow-partial", "--json", "--db", str(tmp_path / "other.db"))
    assert fewer.returncode == 0, fewer.stderr
    before, after = orjson.loads(whole.stdout), orjson.loads(fewer.stdout)
    assert 0 < after["n"] < before["n"] and after["partial"] is True


@pytest.mark.parametrize(
    "damage",
    [
        "non-numeric value",
        "cut .vital file",
        "two files for one case",
        "unreadable case table",
    ],
)
def test_eval_on_data_it_cannot_read_exits_with_one_json_line_naming_the_file(
    damage: str, data: Path, tmp_path: Path
) -> None:
    caseid = adult_caseids(data)[0]
    if damage == "non-numeric value":
        case_file(data, caseid).write_bytes(gzip.compress(b"Time,Solar8000/ART_MBP\n1.0,80\n3.0,high\n"))
        named = f"{caseid}.csv.gz"
    elif damage == "cut .vital file":
        case_file(data, caseid).unlink()
        whole = gzip.decompress((SAMPLES / "test_data_demo.vital").read_bytes())
        (data / f"{caseid}.vital").write_bytes(gzip.compress(whole[:10]))
        named = f"{caseid}.vital"
    elif damage == "two files for one case":
        (data / f"{caseid}.csv").write_text("Time,Solar8000/ART_MBP\n1.0,80\n")
        named = f"case {caseid} has 2 files"
    else:
        (data / "cases.csv").write_bytes(b"caseid,subjectid,age,anestart,aneend\n1,\xff\xfe,60,0,100\n")
        named = "cases.csv"
    arguments = ["eval", "--model", "baseline/logistic", "--task", TASK, "--data", str(data)]
    if damage == "non-numeric value":  # the cohort is not the task's 6,388 cases: refused, the difference said
        refused = benchtoward(*arguments, "--db", str(tmp_path / "bt.db"))
        body = one_json_line(refused.stderr)
        assert refused.returncode == 2 and body["error"] == "bad_request" and "--allow-partial" in body["message"]
    tried = benchtoward(*arguments, "--db", str(tmp_path / "bt.db"), "--allow-partial")
    body = one_json_line(tried.stderr)
    assert tried.returncode == 2 and body["error"] == "bad_request" and named in body["message"], body
