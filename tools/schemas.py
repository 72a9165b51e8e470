"""Pydantic shapes shared by several capabilities: models, metrics, results. They generate the OpenAPI
schema and the MCP output schemas, so a field documented here is documented everywhere."""

from __future__ import annotations

from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from store import datasets as dataset_store
from store.models import Model
from store.results import Ranked, Result
from store.tasks import Task
from tools.citation import result_bibtex
from tools.registry import Registry

Tier = Literal["standard", "agent", "baseline", "official"]
ResultStatus = Literal["in_review", "published", "withdrawn"]
TIER_MEANINGS: dict[str, str] = {
    "standard": "Run by BenchToward with the standard prompt and harness, identical for every model on the task.",
    "agent": "Run by BenchToward's model evaluator with the weights the authors released; not a verdict on the paper.",
    "baseline": "A simple comparison model built by BenchToward, so other scores have a floor to compare against.",
    "official": "Planned: run from code the model's authors submit themselves. Submissions are not open yet.",
}


ROW_ID_MAX = 2**63 - 1  # SQLite's largest integer: an id above it cannot name a row


class Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelRef(Shape):
    """A model as a leaderboard row names it."""

    slug: str = Field(description="BenchToward model slug, provider/name.")
    name: str
    type: str = Field(description="llm | tabular | timeseries | baseline")
    provider: str


class MetricValue(Shape):
    """A metric's point estimate and its 95% bootstrap interval (null when undefined)."""

    name: str
    value: float | None
    ci_low: float | None
    ci_high: float | None


class Bootstrap(Shape):
    """How the intervals were computed: units resampled with replacement, all items of a unit together."""

    unit: str
    n_units: int
    replicates: int
    level: float
    degenerate_replicates: int = 0


class PredictionsLink(Shape):
    url: str
    sha256: str
    rows: int


class DatasetCredit(Shape):
    slug: str
    name: str
    license: str
    license_url: str
    citation: str
    doi: str | None


class ResultDetail(Shape):
    """One result: every metric with its CI, configuration, exact versions, cost, BibTeX, predictions."""

    run_id: str = Field(description="First 12 hex characters of run_key.")
    run_key: str = Field(description="sha256 of the canonical JSON of `key`.")
    url: str
    task: str = Field(description="slug@version the result was computed on.")
    spec_hash: str
    status: ResultStatus
    status_reason: str
    partial: bool = Field(description="True for --limit/--allow-partial runs; they never enter a leaderboard.")
    demo: bool = Field(description="True when the task is a demo task (demo or synthetic data).")
    model: ModelRef
    model_version: str
    tier: Tier
    eval_date: str
    primary_metric: str
    metrics: list[MetricValue]
    bootstrap: Bootstrap
    n: int = Field(description="Items scored.")
    parse_rate: float | None = Field(description="Share of answers the parser understood (LLM tasks).")
    cost_usd: float | None = Field(description="Compute cost in US dollars; null when unknown.")
    config: dict[str, Any]
    versions: dict[str, Any]
    key: dict[str, Any] = Field(description="The run-key inputs: model, task, harness version, configuration.")
    predictions: PredictionsLink
    dataset: DatasetCredit
    bibtex: str


def model_ref(model: Model) -> ModelRef:
    return ModelRef(slug=model.slug, name=model.name, type=model.type, provider=model.provider)


def primary_metric_value(result: Result | Ranked) -> MetricValue:
    for metric in orjson.loads(result.metrics_json)["metrics"]:
        if metric["name"] == result.primary_metric:
            return MetricValue(**metric)
    return MetricValue(name=result.primary_metric, value=result.primary_value, ci_low=None, ci_high=None)


def dataset_credit(registry: Registry, task: Task) -> DatasetCredit:
    dataset = dataset_store.get_dataset(registry.store, task.dataset_slug)
    if dataset is None:  # a foreign key makes this unreachable; say so rather than crash
        raise LookupError(f"task {task.ref} names a missing dataset {task.dataset_slug}")
    return DatasetCredit(
        slug=dataset.slug,
        name=dataset.name,
        license=dataset.license,
        license_url=dataset.license_url,
        citation=dataset.citation,
        doi=dataset.doi,
    )


def result_detail(registry: Registry, result: Result, model: Model, task: Task) -> ResultDetail:
    """The full view of a result. Its BibTeX is written for this deployment's public URL (the copy stored
    with the row names the URL of the deployment that stored it)."""
    metrics = orjson.loads(result.metrics_json)
    credit = dataset_credit(registry, task)
    bibtex = result_bibtex(
        run_id=result.run_id,
        run_key=result.run_key,
        model_name=model.name,
        model_slug=model.slug,
        task_ref=result.task_ref,
        task_title=task.title,
        spec_hash=result.spec_hash,
        eval_date=result.eval_date,
        url=registry.result_url(result.run_id),
        dataset_citation=credit.citation,
    )
    return ResultDetail(
        run_id=result.run_id,
        run_key=result.run_key,
        url=registry.result_url(result.run_id),
        task=result.task_ref,
        spec_hash=result.spec_hash,
        status=result.status,  # type: ignore[arg-type]
        status_reason=result.status_reason,
        partial=result.partial,
        demo=task.demo,
        model=model_ref(model),
        model_version=orjson.loads(result.key_json)["model"]["version"],
        tier=result.tier,  # type: ignore[arg-type]
        eval_date=result.eval_date,
        primary_metric=result.primary_metric,
        metrics=[MetricValue(**metric) for metric in metrics["metrics"]],
        bootstrap=Bootstrap(**metrics["bootstrap"]),
        n=result.n,
        parse_rate=result.parse_rate,
        cost_usd=result.cost_usd,
        config=orjson.loads(result.config_json),
        versions=orjson.loads(result.versions_json),
        key=orjson.loads(result.key_json),
        predictions=PredictionsLink(
            url=registry.predictions_url(result.run_id),
            sha256=result.predictions_sha256,
            rows=result.predictions_rows,
        ),
        dataset=credit,
        bibtex=bibtex,
    )
