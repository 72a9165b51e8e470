"""The per-item predictions file: written atomically under its task kind's Arrow schema (evaluator/kinds).

A predictions file is written to a temporary path beside its destination, flushed to disk and moved into
place with `os.replace`, so a reader sees either no file or the whole file; its sha256 is returned so
the result row can pin it.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from evaluator.canonical import canonical_hash, file_sha256

FILE_NAME = "predictions.parquet"


def write_predictions(path: Path, schema: pa.Schema, columns: dict[str, list[Any]]) -> str:
    """Write `columns` under the kind's `schema` to `path` atomically; return the file's sha256."""
    table = pa.Table.from_pydict(columns, schema=schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        # Fixed writer options keep the bytes identical for identical predictions.
        pq.write_table(table, temporary, compression="zstd", write_statistics=False, store_schema=False)
        with temporary.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    fsync_directory(path.parent)
    return file_sha256(path)


def fsync_directory(directory: Path) -> None:
    """Make a rename inside `directory` durable (the file's own fsync does not cover its directory entry)."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def copy_durably(source: Path, destination: Path) -> None:
    """Copy a file into place atomically and durably: a temporary file, fsync, rename, then the directory's
    fsync, so the rename too survives a crash."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    temporary = destination.with_name(f".{destination.name}.{os.getpid()}.tmp")
    try:
        shutil.copyfile(source, temporary)
        with temporary.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, destination)
        fsync_directory(destination.parent)
    finally:
        temporary.unlink(missing_ok=True)


TEMPORARY = re.compile(r"^\..+\.(?P<pid>[0-9]+)\.tmp$")  # `.{name}.{pid}.tmp`, as written above and by bundles


def remove_stale_temporaries(artifacts: Path) -> list[Path]:
    """Delete the temporary files that a killed writer left in the artifacts folder (their process is gone);
    they were never renamed into place, so no result points at them. Returns what was removed."""
    removed = []
    for path in artifacts.glob("*/.*.tmp") if artifacts.is_dir() else []:
        match = TEMPORARY.match(path.name)
        if match is None or process_alive(int(match.group("pid"))):
            continue
        path.unlink(missing_ok=True)
        removed.append(path)
    return removed


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_predictions(path: Path, kind: str, expected: pa.Schema) -> pa.Table:
    """Read a predictions file and check that it has exactly the kind's schema."""
    table = pq.read_table(path)
    if not table.schema.equals(expected):
        raise ValueError(f"predictions schema differs from the {kind} schema: {table.schema} != {expected}")
    return table


def instance_set_hash(instance_ids: Iterable[str]) -> str:
    """The identity of the set of items a result was scored on: sha256 of the canonical JSON of the sorted ids."""
    return canonical_hash(sorted(instance_ids))
