"""Case files and the 2-s grid: one `.vital` or CSV file per case, read into one float64 array per case.

Grid rule (the `vitaldb` library's `VitalFile.to_numpy(track, interval)`, with interval = the spec's
`grid_seconds`, 2 s): sample k covers the half-open bin [k*2, k*2 + 2) seconds since casestart and holds
the value of the last record (in file order) whose time falls in that bin; an empty bin is missing (NaN).
A recording of length L seconds has ceil(L / 2) samples; a record at or after the end goes into the last
sample and a record before casestart into sample 0 (the library clamps indices the same way). Values are
kept at float32 precision, as the library stores them. After binning, a value outside
[valid_min_mmhg, valid_max_mmhg] (bounds included as valid) is missing.

- `.vital` file: read whole with `vitaldb.VitalFile(path)`; casestart is the file's start (`dtstart`, as in
  VitalDB's open dataset, where casestart = 0) and L = dtend - dtstart. The whole file is read because a
  track-filtered read of an old-format file moves `dtstart` to that track's first record.
- CSV (`.csv` or `.csv.gz`) with columns `Time` (seconds since casestart) and the track (e.g.
  `Solar8000/ART_MBP`); other columns are ignored; an empty, `nan` or `-nan(ind)` cell is a missing
  record; rows with an empty Time are ignored. L = the largest Time. A CSV without the track's column is
  a case without the track (TrackNotFound), as a `.vital` file without it is; one without `Time` is unreadable.

Both readers give the same grid for the same records (tested on the real `.vital` samples).
"""

from __future__ import annotations

import gzip
import io
import math
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.csv as pa_csv  # type: ignore[import-untyped, unused-ignore]

FloatArray = npt.NDArray[np.float64]
CASE_FILE_SUFFIXES = (".vital", ".csv.gz", ".csv")
NULL_VALUES = ["", "nan", "NaN", "NAN", "-nan", "-nan(ind)", "NA"]


class CaseFileError(ValueError):
    """A case file cannot be read as the spec says (unreadable, wrong columns, non-numeric values)."""


class TrackNotFound(LookupError):
    """A case file (`.vital`, or CSV without the track's column) does not hold the track: the case is not
    included (the rule 'cases with the track')."""


@dataclass(frozen=True)
class CaseFile:
    caseid: int
    path: Path

    @property
    def kind(self) -> str:
        return "vital" if self.path.name.endswith(".vital") else "csv"


def grid_from_records(
    times: npt.ArrayLike, values: npt.ArrayLike, length_seconds: float, grid_seconds: float
) -> FloatArray:
    """The library's binning of records (time since casestart, value) into ceil(L / grid) samples."""
    time_array = np.asarray(times, dtype=np.float64)
    value_array = np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float64)
    if not length_seconds > 0:
        return np.empty(0, dtype=np.float64)
    n_samples = math.ceil(length_seconds / grid_seconds)
    grid = np.full(n_samples, np.nan, dtype=np.float64)
    keep = np.isfinite(time_array)
    time_array, value_array = time_array[keep], value_array[keep]
    if time_array.size == 0:
        return grid
    # int() truncates toward zero, as the library's int((dt - dtstart) / interval) does.
    index = np.clip(np.trunc(time_array / grid_seconds), 0, n_samples - 1).astype(np.int64)
    # Last record per bin: first occurrence in the reversed order (fancy assignment order is unspecified).
    reversed_index = index[::-1]
    bins, first_in_reversed = np.unique(reversed_index, return_index=True)
    grid[bins] = value_array[::-1][first_in_reversed]
    return grid


def mask_out_of_range(grid: FloatArray, valid_min: float, valid_max: float) -> FloatArray:
    """A copy of `grid` with values outside [valid_min, valid_max] set missing (NaN stays NaN)."""
    masked = grid.copy()
    masked[(masked < valid_min) | (masked > valid_max)] = np.nan
    return masked


