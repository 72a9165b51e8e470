"""The synthetic demo cohort: pinned by its spec, deterministic, in the real format, run by the real pipeline;
and the data check on it (what differs, said exactly)."""

from __future__ import annotations

import csv
import gzip
import io
import shutil
from pathlib import Path

import pytest

from evaluator.specs import TaskSpec, load_dataset_records, load_task_files
from evaluator.vitaldb.cases import is_adult, read_case_table
from evaluator.vitaldb.check import check_data_dir
from evaluator.vitaldb.definition import definition_from_spec
from evaluator.vitaldb.pipeline import baseline_predictions, collect_windows
from evaluator.vitaldb.synthetic import CohortConfig, CohortSummary, write_synthetic_cohort

TASKS = {task_file.spec.task: task_file for task_file in load_task_files()}
DEMO = TASKS["vitaldb-ioh-synthetic@0"]
REAL = TASKS["vitaldb-ioh@0"]


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CohortSummary]:
    directory = tmp_path_factory.mktemp("vitaldb-synthetic")
    return directory, write_synthetic_cohort(directory)


@pytest.fixture()
def cohort_copy(cohort: tuple[Path, CohortSummary], tmp_path: Path) -> Path:
    return Path(shutil.copytree(cohort[0], tmp_path / "copy"))


def test_generated_cohort_is_the_one_the_demo_spec_pins(cohort: tuple[Path, CohortSummary]) -> None:
    directory, summary = cohort
    dataset = DEMO.spec.as_dict()["dataset"]
    listing = dataset["case_files"]["listing"]
    assert summary.n_cases == dataset["case_table"]["expected_cases"] == 297
    assert summary.n_patients == 240
    assert summary.pairs_sha256 == dataset["case_table"]["pairs_sha256"]
    assert (summary.n_files, summary.listing_sha256) == (listing["count"], listing["sha256"])
    assert list(summary.cases_without_file) == listing["cases_without_file"]
    assert len(list(directory.iterdir())) == summary.n_files


