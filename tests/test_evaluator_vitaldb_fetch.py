"""`benchtoward data fetch vitaldb` against a VitalDB API replaced at the boundary by a loopback HTTP server
that serves a case table and real .vital files written with the vitaldb package."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.specs import load_task_files
from evaluator.vitaldb import pipeline

CASES = (
    "caseid,subjectid,casestart,caseend,anestart,aneend,age\n"
    "1,101,0,3600,0,3600,64\n2,102,0,3600,,,15\n3,103,0,3600,0,3600,70\n"
)


def vital_file(path: Path, values: list[float], track: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import vitaldb

        vital = vitaldb.VitalFile()
        start = 1_700_000_000.0
        vital.add_track(
            track, [{"dt": start + 2.0 * i + 0.5, "val": v} for i, v in enumerate(values)], srate=0, unit="mmHg"
        )
        vital.dtstart, vital.dtend = start, start + 2.0 * len(values)
        vital.to_vital(str(path))


@pytest.fixture
def vitaldb_api(tmp_path: Path) -> Iterator[str]:
    """A directory laid out as the API serves it: /cases and /<dataset version>/<caseid>.vital."""
    from evaluator.vitaldb.fetch import dataset_version

    DATASET_VERSION = dataset_version()
    root = tmp_path / "api"
    (root / DATASET_VERSION).mkdir(parents=True)
    (root / "cases").write_text(CASES)
    values = [80.0 + (i % 30) if i < 1200 else 55.0 for i in range(1800)]  # hypotension after 40 min
    vital_file(root / DATASET_VERSION / "1.vital", values, "Solar8000/ART_MBP")
    vital_file(root / DATASET_VERSION / "3.vital", values, "Solar8000/NIBP_MBP")  # no arterial line
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep test output clean."""


def test_fetch_writes_the_case_table_and_the_track_of_each_adult_case(vitaldb_api: str, tmp_path: Path) -> None:
    data = tmp_path / "vitaldb"
    command = [
        sys.executable,
        "-m",
        "server.cli",
        "data",
        "fetch",
        "vitaldb",
        "--data",
        str(data),
        "--api-url",
        vitaldb_api,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "fetched 1" in done.stdout and "without Solar8000/ART_MBP 1" in done.stdout
    assert (data / "cases.csv").read_text() == CASES
    assert (data / "1.vital").is_file() and not (data / "2.vital").exists() and not (data / "3.vital").exists()
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert "already present 1" in again.stdout  # an interrupted or repeated fetch continues
    spec = next(f.spec for f in load_task_files() if f.spec.task == "vitaldb-ioh@0")
    cases = list(pipeline.iter_case_instances(data, spec))
    assert [c.caseid for c in cases] == [1]
    labels = cases[0].labels.tolist()
    assert labels and labels[-1] == 1 and labels[0] == 0  # the planted hypotension is found through the real reader