def csv_header(path: Path) -> list[str]:
    """The column names of a CSV case file (plain or gzip), from its first line only."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as handle:
        first = handle.readline()
    text = io.TextIOWrapper(io.BytesIO(first), encoding="utf-8-sig").read().strip()
    return [name.strip().strip('"') for name in text.split(",")]


def require_csv_columns(path: Path, track: str) -> None:
    """TrackNotFound when the CSV has no column for the track; CaseFileError when it has no Time column
    or its first line cannot be read."""
    try:
        header = csv_header(path)
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise CaseFileError(f"{path.name}: {error}") from error
    if "Time" not in header:
        raise CaseFileError(f"{path.name}: no column Time (columns: {', '.join(header[:6])})")
    if track not in header:
        raise TrackNotFound(f"{path.name}: no column {track} (columns: {', '.join(header[:6])})")


def read_csv_records(path: Path, track: str) -> tuple[FloatArray, FloatArray]:
    """(Time, value) of every row with a Time, in file order; TrackNotFound without the track's column,
    CaseFileError on a bad file."""
    require_csv_columns(path, track)
    options = pa_csv.ConvertOptions(
        include_columns=["Time", track],
        column_types={"Time": pa.float64(), track: pa.float64()},
        null_values=NULL_VALUES,
        strings_can_be_null=True,
    )
    try:
        table = pa_csv.read_csv(path, read_options=pa_csv.ReadOptions(use_threads=False), convert_options=options)
    except (pa.ArrowInvalid, OSError, KeyError) as error:
        raise CaseFileError(f"{path.name}: {str(error).splitlines()[0]}") from error
    times = table.column("Time").to_numpy(zero_copy_only=False).astype(np.float64)
    values = table.column(track).to_numpy(zero_copy_only=False).astype(np.float64)
    keep = np.isfinite(times)
    return times[keep], values[keep]


def read_csv_grid(path: Path, track: str, grid_seconds: float) -> FloatArray:
    """The raw 2-s grid (before the range mask) of a CSV case file; L = the largest Time."""
    times, values = read_csv_records(path, track)
    length = float(times.max()) if times.size else 0.0
    return grid_from_records(times, values, length, grid_seconds)


def open_vital(path: Path) -> object:
    """`vitaldb.VitalFile(path)`, quietly: the library's import warns under pandas 3 (DeprecationWarning)
    and `load_vital` closes its GzipFile but not the file under it (ResourceWarning when it is freed,
    which happens inside this call)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", ResourceWarning)
        import vitaldb  # type: ignore[import-untyped, unused-ignore]

        try:
            return vitaldb.VitalFile(os.fspath(path))
        except Exception as error:  # the library's parser of untrusted bytes fails in many ways on a cut or
            # damaged file (struct.error, EOFError, zlib.error, IndexError ...): each is an unreadable file
            reason = f"{type(error).__name__}: {error}"
        # the error is released here, and with its frames the file the library left open (its ResourceWarning
        # falls inside this block)
    raise CaseFileError(f"{path.name}: not a readable .vital file ({reason})")


def read_vital_grid(path: Path, track: str, grid_seconds: float) -> FloatArray:
    """The raw 2-s grid of a `.vital` file: `VitalFile(path).to_numpy([track], grid_seconds)` as float64."""
    vital = open_vital(path)
    tracks: dict[str, object] = getattr(vital, "trks", {})
    if not tracks:
        raise CaseFileError(f"{path.name}: not a readable .vital file (no tracks)")
    if track not in tracks:  # exact name: the library's own lookup would also accept a suffix match
        raise TrackNotFound(f"{path.name}: no track {track!r}")
    samples = vital.to_numpy([track], grid_seconds)  # type: ignore[attr-defined]
    return np.asarray(samples, dtype=np.float64).reshape(-1)


def read_raw_grid(case_file: CaseFile, track: str, grid_seconds: float) -> FloatArray:
    if case_file.kind == "vital":
        return read_vital_grid(case_file.path, track, grid_seconds)
    return read_csv_grid(case_file.path, track, grid_seconds)


def read_case_grid(
    case_file: CaseFile, track: str, grid_seconds: float, valid_min: float, valid_max: float
) -> FloatArray:
    """The analysable grid of one case: binned, then values outside the valid range set missing."""
    return mask_out_of_range(read_raw_grid(case_file, track, grid_seconds), valid_min, valid_max)


def caseid_of(name: str) -> int | None:
    """The caseid of a case file name (`12.vital`, `12.csv`, `12.csv.gz`), or None for any other name."""
    for suffix in CASE_FILE_SUFFIXES:
        stem = name.removesuffix(suffix)
        if stem != name and stem.isascii() and stem.isdigit():
            return int(stem)
    return None


def index_case_files(directory: Path) -> dict[int, list[Path]]:
    """Case files of a directory by caseid (one listing, no stat per case); names in sorted order."""
    found: dict[int, list[Path]] = {}
    with os.scandir(directory) as entries:
        for entry in entries:
            caseid = caseid_of(entry.name)
            if caseid is not None and entry.is_file():
                found.setdefault(caseid, []).append(Path(entry.path))
    return {caseid: sorted(paths) for caseid, paths in found.items()}


def single_case_file(caseid: int, paths: list[Path]) -> CaseFile:
    """The one file of a case; two files for one case (e.g. `7.vital` and `7.csv`) are refused."""
    if len(paths) != 1:
        names = ", ".join(path.name for path in paths)
        raise CaseFileError(f"case {caseid} has {len(paths)} files ({names}); keep exactly one")
    return CaseFile(caseid, paths[0])
