"""Capability: counts, total compute cost, the number of reuses and of browser visits."""

from __future__ import annotations

from pydantic import Field

from store import datasets as dataset_store
from store import events as event_store
from store import models as model_store
from store import results as result_store
from store import tasks as task_store
from store import visits as visit_store
from tools.registry import Registry
from tools.schemas import Shape


class Reuses(Shape):
    """Lookups that found a result, and downloads."""

    total: int
    lookups: int
    downloads: int


class Stats(Shape):
    results: int = Field(description="Published, complete results.")
    models: int
    models_evaluated: int = Field(description="Models with a published result.")
    tasks: int = Field(description="Task versions.")
    tasks_published: int
    datasets: int
    total_cost_usd: float = Field(description="Known compute cost, summed.")
    results_with_unknown_cost: int
    reuses: Reuses
    visits: int = Field(description="Browser page visits (page beacons: one per page, visitor and day).")


class StatsQuery(Shape):
    """No parameters."""


async def stats(registry: Registry, query: StatsQuery) -> Stats:
    """Use for an overview: counts, total known compute cost, reuses and page visits."""
    return registry.remember(("stats",), lambda: count(registry))


def count(registry: Registry) -> Stats:
    store = registry.store
    totals = result_store.published_totals(store)
    tasks = task_store.list_tasks(store)
    events = event_store.count_events(store)
    return Stats(
        results=int(totals["results"]),
        models=len(model_store.list_models(store)),
        models_evaluated=int(totals["models"]),
        tasks=len(tasks),
        tasks_published=sum(task.status == "published" for task in tasks),
        datasets=len(dataset_store.list_datasets(store)),
        total_cost_usd=round(float(totals["cost"]), 6),
        results_with_unknown_cost=int(totals["unknown_cost"]),
        reuses=Reuses(
            total=events["lookup"] + events["download"],
            lookups=events["lookup"],
            downloads=events["download"],
        ),
        visits=visit_store.count_visits(store),
    )
