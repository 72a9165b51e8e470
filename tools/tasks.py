"""Capabilities: list the tasks, and get one task version's full specification."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import Field, model_validator

from store import tasks as task_store
from store.tasks import Task
from tools.errors import TaskNotFound
from tools.refs import TASK_REF_SCHEMA, resolve_task
from tools.registry import Registry
from tools.schemas import DEMO_HELP, PREVIEW_HELP, DatasetCredit, Shape, dataset_credit


class TaskSummary(Shape):
    """A task version."""

    task: str = Field(description="slug@version")
    slug: str
    version: int
    title: str
    dataset: str
    kind: str = Field(description="mcq | binary_timeseries")
    primary_metric: str
    higher_is_better: bool
    preview: bool = Field(description=PREVIEW_HELP)
    demo: bool = Field(description=DEMO_HELP)
    status: str = Field(description="building | in_review | published")
    n_results: int = Field(description="Published results.")
    spec_hash: str
    url: str


class TaskList(Shape):
    tasks: list[TaskSummary]


class TaskVersion(Shape):
    version: int
    status: str
    spec_hash: str
    change_note: str


class TaskDetail(TaskSummary):
    """A task version with its full specification and the history of its versions."""

    summary: str
    change_note: str
    contamination_note: str
    catalog_id: str | None
    catalog_url: str | None = Field(description="Its catalog entry (get_benchmark).")
    spec: dict[str, Any]
    versions: list[TaskVersion]
    dataset_credit: DatasetCredit


class ListTasksQuery(Shape):
    """No parameters."""


class GetTaskQuery(Shape):
    slug: str = Field(
        description="Task slug, e.g. clinicalqa, or slug@version.", max_length=80, json_schema_extra=TASK_REF_SCHEMA
    )
    version: int | None = Field(default=None, ge=0, le=999_999, description="Version; default: the latest published.")

    @model_validator(mode="after")
    def one_version(self) -> GetTaskQuery:
        """`slug@0` with `version=1` names two versions: refused rather than one silently chosen."""
        named = self.slug.partition("@")[2]
        if named.isdigit() and self.version is not None and int(named) != self.version:
            raise ValueError(f"slug names version {named} and version names {self.version}; give one")
        return self


def summary_fields(registry: Registry, task: Task) -> dict[str, str]:
    """The fields of a task's summary its stored row has not (the rest are read from the row)."""
    return {
        "task": task.ref,
        "dataset": task.dataset_slug,
        "url": registry.url(f"/tasks/{task.slug}?version={task.version}"),
    }


def task_summary(registry: Registry, task: Task) -> TaskSummary:
    return TaskSummary.from_row(task, **summary_fields(registry, task))


async def list_tasks(registry: Registry, query: ListTasksQuery) -> TaskList:
    """Use to see what can be looked up: every task version, its dataset, metric, status and result count."""
    return registry.remember(
        ("tasks",), lambda: TaskList(tasks=[task_summary(registry, t) for t in task_store.list_tasks(registry.store)])
    )


async def get_task(registry: Registry, query: GetTaskQuery) -> TaskDetail:
    """Use to check exactly what a result was computed on: a task version's full specification, spec_hash,
    version history and dataset credit."""
    return registry.remember(("task", query.slug, query.version), lambda: build_task_detail(registry, query))


def build_task_detail(registry: Registry, query: GetTaskQuery) -> TaskDetail:
    ref = query.slug if query.version is None else f"{query.slug.split('@', 1)[0]}@{query.version}"
    task = resolve_task(registry.store, ref)
    versions = task_store.task_versions(registry.store, task.slug)
    if not versions:
        raise TaskNotFound(f"no task {task.slug!r}")
    return TaskDetail.from_row(
        task,
        **summary_fields(registry, task),
        catalog_url=registry.url(f"/benchmarks/{task.catalog_id}") if task.catalog_id else None,
        spec=orjson.loads(task.spec_json),
        versions=[TaskVersion.from_row(version) for version in versions],
        dataset_credit=dataset_credit(registry, task),
    )
