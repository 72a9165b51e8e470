"""The 2-s grid readers: real VitalRecorder files through the `vitaldb` package, and our CSV reader."""

from __future__ import annotations

import csv
import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest

from evaluator.vitaldb.signals import (
    CaseFile,
    CaseFileError,
    TrackNotFound,
    caseid_of,
    grid_from_records,
    index_case_files,
    mask_out_of_range,
    read_case_grid,
    read_csv_grid,
    read_vital_grid,
    single_case_file,
)

SAMPLES = Path(__file__).parent / "data" / "vital-format-samples"
VITAL_FILES = ["test_data_demo.vital", "test_intelliue_demo2.vital", "test_intellivue_demo1.vital"]
TRACK = "Intellivue/ABP_MEAN"


def expected_grid(file_name: str) -> np.ndarray:
    with (SAMPLES / "expected_abp_mean_2s_grid.csv").open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["file"] == file_name]
    assert [int(row["t_seconds"]) for row in rows] == list(range(0, 2 * len(rows), 2))
    return np.array([float(row["abp_mean_mmhg"]) if row["abp_mean_mmhg"] else np.nan for row in rows])


def write_records_csv(file_name: str, destination: Path, track: str = TRACK) -> Path:
    """The file's ABP_MEAN records (expected_map_records.csv) written out as a case CSV."""
    with (SAMPLES / "expected_map_records.csv").open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["file"] == file_name and row["track"] == TRACK]
    assert rows
    lines = [f"Time,{track},Other"] + [f"{row['t_seconds']},{row['value']},1" for row in rows]
    destination.write_text("\n".join(lines) + "\n")
    return destination


@pytest.mark.parametrize("file_name", VITAL_FILES)
def test_vital_reader_reproduces_the_expected_2s_grid_of_each_real_file(file_name: str) -> None:
    grid = read_vital_grid(SAMPLES / file_name, TRACK, 2)
    expected = expected_grid(file_name)
    assert grid.dtype == np.float64
    np.testing.assert_array_equal(grid, expected)  # NaN positions must agree too
    assert np.isnan(grid).any() == (file_name == "test_data_demo.vital")  # its first bin is empty


@pytest.mark.parametrize("file_name", VITAL_FILES)
def test_csv_reader_gives_the_vital_readers_grid_for_the_same_records(file_name: str, tmp_path: Path) -> None:
    vital_grid = read_vital_grid(SAMPLES / file_name, TRACK, 2)
    plain = write_records_csv(file_name, tmp_path / "1.csv")
    zipped = tmp_path / "2.csv.gz"
    zipped.write_bytes(gzip.compress(plain.read_bytes()))
    np.testing.assert_array_equal(read_csv_grid(plain, TRACK, 2), vital_grid)
    np.testing.assert_array_equal(read_csv_grid(zipped, TRACK, 2), vital_grid)


def test_vital_file_without_the_track_raises_track_not_found(tmp_path: Path) -> None:
    with pytest.raises(TrackNotFound, match="Solar8000/ART_MBP"):
        read_vital_grid(SAMPLES / VITAL_FILES[0], "Solar8000/ART_MBP", 2)
    # a suffix of a real name is not accepted, although the library's own lookup would match it
    with pytest.raises(TrackNotFound):
        read_vital_grid(SAMPLES / VITAL_FILES[0], "ABP_MEAN", 2)


def test_a_file_that_is_not_vital_format_is_a_case_file_error(tmp_path: Path) -> None:
    bogus = tmp_path / "3.vital"
    bogus.write_bytes(gzip.compress(b"NOPE" + bytes(64)))
    with pytest.raises(CaseFileError, match="not a readable"):
        read_vital_grid(bogus, TRACK, 2)


def test_last_record_of_a_bin_wins_and_empty_bins_are_missing() -> None:
    grid = grid_from_records([0.1, 1.9, 2.0, 6.5, 6.4], [50, 60, 70, 80, 90], length_seconds=8.0, grid_seconds=2)
    # bin 0 gets 50 then 60; bin 1 gets 70; bin 2 is empty; bin 3 gets 80 then 90 (file order, not time order)
    np.testing.assert_array_equal(grid, [60.0, 70.0, np.nan, 90.0])


def test_records_outside_the_recording_are_clamped_like_the_library() -> None:
    grid = grid_from_records([-3.0, 8.0, 9.5], [40, 55, 66], length_seconds=8.0, grid_seconds=2)
    assert grid.size == 4  # ceil(8 / 2)
    np.testing.assert_array_equal(grid, [40.0, np.nan, np.nan, 66.0])


