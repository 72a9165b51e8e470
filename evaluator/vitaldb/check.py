"""`data check` for VitalDB tasks: compare a local data directory with a spec and say exactly what differs.

    check_data_dir(data_dir, spec, *, deep=False) -> DataCheckReport

Checked, in order: the directory and its case table exist and parse; the case count and caseids against
`case_table.expected_cases` / `caseid_ranges` (missing and extra caseids, with examples); the pinned
`pairs_sha256` (and, when it differs while the caseids agree, which blocks of caseids hold the changed
subjectids); case files of adult cases (present, absent, several for one case); when the spec pins a
file listing (the synthetic cohort), the count and `listing_sha256` of the files; the schema of each
case file. `deep=False` reads each CSV's header and each `.vital` file's signature only; `deep=True` also
parses every record of every file (CSV values numeric; `.vital` holds the track).

A case file without the track (a CSV without its column; with `deep`, a `.vital` file without it) is not a
difference: the case is not included, as VitalDB cases without an arterial line are not. Such files are
counted (`n_case_files_without_track`) and named in a note.

`differences` make `ok` False; `notes` are facts that do not (absent files when the spec does not pin
the file set: a VitalDB case without an arterial line has no track and so no file). With a pinned listing
the expected files are those of every case except `listing.cases_without_file`.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.specs import TaskSpec
from evaluator.vitaldb.cases import (
    Case,
    CaseTableError,
    block_sha256,
    case_pairs,
    is_adult,
    pairs_sha256,
    read_case_table,
)
from evaluator.vitaldb.definition import IohDefinition, definition_from_spec
from evaluator.vitaldb.listing import content_sha256, listing_sha256
from evaluator.vitaldb.signals import (
    CaseFile,
    CaseFileError,
    TrackNotFound,
    index_case_files,
    read_csv_records,
    read_raw_grid,
    require_csv_columns,
)

EXAMPLES = 5


@dataclass(frozen=True)
class DataCheckReport:
    """The outcome of a data check: `ok` when nothing differs from the spec."""

    task: str
    data_dir: str
    ok: bool
    differences: tuple[str, ...]
    notes: tuple[str, ...] = ()
    n_cases: int = 0
    n_adult_cases: int = 0
    n_case_files: int = 0
    n_adult_cases_without_file: int = 0
    n_case_files_without_track: int = 0


@dataclass
class _Findings:
    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


def _examples(values: Iterable[Any]) -> str:
    items = sorted(values)
    shown = ", ".join(str(value) for value in items[:EXAMPLES])
    return f"{shown}, ..." if len(items) > EXAMPLES else shown


def _expected_caseids(table_spec: dict[str, Any]) -> set[int] | None:
    ranges = table_spec.get("caseid_ranges")
    if not ranges:
        return None
    return {caseid for low, high in ranges for caseid in range(int(low), int(high) + 1)}


def _check_case_ids(cases: Sequence[Case], table_spec: dict[str, Any], findings: _Findings) -> bool:
    """Count and caseid set against the spec; True when the caseids are exactly the expected ones."""
    expected_count = table_spec.get("expected_cases")
    expected_ids = _expected_caseids(table_spec)
    present = {case.caseid for case in cases}
    same_ids = expected_ids is None or present == expected_ids
    if expected_ids is not None and not same_ids:
        missing, extra = expected_ids - present, present - expected_ids
        findings.differences.append(
            f"case table: {len(cases):,} cases, expected {len(expected_ids):,}: {len(missing):,} missing"
            + (f" (e.g. caseid {_examples(missing)})" if missing else "")
            + f", {len(extra):,} extra"
            + (f" (e.g. caseid {_examples(extra)})" if extra else "")
        )
    elif expected_count is not None and len(cases) != int(expected_count):
        findings.differences.append(f"case table: {len(cases):,} cases, expected {int(expected_count):,}")
    return same_ids


def _check_pairs(cases: Sequence[Case], table_spec: dict[str, Any], same_ids: bool, findings: _Findings) -> None:
    pinned = table_spec.get("pairs_sha256")
    if not pinned:
        findings.notes.append("the spec pins no pairs_sha256: the case table's subjectids were not verified")
        return
    pairs = case_pairs(cases)
    actual = pairs_sha256(pairs)
    if actual == pinned:
        return
    message = f"case table: the (caseid, subjectid) pairs hash {actual[:12]}... is not the pinned {pinned[:12]}..."
    pinned_blocks: list[str] = table_spec.get("block_sha256") or []
    if same_ids and pinned_blocks:
        size = int(table_spec["block_size"])
        mine = block_sha256(pairs, size, len(pinned_blocks))
        changed = [
            f"{index * size + 1}-{(index + 1) * size}"
            for index, (actual_block, pinned_block) in enumerate(zip(mine, pinned_blocks, strict=True))
            if actual_block != pinned_block
        ]
        message += f"; the caseids agree, so some subjectids differ, in caseid block(s) {', '.join(changed)}"
    findings.differences.append(message)


def _is_vital(path: Path) -> bool:
    with gzip.open(path, "rb") as handle:
        return handle.read(4) == b"VITA"


def file_problem(case_file: CaseFile, track: str, grid_seconds: int, deep: bool) -> str | None:
    """Why one case file does not match the spec's schema, or None. A file without the track is not a
    problem: TrackNotFound propagates (the case is not included; the caller counts it). CaseFileError and
    I/O errors are problems."""
    try:
        if case_file.kind == "csv":
            require_csv_columns(case_file.path, track)
            if deep:
                read_csv_records(case_file.path, track)
        elif not _is_vital(case_file.path):
            return f"{case_file.path.name}: not a .vital file (no gzip-compressed VITA signature)"
        elif deep:
            read_raw_grid(case_file, track, grid_seconds)
    except (CaseFileError, OSError, EOFError, UnicodeDecodeError) as error:
        return str(error) if str(error).startswith(case_file.path.name) else f"{case_file.path.name}: {error}"
    return None


def _file_problems(
    files: dict[int, list[Path]], caseids: Sequence[int], definition: IohDefinition, deep: bool, findings: _Findings
) -> None:
    """Schema problems of the single case files of `caseids` (differences), and those without the track (a note)."""
    problems: list[str] = []
    without_track: list[int] = []
    for caseid in caseids:
        try:
            problem = file_problem(CaseFile(caseid, files[caseid][0]), definition.track, definition.grid_seconds, deep)
        except TrackNotFound:
            without_track.append(caseid)
            continue
        if problem:
            problems.append(problem)
    findings.differences += problems[:EXAMPLES]
    if len(problems) > EXAMPLES:
        findings.differences.append(f"... and {len(problems) - EXAMPLES} more case files that do not match the schema")
    findings.counts["n_case_files_without_track"] = len(without_track)
    if without_track:
        findings.notes.append(
            f"{len(without_track):,} case file(s) hold no {definition.track} (caseid {_examples(without_track)}): "
            "those cases are not included, as VitalDB cases without an arterial line are not"
        )


def _check_files(
    data_dir: Path,
    cases: Sequence[Case],
    definition: IohDefinition,
    files_spec: dict[str, Any],
    deep: bool,
    findings: _Findings,
) -> None:
    files = index_case_files(data_dir)
    adults = [case.caseid for case in cases if is_adult(case, definition.min_age)]
    without = [caseid for caseid in adults if caseid not in files]
    several = {caseid: paths for caseid, paths in files.items() if len(paths) > 1}
    strays = sorted(set(files) - {case.caseid for case in cases})
    findings.counts |= {
        "n_adult_cases": len(adults),
        "n_case_files": len(adults) - len(without),
        "n_adult_cases_without_file": len(without),
    }
    for caseid, paths in sorted(several.items())[:EXAMPLES]:
        findings.differences.append(f"case {caseid} has {len(paths)} files ({', '.join(p.name for p in paths)})")
    if len(several) > EXAMPLES:
        findings.differences.append(f"... and {len(several) - EXAMPLES} more cases with several files")
    if strays:
        findings.notes.append(
            f"{len(strays)} case file(s) for caseids not in the case table (e.g. {_examples(strays)})"
        )
    listing = files_spec.get("listing")
    if listing:
        _check_listing(data_dir, cases, files, listing, findings)
    elif adults and len(without) == len(adults):
        findings.differences.append(f"none of the {len(adults):,} adult cases has a case file in {data_dir}")
    elif without:
        findings.notes.append(
            f"{len(without):,} of {len(adults):,} adult cases have no case file "
            f"(e.g. caseid {_examples(without)}); "
            "a VitalDB case without an arterial line has no track and no file, any other is not fetched yet"
        )
    single = [caseid for caseid in adults if caseid in files and caseid not in several]
    _file_problems(files, single, definition, deep, findings)


def _check_listing(
    data_dir: Path,
    cases: Sequence[Case],
    files: dict[int, list[Path]],
    listing: dict[str, Any],
    findings: _Findings,
) -> None:
    """A pinned file set: which cases must have a file, the file count, and the listing hash of cases.csv plus
    every case file (hashed by uncompressed content)."""
    no_file = {int(caseid) for caseid in listing.get("cases_without_file", [])}
    expected = {case.caseid for case in cases} - no_file
    missing, extra = expected - set(files), (set(files) & no_file)
    if missing:
        findings.differences.append(f"{len(missing):,} case file(s) missing (e.g. caseid {_examples(missing)})")
    if extra:
        findings.differences.append(
            f"{len(extra):,} case file(s) the pinned set does not have (caseid {_examples(extra)})"
        )
    paths = [data_dir / "cases.csv"] + [path for paths in files.values() for path in paths]
    entries = [(path.name, content_sha256(path)) for path in paths]
    expected_count = int(listing["count"])
    if len(entries) != expected_count:
        findings.differences.append(
            f"files: {len(entries):,} (cases.csv + case files), the spec pins {expected_count:,}"
        )
    actual = listing_sha256(entries)
    if actual != listing["sha256"]:
        findings.differences.append(
            f"files: listing hash {actual[:12]}... differs from the pinned {str(listing['sha256'])[:12]}... "
            "(a file was added, removed or changed relative to the cohort the spec pins)"
        )


def check_data_dir(data_dir: Path, spec: TaskSpec, *, deep: bool = False) -> DataCheckReport:
    """Compare `data_dir` with `spec` (see the module docstring)."""
    definition = definition_from_spec(spec)
    dataset = spec.as_dict()["dataset"]
    table_spec, files_spec = dataset["case_table"], dataset["case_files"]
    findings = _Findings()
    table_path = data_dir / definition.case_table_file
    cases: list[Case] = []
    if not data_dir.is_dir():
        findings.differences.append(f"data directory {data_dir} does not exist")
    elif not table_path.is_file():
        findings.differences.append(f"case table {table_path.name} not found in {data_dir}")
    else:
        try:
            cases = read_case_table(table_path)
        except (CaseTableError, UnicodeDecodeError, OSError, EOFError) as error:
            findings.differences.append(f"case table {table_path.name} cannot be read: {error}")
        else:
            if not cases:
                findings.differences.append(f"case table {table_path.name} has no rows")
    if cases:
        same_ids = _check_case_ids(cases, table_spec, findings)
        _check_pairs(cases, table_spec, same_ids, findings)
        _check_files(data_dir, cases, definition, files_spec, deep, findings)
    return DataCheckReport(
        task=spec.task,
        data_dir=str(data_dir),
        ok=not findings.differences,
        differences=tuple(findings.differences),
        notes=tuple(findings.notes),
        n_cases=len(cases),
        n_adult_cases=findings.counts.get("n_adult_cases", 0),
        n_case_files=findings.counts.get("n_case_files", 0),
        n_adult_cases_without_file=findings.counts.get("n_adult_cases_without_file", 0),
        n_case_files_without_track=findings.counts.get("n_case_files_without_track", 0),
    )
