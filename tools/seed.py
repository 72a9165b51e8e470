"""Start-up: load the shipped dataset records, task spec files and catalog entries into the store."""

from __future__ import annotations

from evaluator.canonical import canonical_json
from evaluator.specs import DatasetRecord, TaskFile, load_dataset_records, load_task_files
from store import datasets as dataset_store
from store import tasks as task_store
from store.datasets import Dataset
from store.db import Store
from store.tasks import Task
from tools.catalog_files import sync_catalog


def task_row(task_file: TaskFile) -> Task:
    spec, meta = task_file.spec, task_file.meta
    return Task(
        slug=spec.slug,
        version=spec.version,
        kind=spec.kind,
        dataset_slug=spec.dataset["slug"],
        title=meta.title,
        summary=meta.summary,
        primary_metric=spec.primary_metric,
        higher_is_better=spec.higher_is_better,
        preview=meta.preview,
        demo=meta.demo,
        status=meta.status,
        spec_json=canonical_json(spec.as_dict()).decode(),
        spec_hash=spec.spec_hash,
        change_note=meta.change_note,
        contamination_note=meta.contamination_note,
        catalog_id=meta.catalog_id,
        created_at="",
    )


def dataset_row(record: DatasetRecord) -> Dataset:
    return Dataset(**record.model_dump())


async def sync_specs(store: Store) -> list[str]:
    """Upsert every shipped dataset and task version and load the shipped catalog entries; return the task
    refs. A changed spec of a stored version is refused (StoreError): a changed definition must ship as a new
    version. A shipped catalog entry is stored once per distinct content (tools/catalog_files.sync_catalog)."""
    for record in load_dataset_records():
        await dataset_store.upsert_dataset(store, dataset_row(record))
    refs = []
    for task_file in load_task_files():
        await task_store.upsert_task(store, task_row(task_file))
        refs.append(task_file.spec.task)
    await sync_catalog(store)
    return refs
