"""Catalog files: import entries from JSON files, export them back, and load the shipped entries at start.

A file holds one entry (a JSON object) or several (a JSON array of objects, as `export` writes); a directory
is every `*.json` file in it, in name order. An import is all or nothing: every entry of every file is
validated first, and the new revisions are written in one transaction, so one bad entry stores nothing.
An entry whose content equals its newest stored revision is left alone; a changed one becomes a new
revision and the old revisions stay readable.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from evaluator.specs import SPEC_DIR
from store import catalog as catalog_store
from store.catalog import NewRevision, Origin, Saved, SkipWhen
from store.db import Store
from tools.catalog_entry import (
    MAX_FILE_BYTES,
    ParsedEntry,
    entry_file_text,
    file_too_large,
    parse_entry,
    parse_json,
)
from tools.errors import BadRequest, BenchmarkNotFound

SHIPPED_DIR = SPEC_DIR / "catalog"  # loaded at every start, in file-name order (MedBench, the seed entry, first)


@dataclass(frozen=True)
class Imported:
    """What an import did to one entry."""

    id: str
    revision: int
    created: bool


def entry_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(child for child in path.glob("*.json") if child.is_file())
        if not files:
            raise BadRequest(f"{path}: no .json files in this directory")
        return files
    if not path.is_file():
        raise BadRequest(f"{path}: no such file or directory")
    return [path]


def read_entries(path: Path) -> list[ParsedEntry]:
    """Every entry in a file or directory, validated; BadRequest naming the file (and index) of the first bad one."""
    parsed: list[ParsedEntry] = []
    for file in entry_files(path):
        size = file.stat().st_size
        if size > MAX_FILE_BYTES:  # refused before it is read
            raise BadRequest(file_too_large(file.name, size))
        value = parse_json(file.read_bytes(), file.name)
        if isinstance(value, list):
            parsed += [parse_entry(item, f"{file.name}[{index}]") for index, item in enumerate(value)]
        else:
            parsed.append(parse_entry(value, file.name))
    seen: set[str] = set()
    for entry in parsed:
        if entry.id in seen:
            raise BadRequest(f"{path}: the entry {entry.id!r} appears more than once in this import")
        seen.add(entry.id)
    return parsed


def new_revision(parsed: ParsedEntry) -> NewRevision:
    page = parsed.entry.page
    return NewRevision(
        id=page.id,
        name=page.name,
        disposition=parsed.entry.disposition.status,
        entry_json=parsed.canonical,
        entry_sha256=parsed.sha256,
        aliases=" \n".join(page.aliases),
        tags=" \n".join(page.tags),
        summary=page.summary,
    )


async def store_entries(
    store: Store, entries: list[ParsedEntry], origin: Origin, skip_when: SkipWhen = "latest"
) -> list[Imported]:
    saved: list[Saved] = await catalog_store.save_revisions(
        store, [new_revision(entry) for entry in entries], origin, skip_when
    )
    return [Imported(id=s.id, revision=s.revision, created=s.created) for s in saved]


async def import_catalog(store: Store, path: Path) -> list[Imported]:
    """Import the entries of a file or directory: new content becomes a new revision, the same content is a no-op."""
    return await store_entries(store, read_entries(path), "import")


async def sync_catalog(store: Store, directory: Path = SHIPPED_DIR) -> list[Imported]:
    """Load the shipped entries. One already stored under any revision is left alone, so an entry imported
    later by an operator stays the newest until a changed shipped file arrives with a new release."""
    return await store_entries(store, read_entries(directory), "shipped", skip_when="any")


def stored_entry(store: Store, id: str, revision: int | None = None) -> Any:
    found = catalog_store.get_revision(store, id, revision)
    if found is None:
        which = f"revision {revision} of {id!r}" if revision is not None else repr(id)
        raise BenchmarkNotFound(f"no catalog entry {which}; GET /v1/benchmarks lists the catalog")
    return orjson.loads(found.entry_json)


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def export_text(store: Store, id: str | None = None, revision: int | None = None) -> str:
    """One entry (with `id`) as an object, else every entry's newest revision as an array, in the file layout."""
    if id is not None:
        return entry_file_text(stored_entry(store, id, revision))
    if revision is not None:
        raise BadRequest("a revision can only be exported together with an entry id")
    return entry_file_text([orjson.loads(found.entry_json) for found in catalog_store.all_entries(store)])


def export_catalog(store: Store, out: Path, id: str | None = None, revision: int | None = None) -> list[Path]:
    """Write entries under `out`: a directory gets one `<id>.json` per entry (the newest revision, or the
    requested one); a path ending in .json gets `export_text`. Files are replaced atomically."""
    if out.suffix.lower() == ".json" and not out.is_dir():
        write_atomically(out, export_text(store, id, revision))
        return [out]
    if id is not None:
        target = out / f"{id}.json"
        write_atomically(target, entry_file_text(stored_entry(store, id, revision)))
        return [target]
    if revision is not None:
        raise BadRequest("a revision can only be exported together with an entry id")
    written = []
    for found in catalog_store.all_entries(store):
        target = out / f"{found.id}.json"
        write_atomically(target, entry_file_text(orjson.loads(found.entry_json)))
        written.append(target)
    return written
