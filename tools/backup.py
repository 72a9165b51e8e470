"""Backups: the database (SQLite's online backup, one consistent snapshot) and every predictions file a result of
that snapshot pins, with a manifest of sha256 hashes; and restoring one into a fresh place, verified end to end.

A backup is written into an empty folder and is complete only once `manifest.json` exists (it is written last).
Files are copied after the snapshot: results are inserted only after their file is durable, so every file a
snapshot names exists, and a file whose bytes no longer match the stored sha256 stops the backup. The visitor-hash
secret is not included (it never leaves the machine): after a restore the server makes a new one, and
maintainers need new tokens (`benchtoward maintainer add NAME`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from evaluator.canonical import file_sha256
from evaluator.predictions import copy_durably, fsync_directory
from store import backup as backup_store
from tools.errors import BadRequest

FORMAT = "benchtoward-backup/1"
MANIFEST = "manifest.json"
DATABASE = "benchtoward.db"
ARTIFACTS = "artifacts"


@dataclass(frozen=True)
class BackupSummary:
    folder: Path
    results: int
    files: int
    bytes: int


def empty_folder(folder: Path, what: str) -> None:
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise BadRequest(f"{what} {folder} is not an empty folder; a backup and a restore never overwrite anything")


def backup(db: Path, artifacts: Path, destination: Path) -> BackupSummary:
    """Write a backup of the store at `db` (and its `artifacts`) into the empty folder `destination`."""
    if not db.is_file():
        raise BadRequest(f"no database at {db}")
    empty_folder(destination, "the backup folder")
    destination.mkdir(parents=True, exist_ok=True)
    copy = destination / DATABASE
    backup_store.copy_database(db, copy)
    check = backup_store.integrity_check(copy)
    if check != "ok":
        raise BadRequest(f"the database copy fails its integrity check: {check[:500]}")
    entries: list[dict[str, Any]] = []
    damaged = []
    for stored in backup_store.stored_files(copy):
        source = artifacts / stored.path
        if not source.is_file() or file_sha256(source) != stored.sha256:
            damaged.append(stored.run_id)
            continue
        copy_durably(source, destination / ARTIFACTS / stored.path)
        entries.append({"path": stored.path, "sha256": stored.sha256, "bytes": source.stat().st_size})
    if damaged:
        raise BadRequest(
            f"predictions files missing or changed on this server, so no backup was completed: "
            f"{', '.join(damaged[:20])}"
        )
    manifest = {
        "format": FORMAT,
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "database": {
            "file": DATABASE,
            "sha256": file_sha256(copy),
            "bytes": copy.stat().st_size,
            "tables": backup_store.table_counts(copy),
        },
        "artifacts": entries,
        "not_included": "the visitor-hash secret, which never leaves the machine",
    }
    (destination / f".{MANIFEST}.tmp").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    os.replace(destination / f".{MANIFEST}.tmp", destination / MANIFEST)
    fsync_directory(destination)
    size = copy.stat().st_size + sum(int(e["bytes"]) for e in entries)
    return BackupSummary(destination, len(entries), len(entries) + 1, size)


def read_manifest(source: Path) -> dict[str, Any]:
    path = source / MANIFEST
    if not path.is_file():
        raise BadRequest(f"{source} holds no {MANIFEST}: not a backup, or one that did not finish")
    manifest: dict[str, Any] = orjson.loads(path.read_bytes())
    if manifest.get("format") != FORMAT:
        raise BadRequest(f"{path} is not a {FORMAT} manifest")
    return manifest


def verify(source: Path, manifest: dict[str, Any]) -> None:
    """Every file of the backup is there with the manifest's sha256."""
    expected = [(DATABASE, manifest["database"]["sha256"])]
    expected += [(f"{ARTIFACTS}/{entry['path']}", entry["sha256"]) for entry in manifest["artifacts"]]
    bad = [name for name, sha256 in expected if not (source / name).is_file() or file_sha256(source / name) != sha256]
    if bad:
        raise BadRequest(f"the backup at {source} is damaged (missing or changed): {', '.join(bad[:20])}")


def restore(source: Path, db: Path, artifacts: Path) -> BackupSummary:
    """Restore the backup at `source` as the database `db` and the folder `artifacts`, both new."""
    manifest = read_manifest(source)
    verify(source, manifest)
    for path in (db, db.with_name(db.name + "-wal")):
        if path.exists():
            raise BadRequest(f"{path} exists; restore into a fresh place (it never overwrites a database)")
    empty_folder(artifacts, "the artifacts folder")
    for entry in manifest["artifacts"]:
        copy_durably(source / ARTIFACTS / entry["path"], artifacts / entry["path"])
    copy_durably(source / DATABASE, db)  # last: a database only appears with all its files in place
    for stored in backup_store.stored_files(db):
        if file_sha256(artifacts / stored.path) != stored.sha256:
            raise BadRequest(f"restored predictions of {stored.run_id} do not match the database")
    size = sum(int(e["bytes"]) for e in manifest["artifacts"]) + int(manifest["database"]["bytes"])
    return BackupSummary(source, len(manifest["artifacts"]), len(manifest["artifacts"]) + 1, size)
