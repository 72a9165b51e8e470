"""The streaming API the harness calls, on a hand-built data directory with known windows and labels."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest

from evaluator.kinds.binary_timeseries import BINARY_SCHEMA
from evaluator.predictions import read_predictions, write_predictions
from evaluator.specs import load_task_files
from evaluator.vitaldb.cases import is_test_subject
from evaluator.vitaldb.pipeline import baseline_predictions, collect_windows, iter_case_instances
from evaluator.vitaldb.signals import CaseFileError

SPEC = next(f.spec for f in load_task_files() if f.spec.task == "vitaldb-ioh@0")
SAMPLES = Path(__file__).parent / "data" / "vital-format-samples"
TRACK = "Solar8000/ART_MBP"


def grid_csv(grid: np.ndarray) -> str:
    """One record per present sample, 1 s into its bin; the last sample at the end of the recording."""
    lines = [f"Time,{TRACK}"] + [f"{2 * k + 1}.000,{value:g}" for k, value in enumerate(grid) if not np.isnan(value)]
    return "\n".join(lines) + "\n"


def planted_grid(n: int, lows: list[tuple[int, int]], gaps: list[tuple[int, int]] | None = None) -> np.ndarray:
    grid = np.full(n, 80.0)
    for start, end in lows:
        grid[start:end] = 55.0
    for start, end in gaps or []:
        grid[start:end] = np.nan
    return grid


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    table = [
        "caseid,subjectid,casestart,caseend,anestart,aneend,age,extra",
        "1,10,0,2000,-300,,60,a",  # no aneend: whole recording
        "2,11,0,2000,0,1800,12,b",  # a child: excluded
        "3,12,0,2000,0,1800,70,c",  # adult without a file: skipped
        "4,13,0,40,0,30,70,d",  # .vital file without Solar8000/ART_MBP: excluded
        "5,10,0,2000,61,1000,60,e",  # second case of subject 10, span starts inside bin 30
    ]
    (tmp_path / "cases.csv").write_text("\n".join(table) + "\n")
    # case 1: 400 samples; a 30-sample episode at 200..230 (window k0=45: horizon 195..345 holds it)
    (tmp_path / "1.csv").write_text(grid_csv(planted_grid(400, [(200, 230)])))
    (tmp_path / "2.csv").write_text(grid_csv(planted_grid(400, [(200, 230)])))
    shutil.copyfile(SAMPLES / "test_data_demo.vital", tmp_path / "4.vital")
    # case 5: 600 samples, span samples 31..499; 16 missing samples in 200..216 drop the windows whose
    # input or horizon holds them
    grid5 = planted_grid(600, [(340, 369)], gaps=[(200, 216)])
    (tmp_path / "5.csv.gz").write_bytes(gzip.compress(grid_csv(grid5).encode()))
    return tmp_path


def test_iteration_yields_included_adult_cases_with_files_and_the_track_in_caseid_order(
    data_dir: Path,
) -> None:
    cases = list(iter_case_instances(data_dir, SPEC))
    assert [case.caseid for case in cases] == [1, 5]
    assert all(case.subjectid == "10" for case in cases)
    assert all(case.test == is_test_subject("10", "vitaldb-ioh@0") for case in cases)


def test_windows_of_a_case_without_span_start_at_zero_with_known_labels(data_dir: Path) -> None:
    case = next(iter_case_instances(data_dir, SPEC))
    assert case.t0.tolist() == [0, 30, 60, 90, 120, 150, 180]  # k0 = 0, 15, ..., 90 (90 + 300 <= 400)
    assert case.instance_ids == ["1:0", "1:30", "1:60", "1:90", "1:120", "1:150", "1:180"]
    assert case.unit_ids == ["10"] * 7
    # horizon of k0 is k0+150 .. k0+299; the episode 200..229 lies wholly inside for k0 = 0..50
    assert case.labels.tolist() == [1, 1, 1, 1, 0, 0, 0]
    assert case.labels.dtype == np.int8 and case.features.shape == (7, 4) and case.inputs is None


def test_windows_follow_the_span_and_drop_windows_with_16_missing_samples(data_dir: Path) -> None:
    case = list(iter_case_instances(data_dir, SPEC, include_inputs=True))[1]
    # span [61, 1000] s: the first whole bin is k = 31 (62 s), k_end = 500, so k0 = 31, 46, ..., 196. The gap
    # 200..215 (16 samples) lies wholly in the input or the horizon of every window but k0 = 61, whose input
    # (61..210) holds 11 of them and horizon (211..360) 5: only that window is kept.
    assert case.t0.tolist() == [122]
    assert case.labels.tolist() == [0]  # the 29-sample episode 340..368 is only 21 samples into the horizon
    assert case.inputs is not None and case.inputs.shape == (1, 150)
    assert np.isnan(case.inputs[0]).sum() == 11


def test_a_short_gap_keeps_windows_and_span_anchors_t0(tmp_path: Path) -> None:
    (tmp_path / "cases.csv").write_text("caseid,subjectid,age,anestart,aneend\n7,3,40,61,1000\n")
    grid = planted_grid(600, [(340, 369), (400, 430)], gaps=[(200, 215)])  # 15 missing: kept
    (tmp_path / "7.csv").write_text(grid_csv(grid))
    case = next(iter_case_instances(tmp_path, SPEC, include_inputs=True))
    assert case.t0.tolist() == [62, 92, 122, 152, 182, 212, 242, 272, 302, 332, 362, 392]
    # horizon of k0 = t0/2 is k0+150 .. k0+299: the 29-sample episode never counts, the 30-sample one at
    # 400..429 counts for k0 <= 250 and k0 + 150 <= 400
    expected = [int(k0 + 150 <= 400 and k0 + 299 >= 429) for k0 in (np.array(case.t0) // 2).tolist()]
    assert case.labels.tolist() == expected and 0 < sum(expected) < len(expected)
    assert case.inputs is not None
    np.testing.assert_array_equal(case.inputs[0], grid[31:181])


def test_a_csv_without_the_track_column_is_skipped_like_a_vital_file_without_the_track(data_dir: Path) -> None:
    (data_dir / "3.csv").write_text("Time,Solar8000/HR\n1.0,80\n")
    assert [case.caseid for case in iter_case_instances(data_dir, SPEC)] == [1, 5]


def test_a_csv_without_a_time_column_stops_the_stream_with_a_case_file_error(data_dir: Path) -> None:
    (data_dir / "3.csv").write_text("Seconds,Solar8000/ART_MBP\n1.0,80\n")
    with pytest.raises(CaseFileError, match=r"3\.csv: no column Time"):
        list(iter_case_instances(data_dir, SPEC))


def test_baseline_predictions_fit_the_binary_predictions_schema(tmp_path: Path) -> None:
    lines = ["caseid,subjectid,age,anestart,aneend"]
    rng = np.random.default_rng(3)
    for caseid in range(1, 31):
        lines.append(f"{caseid},{caseid},50,,")
        lows = [(int(start), int(start) + int(rng.integers(20, 60))) for start in rng.integers(0, 900, 3)]
        (tmp_path / f"{caseid}.csv").write_text(grid_csv(planted_grid(1000, lows)))
    (tmp_path / "cases.csv").write_text("\n".join(lines) + "\n")
    windows = collect_windows(tmp_path, SPEC)
    assert len(windows.instance_ids) == windows.labels.size == windows.features.shape[0] == windows.test.size
    assert 0 < windows.test.sum() < windows.test.size
    for model in ("prevalence", "last-map", "logistic"):
        columns = baseline_predictions(model, windows)
        assert len(columns["score"]) == int(windows.test.sum())
        digest = write_predictions(tmp_path / model / "predictions.parquet", BINARY_SCHEMA, columns)
        table = read_predictions(tmp_path / model / "predictions.parquet", "binary_timeseries", BINARY_SCHEMA)
        assert table.num_rows == len(columns["instance_id"]) and len(digest) == 64
        pairs = zip(columns["unit_id"], columns["instance_id"], strict=True)
        assert all(unit == instance.split(":")[0] for unit, instance in pairs)  # subjectid = caseid here
