"""Fetch VitalDB open-dataset cases into a data directory through the `vitaldb` package (online only).

Writes `cases.csv` (the API's case table) and one `<caseid>.vital` per case holding only the task's track,
as the package reads it from the open dataset's versioned path. Each file is written to a temporary name
and renamed, and a case already present is skipped, so an interrupted fetch simply continues. The VitalDB
data use agreement applies to everything fetched (CC BY-NC-SA 4.0): BenchToward never ships these files.
"""

from __future__ import annotations

import os
import urllib.request
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.vitaldb.cases import is_adult, read_case_table

DEFAULT_API_URL = "https://api.vitaldb.net"
TIMEOUT_SECONDS = 120


@dataclass
class FetchSummary:
    fetched: list[int] = field(default_factory=list)
    skipped_present: list[int] = field(default_factory=list)
    without_track: list[int] = field(default_factory=list)


def download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
        return bytes(response.read())


def write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def fetch_case_table(directory: Path, api_url: str) -> Path:
    if not api_url.startswith(("http://", "https://")):
        raise ValueError(f"the VitalDB API URL must be http(s), got {api_url!r}")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "cases.csv"
    write_atomically(path, download(f"{api_url.rstrip('/')}/cases"))
    return path


def dataset_version() -> str:
    """The open dataset's file version the installed package reads (its versioned download path)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from vitaldb.dataset import DATASET_VERSION  # type: ignore[import-untyped, unused-ignore]

    return str(DATASET_VERSION)


def fetch_vital(url: str, track: str, destination: Path) -> bool:
    """Write the case's `track` as a .vital file; False when the case has no such track."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the package warns under pandas 3 and leaves a file handle to the GC
        import vitaldb  # type: ignore[import-untyped, unused-ignore]

        vital = vitaldb.VitalFile(url, [track])
        if track not in getattr(vital, "trks", {}):
            return False
        temporary = destination.with_name(f".{destination.name}.tmp")
        vital.to_vital(str(temporary))
    os.replace(temporary, destination)
    return True


def fetch_cases(
    directory: Path,
    *,
    track: str,
    min_age: float,
    api_url: str = DEFAULT_API_URL,
    caseids: Iterable[int] | None = None,
    limit: int | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> FetchSummary:
    """Fetch the case table, then each wanted adult case's track (all of them unless `caseids`/`limit`)."""
    table = read_case_table(fetch_case_table(directory, api_url))
    wanted = set(caseids) if caseids is not None else None
    cases = [c for c in table if is_adult(c, min_age) and (wanted is None or c.caseid in wanted)][:limit]
    version = dataset_version()
    summary = FetchSummary()
    for done, case in enumerate(cases, start=1):
        destination = directory / f"{case.caseid}.vital"
        if destination.exists():
            summary.skipped_present.append(case.caseid)
        elif fetch_vital(f"{api_url.rstrip('/')}/{version}/{case.caseid}.vital", track, destination):
            summary.fetched.append(case.caseid)
        else:
            summary.without_track.append(case.caseid)
        progress(done, len(cases))
    return summary
