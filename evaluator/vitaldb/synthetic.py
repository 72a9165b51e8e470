"""BenchToward's synthetic VitalDB-like demo cohort — DEMO DATA, not VitalDB, no real patient.

`write_synthetic_cohort(directory)` writes `cases.csv` and one `<caseid>.csv.gz` per case with a file, in
exactly the format the real reader takes (a case table with VitalDB's columns, Time + Solar8000/ART_MBP
records), so the demo task runs the real pipeline. Everything is drawn from numpy Generators seeded from
(config.seed, caseid): the same code and numpy version write byte-identical files on every run.

The default cohort: 240 patients, 1-3 cases each (~300 cases), 1.5-4.5 h per case. Per case:
- MAP at 2 s: a baseline (70-110 mmHg) with slow drift (sinusoids of 20-90 min plus smoothed noise),
  awake values above baseline before anaesthesia, an induction dip after anestart (10-35 mmHg, 5-20 min),
  surgical-stimulation surges, planted hypotension episodes (0-5, 20 s to 13 min, down to 45-63 mmHg)
  and beat-to-beat noise, rounded to whole mmHg as a monitor reports it;
- artefacts: the arterial line starts late (0-20 min), dropouts (10 s to 10 min without records), flush
  and zeroing blocks (250-300 mmHg or 0-15 mmHg), single spikes, a few empty values;
- records: one per 2-s bin at a jittered time (ms precision) plus a few extra earlier records in the
  same bin holding another value (the grid's last-record rule must pick the later one).
About 3% of adult cases have no file (no arterial line), ~4% of patients are under 18, ~8% of cases have
no anaesthesia times (whole recording analysed).

Files are gzipped at level 1 with mtime 0. The pinned listing hash (`listing.listing_sha256`) is taken
over the *uncompressed* content, so a different zlib build cannot change it.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from evaluator.vitaldb.cases import pairs_sha256
from evaluator.vitaldb.listing import listing_sha256

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
TRACK = "Solar8000/ART_MBP"
CASE_COLUMNS = (
    "caseid",
    "subjectid",
    "casestart",
    "caseend",
    "anestart",
    "aneend",
    "opstart",
    "opend",
    "age",
    "sex",
    "department",
)
DEPARTMENTS = ("General surgery", "Thoracic surgery", "Urology", "Gynecology")
EMPTY = -1  # a record with an empty value cell
NO_RECORD = -2  # a bin without any record (dropout)


@dataclass(frozen=True)
class CohortConfig:
    """Size and seed of a synthetic cohort; the defaults are the demo cohort the spec pins."""

    seed: int = 20260101
    n_patients: int = 240
    min_hours: float = 1.5
    max_hours: float = 4.5


@dataclass(frozen=True)
class SyntheticCase:
    caseid: int
    subjectid: int
    age: int
    sex: str
    caseend: int
    anestart: int | None
    aneend: int | None
    has_file: bool


@dataclass(frozen=True)
class CohortSummary:
    """What was written: counts and the hashes a spec pins."""

    n_patients: int
    n_cases: int
    n_files: int
    pairs_sha256: str
    listing_sha256: str
    cases_without_file: tuple[int, ...]


def cohort_cases(config: CohortConfig) -> list[SyntheticCase]:
    """The case table: patients, their cases (caseids 1..N in a shuffled order), ages and times."""
    rng = np.random.default_rng([config.seed, 0])
    subjectids = rng.choice(np.arange(1, 100_000), size=config.n_patients, replace=False)
    ages = np.where(
        rng.random(config.n_patients) < 0.04,
        rng.integers(2, 18, config.n_patients),
        np.clip(rng.normal(58, 15, config.n_patients), 18, 90).round(),
    )
    counts = rng.choice([1, 2, 3], size=config.n_patients, p=[0.8, 0.15, 0.05])
    owners = np.repeat(np.arange(config.n_patients), counts)
    owners = owners[rng.permutation(owners.size)]
    cases = []
    for index, owner in enumerate(owners.tolist()):
        caseend = int(rng.uniform(config.min_hours, config.max_hours) * 3600)
        known = rng.random() >= 0.08
        anestart = int(rng.uniform(-1200, 300)) if known else None
        aneend = caseend - int(rng.uniform(120, 900)) if known else None
        cases.append(
            SyntheticCase(
                caseid=index + 1,
                subjectid=int(subjectids[owner]),
                age=int(ages[owner]),
                sex="F" if owner % 2 else "M",
                caseend=caseend,
                anestart=anestart,
                aneend=aneend,
                has_file=bool(rng.random() >= 0.03),
            )
        )
    return cases


def _box_mean(values: FloatArray, width: int) -> FloatArray:
    prefix = np.concatenate([[0.0], np.cumsum(values)])
    return np.asarray((prefix[width:] - prefix[:-width]) / width, dtype=np.float64)


def _smooth_noise(rng: np.random.Generator, n: int, width: int, scale: float) -> FloatArray:
    """Low-pass noise: white noise through two moving averages of `width` samples, rescaled to `scale` SD."""
    smooth = _box_mean(_box_mean(rng.normal(0, 1, n + 2 * width - 2), width), width)
    return np.asarray(smooth * (scale * np.sqrt(width * 1.5)), dtype=np.float64)


def _bump(k: IntArray, start: float, length: float) -> FloatArray:
    """A smooth 0-1-0 hump (raised cosine) over [start, start + length)."""
    phase = np.clip((k - start) / length, 0.0, 1.0)
    return np.asarray(0.5 - 0.5 * np.cos(2 * np.pi * phase), dtype=np.float64)


def _plateau(k: IntArray, start: int, length: int, ramp: int) -> FloatArray:
    """1 over [start, start + length), with cosine ramps of `ramp` samples on either side."""
    rise = np.clip((k - (start - ramp)) / ramp, 0.0, 1.0)
    fall = np.clip(((start + length + ramp) - k) / ramp, 0.0, 1.0)
    return np.asarray(np.minimum(0.5 - 0.5 * np.cos(np.pi * rise), 0.5 - 0.5 * np.cos(np.pi * fall)))


def simulate_map(rng: np.random.Generator, n_samples: int, induction_sample: int) -> FloatArray:
    """Clean MAP (mmHg) at 2-s resolution, before rounding and artefacts."""
    k = np.arange(n_samples, dtype=np.int64)
    baseline = float(np.clip(rng.normal(88, 10), 70, 110))
    signal = np.full(n_samples, baseline) + _smooth_noise(rng, n_samples, 150, 4.0)
    for _ in range(3):
        period = rng.uniform(600, 2700)  # 20-90 min in 2-s samples
        signal += rng.uniform(1, 6) * np.sin(2 * np.pi * k / period + rng.uniform(0, 2 * np.pi))
    signal += np.where(k < induction_sample, rng.uniform(5, 15), 0.0)
    dip_start = induction_sample + rng.uniform(30, 150)
    signal -= rng.uniform(15, 40) * _bump(k, dip_start, rng.uniform(150, 600))
    for _ in range(rng.poisson(2)):
        signal += rng.uniform(10, 30) * _bump(k, rng.uniform(0, n_samples), rng.uniform(60, 300))
    for _ in range(rng.poisson(3.0)):
        length = int(np.exp(rng.uniform(np.log(10), np.log(400))))
        weight = _plateau(k, int(rng.integers(0, n_samples)), length, int(rng.integers(3, 15)))
        signal = signal * (1 - weight) + rng.uniform(45, 63) * weight
    return np.asarray(signal + rng.normal(0, rng.uniform(1.0, 3.0), n_samples), dtype=np.float64)


def add_artefacts(rng: np.random.Generator, values: IntArray, line_start: int) -> IntArray:
    """Rounded MAP with arterial-line artefacts (EMPTY: an empty cell; NO_RECORD: a bin without a record)."""
    out = values.copy()
    n = out.size
    for _ in range(rng.poisson(2)):
        start = int(rng.integers(0, n))
        block = rng.integers(250, 301) if rng.random() < 0.5 else rng.integers(0, 16)
        out[start : start + int(rng.integers(10, 41))] = block
    spikes = rng.random(n) < 0.002
    out[spikes] = rng.integers(0, 301, int(spikes.sum()))
    out[rng.random(n) < 0.0005] = EMPTY
    for _ in range(rng.poisson(3)):
        start = int(rng.integers(0, n))
        out[start : start + int(np.exp(rng.uniform(np.log(5), np.log(300))))] = NO_RECORD
    out[:line_start] = NO_RECORD
    return out


_MILLIS = np.array([f".{i:03d}," for i in range(1000)], dtype=object)
_VALUES = np.array(["\n"] + [f"{i}\n" for i in range(400)], dtype=object)  # index 0 = EMPTY (value + 1)


def case_records(rng: np.random.Generator, samples: IntArray) -> tuple[IntArray, IntArray]:
    """(time in ms, value) records in time order: one per present bin, plus extra earlier records."""
    bins = np.flatnonzero(samples != NO_RECORD)
    times = bins * 2000 + rng.integers(500, 1950, bins.size)
    extra = bins[rng.random(bins.size) < 0.005]
    extra_times = extra * 2000 + rng.integers(50, 450, extra.size)
    extra_values = rng.integers(20, 250, extra.size)
    all_times = np.concatenate([times, extra_times])
    all_values = np.concatenate([samples[bins], extra_values])
    order = np.argsort(all_times, kind="stable")
    return all_times[order], all_values[order]


@functools.cache
def _second_names_table(count: int) -> npt.NDArray[np.object_]:
    return np.array([str(i) for i in range(count)], dtype=object)


def _second_names(count: int) -> npt.NDArray[np.object_]:
    """The decimal text of 0 .. count-1, from a table built once per day of seconds needed."""
    return _second_names_table(86_400 * math.ceil(count / 86_400))[:count]


def case_csv(times_ms: IntArray, values: IntArray) -> bytes:
    """The CSV text `Time,Solar8000/ART_MBP` with Time in seconds (3 decimals) and integer mmHg."""
    seconds, millis = np.divmod(times_ms, 1000)
    names = _second_names(int(seconds.max(initial=0)) + 1)
    parts = np.empty((times_ms.size, 3), dtype=object)
    parts[:, 0] = names[seconds]
    parts[:, 1] = _MILLIS[millis]
    parts[:, 2] = _VALUES[values + 1]
    return (f"Time,{TRACK}\n" + "".join(parts.ravel().tolist())).encode()


def case_file_bytes(config: CohortConfig, case: SyntheticCase) -> bytes:
    """The uncompressed CSV of one case, from its own seeded generator."""
    rng = np.random.default_rng([config.seed, 1, case.caseid])
    n_samples = math.ceil(case.caseend / 2)
    induction = max(0, (case.anestart if case.anestart is not None else 600) // 2)
    clean = simulate_map(rng, n_samples, induction)
    rounded = np.clip(np.rint(clean), 0, 399).astype(np.int64)
    line_start = induction + int(rng.integers(0, 600))
    return case_csv(*case_records(rng, add_artefacts(rng, rounded, line_start)))


def case_table_csv(cases: list[SyntheticCase]) -> bytes:
    """The case table with a UTF-8 byte-order mark, as VitalDB's API serves it."""

    def cell(value: int | None) -> str:
        return "" if value is None else str(value)

    lines = [",".join(CASE_COLUMNS)]
    for case in cases:
        opstart = cell(None if case.anestart is None else case.anestart + 1200)
        opend = cell(None if case.aneend is None else case.aneend - 300)
        lines.append(
            ",".join(
                [
                    str(case.caseid),
                    str(case.subjectid),
                    "0",
                    str(case.caseend),
                    cell(case.anestart),
                    cell(case.aneend),
                    opstart,
                    opend,
                    str(case.age),
                    case.sex,
                    DEPARTMENTS[case.caseid % 4],
                ]
            )
        )
    return ("\ufeff" + "\n".join(lines) + "\n").encode()


def write_synthetic_cohort(directory: Path, config: CohortConfig = CohortConfig()) -> CohortSummary:
    """Write the cohort into `directory` (created if needed) and return its counts and hashes."""
    directory.mkdir(parents=True, exist_ok=True)
    cases = cohort_cases(config)
    table = case_table_csv(cases)
    entries = [("cases.csv", hashlib.sha256(table).hexdigest())]
    for case in cases:
        if not case.has_file:
            continue
        content = case_file_bytes(config, case)
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=1, mtime=0) as handle:
            handle.write(content)
        (directory / f"{case.caseid}.csv.gz").write_bytes(buffer.getvalue())
        entries.append((f"{case.caseid}.csv.gz", hashlib.sha256(content).hexdigest()))
    (directory / "cases.csv").write_bytes(table)  # last: a directory without it was not finished
    return CohortSummary(
        n_patients=len({case.subjectid for case in cases}),
        n_cases=len(cases),
        n_files=len(entries),
        pairs_sha256=pairs_sha256((case.caseid, str(case.subjectid)) for case in cases),
        listing_sha256=listing_sha256(entries),
        cases_without_file=tuple(case.caseid for case in cases if not case.has_file),
    )
