"""Capability: list the datasets with their licence, licence URL and citation."""

from __future__ import annotations

from store import datasets as dataset_store
from tools.registry import Registry
from tools.schemas import DatasetCredit, Shape


class DatasetOut(DatasetCredit):
    """A dataset and how to credit it."""

    source: str
    notes: str
    demo: bool


class DatasetList(Shape):
    datasets: list[DatasetOut]


class ListDatasetsQuery(Shape):
    """No parameters."""


async def list_datasets(registry: Registry, query: ListDatasetsQuery) -> DatasetList:
    """Use to credit data: every dataset, with licence, licence URL and citation."""
    return registry.remember(
        ("datasets",),
        lambda: DatasetList(datasets=[DatasetOut.from_row(d) for d in dataset_store.list_datasets(registry.store)]),
    )
