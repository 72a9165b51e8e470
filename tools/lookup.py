"""Capability: has a model been evaluated on a task? Call it before running an evaluation yourself."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from store import results as result_store
from store.results import ResultFilter
from tools.refs import resolve_model, resolve_task
from tools.registry import Registry
from tools.results import detail
from tools.schemas import ResultDetail, Shape
from tools.usage import Visitor


class LookupQuery(Shape):
    model: str = Field(
        max_length=200,
        description="BenchToward slug (kgpu/medgemma-27b) or provider model id (medgemma-27b).",
    )
    task: str = Field(max_length=80, description="slug@version, or slug for the latest published version.")


class LookupResponse(Shape):
    """`evaluated` with the published result; `in_review` when a result exists but awaits a maintainer's
    check (do not rerun it: it will be published or withdrawn); `withdrawn` when the maintainers withdrew it
    (its reason is in `result.status_reason`; its run key stays taken); `not_evaluated` otherwise."""

    status: Literal["evaluated", "in_review", "withdrawn", "not_evaluated"]
    result: ResultDetail | None


async def lookup(registry: Registry, query: LookupQuery, visitor: Visitor | None = None) -> LookupResponse:
    """Call this before you run an evaluation yourself: has `model` been evaluated on `task` already?

    `evaluated` returns the published result (cite it, download its predictions, do not recompute it);
    `in_review` means a result exists and awaits a maintainer's check; `withdrawn` means the maintainers withdrew
    it (see `result.status_reason`; do not rerun it here); `not_evaluated` means nobody has run it here yet.
    `model` is a BenchToward slug or a provider model id; `task` is slug@version or slug (latest
    published version). Several published results of one model on one task version → the newest. Each
    lookup that finds a published result counts as one reuse.
    """
    response = registry.remember(("lookup", query.model, query.task), lambda: find(registry, query))
    if response.status == "evaluated" and response.result is not None:
        registry.usage.count_lookup(visitor or Visitor.anonymous(), response.result.run_id)
    return response


def find(registry: Registry, query: LookupQuery) -> LookupResponse:
    store = registry.store
    task = resolve_task(store, query.task)
    model = resolve_model(store, query.model)
    where = ResultFilter(task_slug=task.slug, task_version=task.version, model_slugs=(model.slug,))
    published = result_store.search_results(store, where, limit=1)
    if published:
        return LookupResponse(status="evaluated", result=detail(registry, published[0]))
    pending = result_store.search_results(store, ResultFilter(**{**vars(where), "status": "in_review"}), limit=1)
    if pending:
        return LookupResponse(status="in_review", result=detail(registry, pending[0]))
    withdrawn = result_store.search_results(store, ResultFilter(**{**vars(where), "status": "withdrawn"}), limit=1)
    if withdrawn:
        return LookupResponse(status="withdrawn", result=detail(registry, withdrawn[0]))
    return LookupResponse(status="not_evaluated", result=None)