def test_generating_twice_writes_byte_identical_files(tmp_path: Path) -> None:
    config = CohortConfig(n_patients=12)
    first = write_synthetic_cohort(tmp_path / "a", config)
    second = write_synthetic_cohort(tmp_path / "b", config)
    assert first == second
    names = sorted(path.name for path in (tmp_path / "a").iterdir())
    assert names == sorted(path.name for path in (tmp_path / "b").iterdir()) and len(names) == first.n_files
    assert all((tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes() for name in names)
    assert write_synthetic_cohort(tmp_path / "c", CohortConfig(n_patients=12, seed=1)) != first


def test_cohort_files_are_in_the_real_readers_format(cohort: tuple[Path, CohortSummary]) -> None:
    directory, _ = cohort
    table = (directory / "cases.csv").read_bytes()
    assert table.startswith("\ufeff".encode())  # as VitalDB's API serves its case table
    rows = list(csv.DictReader(io.StringIO(table.decode("utf-8-sig"))))
    assert {"caseid", "subjectid", "age", "anestart", "aneend", "sex"} <= set(rows[0])
    assert any(float(row["age"]) < 18 for row in rows) and any(row["anestart"] == "" for row in rows)
    assert len({row["subjectid"] for row in rows}) < len(rows)  # some patients have several cases
    with gzip.open(directory / "1.csv.gz", "rt") as handle:
        assert handle.readline() == "Time,Solar8000/ART_MBP\n"


def test_demo_task_runs_the_real_pipeline_with_plausible_prevalence_and_baselines(
    cohort: tuple[Path, CohortSummary],
) -> None:
    from sklearn.metrics import roc_auc_score  # type: ignore[import-untyped, unused-ignore]

    windows = collect_windows(cohort[0], DEMO.spec)
    assert 50_000 < len(windows.instance_ids) < 100_000
    assert 0.05 < windows.labels.mean() < 0.15
    assert 0.2 < windows.test.mean() < 0.45
    auroc = {
        model: roc_auc_score(columns["label"], columns["score"])
        for model in ("prevalence", "last-map", "logistic")
        if (columns := baseline_predictions(model, windows))
    }
    assert auroc["prevalence"] == 0.5
    assert auroc["last-map"] > 0.7 and auroc["logistic"] > 0.7


def test_demo_task_and_dataset_say_plainly_that_they_are_synthetic() -> None:
    assert DEMO.meta.demo and DEMO.meta.preview and DEMO.meta.status == "published"
    assert DEMO.meta.catalog_id is None
    assert "synthetic" in DEMO.meta.title.lower() and "not a VitalDB score" in DEMO.meta.summary
    record = next(r for r in load_dataset_records() if r.slug == DEMO.spec.dataset["slug"])
    assert record.demo and record.license == "Apache-2.0" and "synthetic" in record.citation.lower()
    demo, real = definition_from_spec(DEMO.spec), definition_from_spec(REAL.spec)
    assert demo.split_salt == "vitaldb-ioh-synthetic@0" != real.split_salt
    for name in (
        "window_samples",
        "stride_samples",
        "max_missing_input",
        "threshold_mmhg",
        "min_run_samples",
    ):
        assert getattr(demo, name) == getattr(real, name)
    same_rules = ["signal", "cases", "windows", "label", "metrics", "bootstrap"]
    assert all(DEMO.spec.as_dict()[key] == REAL.spec.as_dict()[key] for key in same_rules)


# --- data check ---


def test_check_of_the_generated_cohort_finds_no_difference(cohort: tuple[Path, CohortSummary]) -> None:
    report = check_data_dir(cohort[0], DEMO.spec, deep=True)
    assert report.ok and report.differences == () and report.notes == ()
    assert report.n_cases == 297 and report.n_case_files == report.n_adult_cases - report.n_adult_cases_without_file


def test_check_names_a_missing_case_file_and_the_changed_listing(cohort_copy: Path) -> None:
    (cohort_copy / "17.csv.gz").unlink()
    report = check_data_dir(cohort_copy, DEMO.spec)
    assert not report.ok
    assert "1 case file(s) missing (e.g. caseid 17)" in report.differences
    assert "files: 291 (cases.csv + case files), the spec pins 292" in report.differences
    assert any(d.startswith("files: listing hash") for d in report.differences)


def test_check_detects_a_changed_value_in_one_case_file(cohort_copy: Path) -> None:
    path = cohort_copy / "5.csv.gz"
    path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes()) + b"99999.000,70\n"))
    report = check_data_dir(cohort_copy, DEMO.spec)
    assert [d for d in report.differences if "listing hash" in d] and len(report.differences) == 1


def test_check_locates_a_changed_subjectid_and_missing_cases(cohort_copy: Path) -> None:
    table = cohort_copy / "cases.csv"
    lines = table.read_text(encoding="utf-8-sig").splitlines()
    fields = lines[3].split(",")  # caseid 3
    fields[1] = "99999999"
    table.write_text("\n".join([*lines[:3], ",".join(fields), *lines[4:]]) + "\n", encoding="utf-8")
    report = check_data_dir(cohort_copy, DEMO.spec)
    assert any("some subjectids differ, in caseid block(s) 1-1000" in d for d in report.differences)
    table.write_text("\n".join([lines[0], *lines[1:200]]) + "\n", encoding="utf-8")  # cases 1..199 only
    report = check_data_dir(cohort_copy, DEMO.spec)
    assert "case table: 199 cases, expected 297: 98 missing (e.g. caseid 200, 201, 202, 203, 204, ...), 0 extra" in (
        report.differences
    )
    assert any("case file(s) for caseids not in the case table" in note for note in report.notes)


def test_check_reports_schema_problems_and_several_files_for_one_case(cohort_copy: Path) -> None:
    (cohort_copy / "8.csv.gz").write_bytes(gzip.compress(b"seconds,Solar8000/ART_MBP\n1.0,80\n"))
    (cohort_copy / "9.csv").write_text("Time,Solar8000/ART_MBP\n1.0,80\n")
    report = check_data_dir(cohort_copy, DEMO.spec)
    assert "8.csv.gz: no column Time (columns: seconds, Solar8000/ART_MBP)" in report.differences
    assert "case 9 has 2 files (9.csv, 9.csv.gz)" in report.differences