def test_grid_length_is_ceil_of_length_over_interval_and_empty_for_no_length() -> None:
    assert grid_from_records([0.0], [70], length_seconds=8.01, grid_seconds=2).size == 5
    assert grid_from_records([0.0], [70], length_seconds=0.0, grid_seconds=2).size == 0


def test_values_are_kept_at_float32_precision_as_the_library_stores_them() -> None:
    grid = grid_from_records([0.5], [64.99999999], length_seconds=2.0, grid_seconds=2)
    assert grid[0] == float(np.float32(64.99999999)) == 65.0


def test_range_mask_keeps_20_and_200_and_drops_values_outside() -> None:
    grid = np.array([19.9, 20.0, 120.0, 200.0, 200.1, np.nan])
    np.testing.assert_array_equal(mask_out_of_range(grid, 20, 200), [np.nan, 20.0, 120.0, 200.0, np.nan, np.nan])


def test_out_of_range_last_record_makes_its_bin_missing_even_after_a_valid_one(tmp_path: Path) -> None:
    path = tmp_path / "5.csv"
    path.write_text("Time,Solar8000/ART_MBP\n0.5,80\n1.5,250\n2.5,70\n3.1,\n3.9,-nan(ind)\n5.0,75\n")
    grid = read_case_grid(CaseFile(5, path), "Solar8000/ART_MBP", 2, 20, 200)
    np.testing.assert_array_equal(grid, [np.nan, np.nan, 75.0])  # bin 1: 70 then two empty records


def test_csv_with_byte_order_mark_and_rows_without_time_is_read(tmp_path: Path) -> None:
    path = tmp_path / "6.csv"
    path.write_bytes("\ufeffTime,Solar8000/ART_MBP\n0.2,81\n,99\n2.2,82\n".encode())
    np.testing.assert_array_equal(read_csv_grid(path, "Solar8000/ART_MBP", 2), [81.0, 82.0])


def test_csv_without_the_track_column_is_a_case_without_the_track(tmp_path: Path) -> None:
    path = tmp_path / "7.csv"
    path.write_text("Time,Solar8000/HR\n0.2,81\n")
    with pytest.raises(TrackNotFound, match=r"7\.csv: no column Solar8000/ART_MBP"):
        read_csv_grid(path, "Solar8000/ART_MBP", 2)


def test_csv_without_a_time_column_is_a_case_file_error(tmp_path: Path) -> None:
    path = tmp_path / "7.csv.gz"
    path.write_bytes(gzip.compress(b"time_s,Solar8000/ART_MBP\n0.2,81\n"))
    with pytest.raises(CaseFileError, match=r"7\.csv\.gz: no column Time"):
        read_csv_grid(path, "Solar8000/ART_MBP", 2)


def test_a_vital_file_cut_inside_its_header_is_a_case_file_error_not_the_librarys_own(tmp_path: Path) -> None:
    whole = gzip.decompress((SAMPLES / "test_data_demo.vital").read_bytes())
    path = tmp_path / "9.vital"
    path.write_bytes(gzip.compress(whole[:10]))  # the vitaldb library raises struct.error on this one
    with pytest.raises(CaseFileError, match=r"9\.vital: not a readable \.vital file \(error: "):
        read_vital_grid(path, "Solar8000/ART_MBP", 2)


def test_csv_with_a_non_numeric_value_is_a_case_file_error(tmp_path: Path) -> None:
    path = tmp_path / "8.csv"
    path.write_text("Time,Solar8000/ART_MBP\n0.2,81\n2.2,high\n")
    with pytest.raises(CaseFileError):
        read_csv_grid(path, "Solar8000/ART_MBP", 2)


def test_case_files_are_indexed_by_caseid_and_two_files_for_one_case_are_refused(tmp_path: Path) -> None:
    for name in ["1.vital", "2.csv.gz", "3.csv", "3.vital", "cases.csv", "x4.csv", "5.csv.bak"]:
        (tmp_path / name).write_bytes(b"")
    files = index_case_files(tmp_path)
    assert sorted(files) == [1, 2, 3]
    assert single_case_file(2, files[2]).kind == "csv"
    assert single_case_file(1, files[1]).kind == "vital"
    with pytest.raises(CaseFileError, match="case 3 has 2 files"):
        single_case_file(3, files[3])
    assert caseid_of("12.csv.gz") == 12 and caseid_of("12.parquet") is None and caseid_of("١٢.csv") is None


def test_vital_file_copied_under_a_caseid_name_reads_through_the_case_reader(tmp_path: Path) -> None:
    path = tmp_path / "9.vital"
    shutil.copyfile(SAMPLES / VITAL_FILES[2], path)
    grid = read_case_grid(CaseFile(9, path), TRACK, 2, 20, 200)
    np.testing.assert_array_equal(grid, expected_grid(VITAL_FILES[2]))
