"""Datasets and their credit (licence, licence URL, citation, DOI)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from store.db import Store

COLUMNS = "slug, name, license, license_url, citation, doi, source, notes, demo"


@dataclass(frozen=True)
class Dataset:
    slug: str
    name: str
    license: str
    license_url: str
    citation: str
    doi: str | None
    source: str
    notes: str
    demo: bool


def from_row(row: sqlite3.Row) -> Dataset:
    return Dataset(**{**dict(row), "demo": bool(row["demo"])})


def list_datasets(store: Store) -> list[Dataset]:
    return [from_row(row) for row in store.read(f"SELECT {COLUMNS} FROM datasets ORDER BY demo, slug")]


def get_dataset(store: Store, slug: str) -> Dataset | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM datasets WHERE slug = ?", (slug,))
    return from_row(row) if row else None


async def upsert_dataset(store: Store, dataset: Dataset) -> None:
    async with store.transaction() as db:
        await db.execute(
            f"INSERT INTO datasets ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (slug) DO UPDATE SET name = excluded.name, license = excluded.license, "
            "license_url = excluded.license_url, citation = excluded.citation, doi = excluded.doi, "
            "source = excluded.source, notes = excluded.notes, demo = excluded.demo "
            "WHERE (name, license, license_url, citation, doi, source, notes, demo) IS NOT (excluded.name, "
            "excluded.license, excluded.license_url, excluded.citation, excluded.doi, excluded.source, "
            "excluded.notes, excluded.demo)",  # unchanged records are not written (read caches stay)
            (
                dataset.slug,
                dataset.name,
                dataset.license,
                dataset.license_url,
                dataset.citation,
                dataset.doi,
                dataset.source,
                dataset.notes,
                int(dataset.demo),
            ),
        )
