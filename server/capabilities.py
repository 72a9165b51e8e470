"""The capability table: each tools/ function declared once with its input and output models, /v1 method and
route, MCP tool, documentation, who may call it and how it is cached.

The /v1 routes (server/api.py), the MCP tools (server/mcp_tools.py), the OpenAPI document (server/openapi.py),
the docs test and the pages' data calls (`operation(name)`) all read this one table, so a capability cannot be
exposed in one place and forgotten in another, and its input is parsed by one path (tools/inputs.py) on every
transport.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from tools import (
    catalog,
    compare,
    datasets,
    evidence,
    exports,
    inputs,
    leaderboard,
    lookup,
    models,
    predictions,
    requests,
    results,
    stats,
    tasks,
)
from tools.errors import (
    AppError,
    BenchmarkNotFound,
    DatasetNotFound,
    ModelNotFound,
    NotComparable,
    PayloadTooLarge,
    RateLimited,
    RunNotFound,
    RunNotOnTask,
    RunNotPublished,
    TaskNotFound,
)
from tools.registry import Registry
from tools.schemas import ResultDetail
from tools.usage import Visitor

Capability = Callable[..., Awaitable[BaseModel]]
Caller = Literal["visitor", "maintainer"]
# How an answer is kept: "store" = in the read cache until the next write to the store (every public read);
# "none" = computed for each call (writes, counters).
CachePolicy = Literal["store", "none"]


@dataclass(frozen=True)
class Operation:
    name: str  # the capability, the MCP tool and the OpenAPI operationId share it
    function: Capability
    query: type[BaseModel]
    response: type[BaseModel]
    path: str  # the /v1 route
    summary: str
    errors: tuple[type[AppError], ...] = ()
    mcp: bool = True  # also an MCP tool of the same name
    method: Literal["GET", "POST"] = "GET"
    caller: Caller = "visitor"
    cache: CachePolicy = "store"
    takes_visitor: bool = False  # the function takes the caller's Visitor (to count reuse, or to rate-limit)

    @property
    def description(self) -> str:
        """The function's docstring, paragraphs kept, lines joined."""
        text = inspect.cleandoc(self.function.__doc__ or self.summary)
        return "\n\n".join(" ".join(paragraph.split()) for paragraph in text.split("\n\n"))

    def input_schema(self) -> dict[str, Any]:
        """The capability's input as one JSON object: each parameter's constraints exactly as the OpenAPI
        parameters declare them (the MCP tool's input schema; a POST route's body)."""
        declared = parameters(self.query)
        properties = {
            p.name: {
                **p.schema,
                "description": p.description,
                **({"default": p.default} if p.default not in (None, "") else {}),
            }
            for p in declared
        }
        required = [p.name for p in declared if p.required]
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        return {**schema, "required": required} if required else schema

    def parse(self, values: Mapping[str, Any], noun: str = "parameter") -> BaseModel:
        """The caller's input as this capability's query: the one parse-and-validate path of every transport."""
        return inputs.parse(self.query, values, noun=noun)

    async def call(self, registry: Registry, query: BaseModel, visitor: Visitor) -> BaseModel:
        if self.takes_visitor:
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
        takes_visitor=True,
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
        takes_visitor=True,
    ),
    Operation(
        "compare",
        compare.compare,
        compare.CompareQuery,
        compare.Comparison,
        "/v1/compare",
        "Two results of one task compared: difference with its paired-bootstrap 95% CI, P(A better), agreement",
        errors=(TaskNotFound, RunNotFound, RunNotOnTask, RunNotPublished, NotComparable),
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
        "export_eee",
        exports.export_eee,
        exports.ExportResultQuery,
        exports.EveryEvalEverRecord,
        "/v1/results/{run_id}/eee",
        "One result as an Every Eval Ever 0.3.0 aggregate record (metrics with bootstrap CIs, run key, licence)",
        errors=(RunNotFound,),
        mcp=False,
    ),
    Operation(
        "list_evidence",
        evidence.list_evidence,
        evidence.ListEvidenceQuery,
        evidence.EvidenceList,
        "/v1/evidence",
        "Metrics other harnesses (lm-eval, Inspect) reported for a model: evidence, never ranked",
        errors=(ModelNotFound,),
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
        cache="none",
        takes_visitor=True,
    ),
)


@dataclass(frozen=True)
class Parameter:
    """One input of a capability as both OpenAPI and MCP declare it: `schema` carries every constraint (type,
    limits, pattern, enum) and no null alternative (absent is how a caller leaves a value out)."""

    name: str
    schema: dict[str, Any]
    description: str
    required: bool
    default: Any = None


def core_schema(prop: dict[str, Any]) -> dict[str, Any]:
    """A property's schema without its null alternative, description, title or default."""
    prop = {key: value for key, value in prop.items() if key not in ("description", "title", "default")}
    if "anyOf" not in prop:
        return prop
    shared = {key: value for key, value in prop.items() if key != "anyOf"}  # e.g. a pattern beside anyOf
    alternatives = [{**a, **shared} for a in prop["anyOf"] if a.get("type") != "null"]
    return alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}


def parameters(query: type[BaseModel]) -> list[Parameter]:
    """The inputs of a query model, in declaration order."""
    schema = query.model_json_schema()
    required = set(schema.get("required", []))
    out = []
    for name, prop in schema.get("properties", {}).items():
        core = core_schema(prop)
        if name in required and core.get("type") == "string":
            core.setdefault("minLength", 1)  # an empty value counts as absent, so a required one is missing
        out.append(Parameter(name, core, prop.get("description", ""), name in required, prop.get("default")))
    return out


def operation(name: str) -> Operation:
    """The table's entry of a capability, by name (pages and tests look theirs up here)."""
    for entry in OPERATIONS:
        if entry.name == name:
            return entry
    raise KeyError(name)


ROUTE_MENTION = re.compile(r"(?:GET |POST )?(/v1/[a-z_/.{}]+)")


def tool_hints(message: str) -> str:
    """An error message as an MCP caller reads it: a /v1 route it names becomes the tool that does the same
    (`GET /v1/tasks lists the tasks` → `list_tasks lists the tasks`); a route with no tool stays as it is."""
    tools = {entry.path: entry.name for entry in OPERATIONS if entry.mcp}
    return ROUTE_MENTION.sub(lambda match: tools.get(match.group(1), match.group(0)), message)
