"""Catalog entries for tests: the shipped MedBench seed entry, copies of it changed on purpose, and a snapshot of
every catalog row (to show that a refused import stored nothing)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from store import Store
from tools.catalog_files import SHIPPED_DIR

SEED_FILE = SHIPPED_DIR / "01-medbench.json"
CATALOG_TABLES = ("catalog_revisions", "catalog_entries", "catalog_search")


def seed_entry() -> dict[str, Any]:
    """A fresh copy of the MedBench seed entry, as parsed JSON."""
    return copy.deepcopy(json.loads(SEED_FILE.read_text(encoding="utf-8")))


def entry_with(id: str, name: str, **page: Any) -> dict[str, Any]:
    """The seed entry under another id and name, with some page fields replaced."""
    entry = seed_entry()
    entry["page"].update(id=id, name=name, **page)
    entry["disposition"]["canonical_id"] = id
    return entry


def write_entry(path: Path, entry: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(entry, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def catalog_snapshot(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every catalog table, in a stable order."""
    return {
        table: [tuple(row) for row in store.read(f"SELECT * FROM {table} ORDER BY 1, 2")] for table in CATALOG_TABLES
    }
