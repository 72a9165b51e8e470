"""The case table: parsing, the pinned pairs hash, eligibility, span and the patient-level split."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from evaluator.specs import load_task_files
from evaluator.vitaldb.cases import (
    Case,
    CaseTableError,
    analysed_span,
    block_sha256,
    case_pairs,
    is_adult,
    is_test_subject,
    normalise_subjectid,
    pairs_sha256,
    parse_case_table,
    read_case_table,
)

REAL_TABLE = Path("/work/shared/data/vitaldb-clinical/clinical_data.csv.gz")
TABLE = (
    "\ufeffcaseid,subjectid,casestart,caseend,anestart,aneend,age,sex\n"
    "3,77,0,9000,-500,8000,54,F\n"
    "1,5955.0,0,11542,-552,10848,77,M\n"
    "2, 12 ,0,4000,,3000,17,M\n"
    "10,77,0,7000,100,x,,F\n"
)


def test_case_table_with_bom_extra_columns_and_unsorted_rows_is_read_in_caseid_order() -> None:
    cases = parse_case_table(TABLE)
    assert [case.caseid for case in cases] == [1, 2, 3, 10]
    assert cases[0] == Case(caseid=1, subjectid="5955", age=77.0, anestart=-552.0, aneend=10848.0)
    assert cases[1].subjectid == "12" and cases[1].anestart is None
    assert cases[3].age is None and cases[3].aneend is None


def test_gzipped_case_table_is_read_like_the_plain_one(tmp_path: Path) -> None:
    (tmp_path / "cases.csv.gz").write_bytes(gzip.compress(TABLE.encode()))
    (tmp_path / "cases.csv").write_text(TABLE, encoding="utf-8")
    assert read_case_table(tmp_path / "cases.csv.gz") == read_case_table(tmp_path / "cases.csv")


def test_case_table_without_a_required_column_names_it() -> None:
    with pytest.raises(CaseTableError, match="aneend"):
        parse_case_table("caseid,subjectid,age,anestart\n1,2,50,0\n")


def test_case_table_with_a_duplicate_caseid_is_refused() -> None:
    with pytest.raises(CaseTableError, match="caseid 4 appears twice"):
        parse_case_table("caseid,subjectid,age,anestart,aneend\n4,1,50,0,10\n4,2,50,0,10\n")


def test_case_table_with_a_non_integer_caseid_is_refused() -> None:
    with pytest.raises(CaseTableError, match="line 2"):
        parse_case_table("caseid,subjectid,age,anestart,aneend\n4.5,1,50,0,10\n")


def test_pairs_hash_is_sha256_of_caseid_subjectid_lines_in_caseid_order() -> None:
    expected = hashlib.sha256(b"1,5955\n2,12\n3,77\n10,77\n").hexdigest()
    assert pairs_sha256(case_pairs(parse_case_table(TABLE))) == expected
    assert pairs_sha256([(10, "77"), (2, "12"), (3, "77"), (1, "5955")]) == expected


def test_block_hashes_split_the_pairs_by_blocks_of_caseids() -> None:
    pairs = case_pairs(parse_case_table(TABLE))
    blocks = block_sha256(pairs, block_size=2, n_blocks=5)
    assert blocks[0] == pairs_sha256([(1, "5955"), (2, "12")])
    assert blocks[1] == pairs_sha256([(3, "77")])
    assert blocks[2] == blocks[3] == pairs_sha256([])
    assert blocks[4] == pairs_sha256([(10, "77")])


def test_subjectid_with_zero_fraction_is_normalised_and_other_text_kept() -> None:
    assert normalise_subjectid(" 5955.0 ") == "5955"
    assert normalise_subjectid("5955.5") == "5955.5"
    assert normalise_subjectid("A-17") == "A-17"


def test_split_follows_the_salted_sha256_rule_and_depends_on_the_salt() -> None:
    for subjectid in ["1", "5955", "77", "123456"]:
        digest = int(hashlib.sha256(f"vitaldb-ioh@0:{subjectid}".encode()).hexdigest(), 16)
        assert is_test_subject(subjectid, "vitaldb-ioh@0") == (digest % 10 < 3)
    subjects = [str(number) for number in range(2000)]
    real = [is_test_subject(s, "vitaldb-ioh@0") for s in subjects]
    demo = [is_test_subject(s, "vitaldb-ioh-synthetic@0") for s in subjects]
    assert 0.25 < sum(real) / len(real) < 0.35
    assert real != demo


def test_adults_are_those_with_known_age_of_at_least_18() -> None:
    ages = {1: 18.0, 2: 17.9, 3: None}
    cases = [Case(caseid, "s", age, None, None) for caseid, age in ages.items()]
    assert [is_adult(case, 18) for case in cases] == [True, False, False]


def test_span_is_known_only_when_both_anaesthesia_times_are() -> None:
    assert analysed_span(Case(1, "s", 50, -552, 10848)) == (-552, 10848)
    assert analysed_span(Case(1, "s", 50, None, 10848)) is None
    assert analysed_span(Case(1, "s", 50, 100, None)) is None


def test_spec_pins_pairs_hash_of_the_real_table_under_its_hashing_rule() -> None:
    spec = next(f.spec for f in load_task_files() if f.spec.task == "vitaldb-ioh@0")
    table = spec.as_dict()["dataset"]["case_table"]
    assert table["expected_cases"] == 6388 and table["caseid_ranges"] == [[1, 6388]]
    assert len(table["pairs_sha256"]) == 64 and len(table["block_sha256"]) == 7
    if not REAL_TABLE.exists():
        pytest.skip("VitalDB's real case table is not on this machine (it is not shipped: CC BY-NC-SA 4.0)")
    pairs = case_pairs(read_case_table(REAL_TABLE))
    assert len(pairs) == 6388
    assert pairs_sha256(pairs) == table["pairs_sha256"]
    assert block_sha256(pairs, table["block_size"], 7) == table["block_sha256"]
