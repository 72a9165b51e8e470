"""The capability table: each tools/ function with its /v1 route, MCP tool name and documentation.

Both presenters (server/api.py for /v1, server/mcp_tools.py for MCP) and the OpenAPI generator read this
one table, so a capability cannot be exposed in one place and forgotten in another.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from tools import catalog, datasets, leaderboard, lookup, models, predictions, requests, results, stats, tasks
from tools.errors import (
    AppError,
    BadRequest,
    BenchmarkNotFound,
    DatasetNotFound,
    ModelNotFound,
    PayloadTooLarge,
    RateLimited,
    RunNotFound,
    TaskNotFound,
)
from tools.registry import Registry
from tools.schemas import ResultDetail
from tools.usage import Visitor

Capability = Callable[..., Awaitable[BaseModel]]


@functools.cache
def takes_visitor(function: Capability) -> bool:
    """Whether a capability counts reuse (it takes the visitor); read once, not on every request."""
    return "visitor" in inspect.signature(function).parameters


@dataclass(frozen=True)
class Operation:
    name: str  # the capability, the MCP tool and the OpenAPI operationId share it
    function: Capability
    query: type[BaseModel]
    response: type[BaseModel]
    path: str  # the /v1 route
    summary: str
    errors: tuple[type[AppError], ...] = ()
    mcp: bool = True
    method: str = "GET"  # POST: the input is a JSON body; an answer with `created` true is 201, else 200

    @property
    def description(self) -> str:
        return inspect.cleandoc(self.function.__doc__ or self.summary)

    @property
    def counts_reuse(self) -> bool:
        return takes_visitor(self.function)

    async def call(self, registry: Registry, query: BaseModel, visitor: Visitor) -> BaseModel:
        if self.counts_reuse:
            return await self.function(registry, query, visitor)
        return await self.function(registry, query)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "list_datasets",
        datasets.list_datasets,
        datasets.ListDatasetsQuery,
        datasets.DatasetList,
        "/v1/datasets",
        "Datasets with licence, licence URL and citation",
    ),
    Operation(
        "list_tasks",
        tasks.list_tasks,
        tasks.ListTasksQuery,
        tasks.TaskList,
        "/v1/tasks",
        "Tasks: slug, version, dataset, kind, primary metric, preview, status, number of results",
    ),
    Operation(
        "get_task",
        tasks.get_task,
        tasks.GetTaskQuery,
        tasks.TaskDetail,
        "/v1/tasks/{slug}",
        "Full task specification with its spec_hash (?version= for a specific version)",
        errors=(TaskNotFound,),
    ),
    Operation(
        "leaderboard",
        leaderboard.leaderboard,
        leaderboard.LeaderboardQuery,
        leaderboard.Leaderboard,
        "/v1/leaderboard",
        "Ranked rows for one task version, with 95% CIs and rank ranges",
        errors=(TaskNotFound,),
    ),
    Operation(
        "search_results",
        results.search_results,
        results.SearchResultsQuery,
        results.ResultList,
        "/v1/results",
        "Results matching all given filters",
        errors=(TaskNotFound, ModelNotFound, DatasetNotFound),
    ),
    Operation(
        "get_result",
        results.get_result,
        results.GetResultQuery,
        ResultDetail,
        "/v1/results/{run_id}",
        "One result: all metrics with 95% CIs, configuration, versions, cost, BibTeX",
        errors=(RunNotFound,),
    ),
    Operation(
        "get_model",
        models.get_model,
        models.GetModelQuery,
        models.ModelDetail,
        "/v1/model",
        "One model: type, provider, version, status and its results on every task",
        errors=(ModelNotFound,),
    ),
    Operation(
        "lookup",
        lookup.lookup,
        lookup.LookupQuery,
        lookup.LookupResponse,
        "/v1/lookup",
        "Whether a model has been evaluated on a task — call this before running it yourself",
        errors=(TaskNotFound, ModelNotFound),
    ),
    Operation(
        "stats",
        stats.stats,
        stats.StatsQuery,
        stats.Stats,
        "/v1/stats",
        "Counts, total compute cost and number of reuses",
    ),
    Operation(
        "get_predictions",
        predictions.get_predictions,
        predictions.GetPredictionsQuery,
        predictions.PredictionsPreview,
        "/v1/predictions/{run_id}",
        "Predictions file URL, row count, columns and the first rows",
        errors=(RunNotFound,),
    ),
    Operation(
        "list_benchmarks",
        catalog.list_benchmarks,
        catalog.ListBenchmarksQuery,
        catalog.BenchmarkList,
        "/v1/benchmarks",
        "The benchmark catalog: filter by tag, language, status, runs_here; search with q",
    ),
    Operation(
        "get_benchmark",
        catalog.get_benchmark,
        catalog.GetBenchmarkQuery,
        catalog.BenchmarkDetail,
        "/v1/benchmarks/{id}",
        "One catalog entry as imported, with its revisions, tasks and naming-collision warning",
        errors=(BenchmarkNotFound,),
    ),
    Operation(
        "list_models",
        models.list_models,
        models.ListModelsQuery,
        models.ModelList,
        "/v1/models",
        "Every registered model with its status, aliases and provider ids; filter by q, type, status",
    ),
    Operation(
        "request_evaluation",
        requests.request_evaluation,
        requests.EvaluationRequestBody,
        requests.RequestReceipt,
        "/v1/requests",
        "Ask for a model to be evaluated on a task version (enters the maintainers' review queue)",
        errors=(TaskNotFound, PayloadTooLarge, RateLimited),
        method="POST",
    ),
)


def parse_query(model: type[BaseModel], values: dict[str, Any]) -> BaseModel:
    """Validate caller input into a query model; empty values count as absent, unknown names are ignored."""
    known = {name: value for name, value in values.items() if name in model.model_fields and value not in ("", None)}
    try:
        return model.model_validate(known)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in issue['loc']) or 'input'}: {issue['msg']}" for issue in error.errors()
        )
        raise BadRequest(problems[:500]) from None