def test_check_counts_and_names_csv_files_without_the_track_as_cases_without_it(cohort_copy: Path) -> None:
    spec = DEMO.spec.as_dict()
    spec["dataset"]["case_files"]["listing"] = None  # as the real task: the file set is not pinned
    adults = [case.caseid for case in read_case_table(cohort_copy / "cases.csv") if is_adult(case, 18)]
    adults = [caseid for caseid in adults if (cohort_copy / f"{caseid}.csv.gz").is_file()][:7]
    for caseid in adults:
        (cohort_copy / f"{caseid}.csv.gz").write_bytes(gzip.compress(b"Time,Solar8000/HR\n1.0,80\n"))
    report = check_data_dir(cohort_copy, TaskSpec.model_validate(spec))
    assert report.ok and report.n_case_files_without_track == 7
    shown = ", ".join(str(caseid) for caseid in adults[:5])
    assert any(f"7 case file(s) hold no Solar8000/ART_MBP (caseid {shown}, ...)" in note for note in report.notes)


def test_deep_check_finds_a_non_numeric_value_the_header_check_cannot(cohort_copy: Path) -> None:
    (cohort_copy / "10.csv.gz").write_bytes(gzip.compress(b"Time,Solar8000/ART_MBP\n1.0,80\n3.0,high\n"))
    shallow = check_data_dir(cohort_copy, DEMO.spec)
    deep = check_data_dir(cohort_copy, DEMO.spec, deep=True)
    assert not any(d.startswith("10.csv.gz") for d in shallow.differences)
    assert any(d.startswith("10.csv.gz") for d in deep.differences)


def test_check_without_a_case_table_or_directory_says_so(tmp_path: Path) -> None:
    assert check_data_dir(tmp_path / "absent", DEMO.spec).differences == (
        f"data directory {tmp_path / 'absent'} does not exist",
    )
    report = check_data_dir(tmp_path, DEMO.spec)
    assert report.differences == (f"case table cases.csv not found in {tmp_path}",) and not report.ok
    (tmp_path / "cases.csv").write_text("caseid,subjectid\n1,2\n")
    assert "lacks column(s) age, anestart, aneend" in check_data_dir(tmp_path, DEMO.spec).differences[0]


def test_check_against_the_real_spec_counts_cases_and_notes_absent_files(tmp_path: Path) -> None:
    (tmp_path / "cases.csv").write_text("caseid,subjectid,age,anestart,aneend\n1,5955,77,-552,10848\n2,2487,54,,\n")
    (tmp_path / "1.csv").write_text("Time,Solar8000/ART_MBP\n1.0,80\n")
    report = check_data_dir(tmp_path, REAL.spec)
    assert report.differences[0] == (
        "case table: 2 cases, expected 6,388: 6,386 missing (e.g. caseid 3, 4, 5, 6, 7, ...), 0 extra"
    )
    assert report.notes and report.notes[0].startswith("1 of 2 adult cases have no case file (e.g. caseid 2)")


def test_check_without_a_pinned_listing_only_notes_absent_files(cohort_copy: Path) -> None:
    spec = DEMO.spec.as_dict()
    spec["dataset"]["case_files"]["listing"] = None
    (cohort_copy / "17.csv.gz").unlink()
    report = check_data_dir(cohort_copy, TaskSpec.model_validate(spec))
    assert report.ok and any("caseid 17" in note for note in report.notes)
    for path in cohort_copy.glob("*.csv.gz"):
        path.unlink()
    report = check_data_dir(cohort_copy, TaskSpec.model_validate(spec))
    assert not report.ok and "none of the 283 adult cases has a case file" in report.differences[0]
    assert report.n_adult_cases == 283 and report.n_case_files == 0
