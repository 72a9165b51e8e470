"""The capability table: every /v1 capability declared once (server/operation.py says what an entry holds) —
the visitors' reads and request here, the maintainers' review routes and the public withdrawal request in
server/review_capabilities.py — with its input and output models, /v1 method and route, MCP tool (or none,
and why), documentation, who may call it, how it is cached and how its HTTP body is read.

The /v1 routes (server/api.py), the MCP tools (server/mcp_tools.py), the OpenAPI document (server/openapi.py)
and the docs test all read this one table, so a capability cannot be exposed in one place and forgotten in
another, and its input is parsed by one path (tools/inputs.py) on every transport. The pages (web/) cannot
import server/: they call the same tools/ functions with the same input models the table declares.
"""

from __future__ import annotations

import re

from server.operation import Call, Capability, Operation, Parameter, parameters
from server.review_capabilities import REVIEW_OPERATIONS
from tools import (
    catalog,
    compare,
    datasets,
    evidence,
    exports,
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
from tools.schemas import ResultDetail
from web.bodies import FORM_LIMIT

__all__ = ["OPERATIONS", "Call", "Capability", "Operation", "Parameter", "operation", "parameters", "tool_hints"]

VISITOR_OPERATIONS: tuple[Operation, ...] = (
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
        body_limit=FORM_LIMIT,
        status=201,
    ),
)


OPERATIONS: tuple[Operation, ...] = (*VISITOR_OPERATIONS, *REVIEW_OPERATIONS)


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
