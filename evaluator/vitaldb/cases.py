"""The case table (`cases.csv`): parsing, the pinned (caseid, subjectid) hash, eligibility and the split.

The table has VitalDB's case-table columns — at least caseid, subjectid, age, anestart and aneend; extra
columns are ignored and a UTF-8 byte-order mark (as in https://api.vitaldb.net/cases) is tolerated.

Hashing rule for the pinned pairs (written into the spec as well): one line `"{caseid},{subjectid}\\n"`
per row of the table, caseid as a decimal integer, subjectid as normalised below, lines ordered by
caseid ascending, encoded as UTF-8; `pairs_sha256` is the sha256 of their concatenation. The block
hashes apply the same rule to the rows whose caseid falls in each block of `block_size` consecutive
caseids (block i holds caseids i*block_size+1 .. (i+1)*block_size), so a difference can be located.

subjectid normalisation: the cell's text without surrounding whitespace; an integer written with a
zero fractional part (`"5955.0"`, as a float-typed export writes it) becomes the integer (`"5955"`).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

REQUIRED_COLUMNS = ("caseid", "subjectid", "age", "anestart", "aneend")
_INTEGER_WITH_ZERO_FRACTION = re.compile(r"^([+-]?\d+)\.0*$")


class CaseTableError(ValueError):
    """The case table cannot be read: missing columns, a bad caseid, a duplicate, an empty subjectid."""


@dataclass(frozen=True)
class Case:
    """One row of the case table, with the fields the task uses. Times are seconds since casestart."""

    caseid: int
    subjectid: str
    age: float | None
    anestart: float | None
    aneend: float | None


def normalise_subjectid(text: str) -> str:
    stripped = text.strip()
    match = _INTEGER_WITH_ZERO_FRACTION.match(stripped)
    return str(int(match.group(1))) if match else stripped


def _optional_number(text: str | None) -> float | None:
    """A finite number, or None for an empty, non-numeric, NaN or infinite cell."""
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _caseid(text: str, line: int) -> int:
    stripped = text.strip()
    match = _INTEGER_WITH_ZERO_FRACTION.match(stripped)
    try:
        return int(match.group(1) if match else stripped)
    except ValueError:
        raise CaseTableError(f"line {line}: caseid {text!r} is not an integer") from None


def parse_case_table(text: str) -> list[Case]:
    """Parse a case table's text; rows are returned ordered by caseid."""
    reader = csv.DictReader(io.StringIO(text.removeprefix("\ufeff")))
    columns = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        raise CaseTableError(f"case table lacks column(s) {', '.join(missing)} (has: {', '.join(columns[:12])})")
    reader.fieldnames = columns
    cases: dict[int, Case] = {}
    for line, row in enumerate(reader, start=2):
        caseid = _caseid(row["caseid"] or "", line)
        subjectid = normalise_subjectid(row["subjectid"] or "")
        if not subjectid:
            raise CaseTableError(f"line {line}: case {caseid} has an empty subjectid")
        if caseid in cases:
            raise CaseTableError(f"line {line}: caseid {caseid} appears twice")
        cases[caseid] = Case(
            caseid=caseid,
            subjectid=subjectid,
            age=_optional_number(row["age"]),
            anestart=_optional_number(row["anestart"]),
            aneend=_optional_number(row["aneend"]),
        )
    return [cases[caseid] for caseid in sorted(cases)]


def read_case_table(path: Path) -> list[Case]:
    """Read `cases.csv` (plain or `.gz`), UTF-8 with or without a byte-order mark."""
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CaseTableError(f"{path.name} is not UTF-8 text (byte {raw[error.start]:#04x} at {error.start})") from None
    return parse_case_table(text)


def pairs_sha256(pairs: Iterable[tuple[int, str]]) -> str:
    """sha256 of the `"{caseid},{subjectid}\\n"` lines ordered by caseid (see the module docstring)."""
    digest = hashlib.sha256()
    for caseid, subjectid in sorted(pairs):
        digest.update(f"{caseid},{subjectid}\n".encode())
    return digest.hexdigest()


def case_pairs(cases: Iterable[Case]) -> list[tuple[int, str]]:
    return [(case.caseid, case.subjectid) for case in cases]


def block_sha256(pairs: Sequence[tuple[int, str]], block_size: int, n_blocks: int) -> list[str]:
    """The pairs hash of each block of `block_size` consecutive caseids, for blocks 0 .. n_blocks-1."""
    blocks: list[list[tuple[int, str]]] = [[] for _ in range(n_blocks)]
    for caseid, subjectid in pairs:
        index = (caseid - 1) // block_size
        if 0 <= index < n_blocks:
            blocks[index].append((caseid, subjectid))
    return [pairs_sha256(block) for block in blocks]


def is_test_subject(subjectid: str, salt: str, modulus: int = 10, test_below: int = 3) -> bool:
    """`int(sha256(f"{salt}:{subjectid}".encode()).hexdigest(), 16) % modulus < test_below`."""
    digest = hashlib.sha256(f"{salt}:{subjectid}".encode()).hexdigest()
    return int(digest, 16) % modulus < test_below


def is_adult(case: Case, min_age: float) -> bool:
    """Age known and at least `min_age`; a case with an unknown age is not included."""
    return case.age is not None and case.age >= min_age


def analysed_span(case: Case) -> tuple[float, float] | None:
    """[anestart, aneend] in seconds since casestart when both are known, else None (whole recording)."""
    if case.anestart is None or case.aneend is None:
        return None
    return (case.anestart, case.aneend)
