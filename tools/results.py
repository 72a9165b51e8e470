"""Capabilities: search results by dataset, task and model; get one result in full."""

from __future__ import annotations

from pydantic import Field

from store import datasets as dataset_store
from store import models as model_store
from store import results as result_store
from store import tasks as task_store
from store.results import Result, ResultFilter
from tools import paging
from tools.errors import DatasetNotFound, RunNotFound
from tools.inputs import Query
from tools.leaderboard import standing
from tools.paging import cursor_field, next_field, total_field
from tools.refs import MODEL_HELP, MODEL_NAME_SCHEMA, TASK_REF_SCHEMA, parse_task_ref, resolve_model, resolve_task
from tools.registry import Registry
from tools.schemas import (
    DEMO_HELP,
    MODEL_TYPE_HELP,
    ModelTypeFilter,
    ResultDetail,
    ResultRow,
    Shape,
    TieredQuery,
    result_detail,
)
from tools.usage import Visitor

RUN_ID_PATTERN = r"^[0-9a-f]{12}$"


class SearchResultsQuery(TieredQuery):
    dataset: str | None = Field(default=None, max_length=80, description="Dataset slug, e.g. clinicalqa.")
    task: str | None = Field(
        default=None,
        max_length=80,
        description="slug@version, or slug for every version.",
        json_schema_extra=TASK_REF_SCHEMA,
    )
    model: str | None = Field(
        default=None,
        max_length=200,
        description=MODEL_HELP,
        json_schema_extra=MODEL_NAME_SCHEMA,
    )
    model_type: ModelTypeFilter | None = Field(default=None, description=MODEL_TYPE_HELP)
    limit: int = Field(default=100, ge=1, le=1000, description="Results per page.")
    cursor: str | None = cursor_field()


class ResultSummary(ResultRow):
    """A result in a list."""

    spec_hash: str = Field(description="sha256 of the task version's spec.")
    demo: bool = Field(description=DEMO_HELP)


class ResultList(Shape):
    total: int = total_field()
    next: str | None = next_field()
    results: list[ResultSummary]


class GetResultQuery(Query):
    run_id: str = Field(description="The 12-hex-character run id.", max_length=64)


def result_filter(registry: Registry, query: SearchResultsQuery) -> ResultFilter:
    store = registry.store
    dataset = None
    if query.dataset is not None:
        if dataset_store.get_dataset(store, query.dataset) is None:
            raise DatasetNotFound(f"no dataset {query.dataset!r}; GET /v1/datasets lists them")
        dataset = query.dataset
    task_slug = task_version = None
    if query.task is not None:
        task_slug, task_version = parse_task_ref(query.task)
        if task_version is not None:
            resolve_task(store, query.task)
        elif not task_store.task_versions(store, task_slug):
            resolve_task(store, task_slug)  # raises task_not_found with a hint
    models = None
    if query.model is not None:
        models = (resolve_model(store, query.model).slug,)
    return ResultFilter(
        dataset_slug=dataset,
        task_slug=task_slug,
        task_version=task_version,
        model_slugs=models,
        model_type=query.model_type,
        tier=query.tier,
    )


def summaries(registry: Registry, results: list[Result]) -> list[ResultSummary]:
    models = model_store.models_by_slug(registry.store, {r.model_slug for r in results})
    demo = {t.ref: t.demo for t in task_store.list_tasks(registry.store)} if results else {}
    return [
        ResultSummary.of(registry, r, models[r.model_slug], r.task_ref, demo=demo.get(r.task_ref, False))
        for r in results
    ]


async def search_results(registry: Registry, query: SearchResultsQuery) -> ResultList:
    """Use to find published results across tasks, newest first. For one model on one task prefer `lookup`."""

    def build() -> ResultList:
        where = result_filter(registry, query)
        offset = paging.offset_of(query)
        results = result_store.search_results(registry.store, where, limit=query.limit, offset=offset)
        total = result_store.count_results(registry.store, where)
        following = paging.next_cursor(query, offset, len(results), total)
        return ResultList(total=total, next=following, results=summaries(registry, results))

    return registry.remember(("search_results", query.model_dump_json()), build)


def detail(registry: Registry, result: Result) -> ResultDetail:
    """The full view of a stored result (kept until the store changes)."""
    return registry.remember(("detail", result.run_id), lambda: build_detail(registry, result))


def build_detail(registry: Registry, result: Result) -> ResultDetail:
    model = model_store.get_model(registry.store, result.model_slug)
    task = task_store.get_task(registry.store, result.task_slug, result.task_version)
    if model is None or task is None:  # foreign keys make this unreachable
        raise RunNotFound(f"result {result.run_id} refers to a missing model or task")
    return result_detail(registry, result, model, task, standing(registry, task, result.run_id))


async def get_result(registry: Registry, query: GetResultQuery, visitor: Visitor | None = None) -> ResultDetail:
    """Use to cite or inspect one result, also in review or withdrawn (see `status`). Reading a published result
    counts as a reuse."""
    result = result_store.get_result(registry.store, query.run_id)
    if result is None:
        raise RunNotFound(f"no result with run_id {query.run_id[:64]!r}")
    if visitor is not None and result.status == "published":
        registry.usage.count_download(visitor, f"/v1/results/{result.run_id}", result.run_id)
    return detail(registry, result)
