"""Pydantic shapes shared by several capabilities: models, metrics, results. They generate the OpenAPI
schema and the MCP output schemas, so a field documented here is documented everywhere."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

from store import datasets as dataset_store
from store.models import Model
from store.results import Ranked, Result
from store.tasks import Task
from tools.citation import result_bibtex
from tools.inputs import Folded, Query
from tools.registry import Registry

Tier = Literal["standard", "agent", "baseline", "official"]
ModelType = Literal["llm", "tabular", "timeseries", "baseline"]
ResultStatus = Literal["in_review", "published", "withdrawn"]
# Filters as callers write them: any case, surrounding spaces dropped; a wrong value lists the allowed ones.
TierFilter = Annotated[Tier, Folded]
ModelTypeFilter = Annotated[ModelType, Folded]
RESULTS_LICENSE = "CC BY 4.0"
TIER_HELP = "How it was run: standard, agent, baseline or official."
MODEL_TYPE_HELP = "Only models of this type (any case)."
METRIC_SCALE = "On a 0-1 scale (accuracy 0.62 is 62%)."
N_HELP = "= n_items (kept for compatibility)."
N_ITEMS_HELP = "Items scored (questions, or time-series windows)."
N_UNITS_HELP = "Units the 95% CI resamples; report this as the sample size."
RANK_RANGE_HELP = "[best, worst] rank in 95% of paired bootstrap replicates; null until computed."
RANK_HELP = "1 = best on the full leaderboard (ties share one); null off it."
RESULT_STATUS_HELP = "published, in_review (awaits a maintainer) or withdrawn."
PRIMARY_METRIC_HELP = "The metric leaderboards rank by (0-1 scale)."
PARSE_RATE_HELP = "Share of answers parsed (LLM tasks)."
COST_HELP = "USD; null when unknown."
UNIT_HELP = "question or patient."
PREVIEW_HELP = "The task version may still change (as a new version)."
DEMO_HELP = "Demo or synthetic data: not a real comparison."
TIER_MEANINGS: dict[str, str] = {
    "standard": "Run by BenchToward with the standard prompt and harness, identical for every model on the task.",
    "agent": "Run by BenchToward's model evaluator with the weights the authors released; not a verdict on the paper.",
    "baseline": "A simple comparison model built by BenchToward, so other scores have a floor to compare against.",
    "official": "Planned: run from code the model's authors submit themselves. Submissions are not open yet.",
}


ROW_ID_MAX = 2**63 - 1  # SQLite's largest integer: an id above it cannot name a row


class Shape(BaseModel):
    """An API shape. `from_attributes`: a shape is built from a store row by `Shape.from_row(row)`, which reads the
    fields the shape declares, instead of copying them one by one."""

    model_config = ConfigDict(extra="forbid", from_attributes=True)

    @classmethod
    def from_row(cls, row: object, **computed: Any) -> Self:
        """This shape from a store row's same-named attributes, plus the fields the row has not (`computed`)."""
        values = {name: getattr(row, name) for name in cls.model_fields if hasattr(row, name) and name not in computed}
        return cls.model_validate({**values, **computed})


class ModelRef(Shape):
    """A model."""

    slug: str = Field(description="provider/name.")
    name: str
    type: str = Field(description="llm | tabular | timeseries | baseline")
    provider: str = Field(description="The slug's first part.")


class MetricValue(Shape):
    """A metric with its 95% bootstrap interval [ci_low, ci_high] (null when undefined)."""

    name: str = Field(description="e.g. accuracy, auroc.")
    value: float | None = Field(description=METRIC_SCALE)
    ci_low: float | None
    ci_high: float | None


class Bootstrap(Shape):
    """Units resampled with replacement, all items of a unit together."""

    unit: str = Field(description=UNIT_HELP)
    n_units: int
    replicates: int
    level: float = Field(description="0.95.")
    degenerate_replicates: int = Field(default=0, description="Replicates where the metric was undefined.")


def sizes(result: Result | Ranked) -> dict[str, Any]:
    """n, n_items, n_units and unit of a stored result, for a row's constructor."""
    bootstrap = orjson.loads(result.metrics_json).get("bootstrap", {})
    return {
        "n": result.n,
        "n_items": result.n,
        "n_units": bootstrap.get("n_units", result.n),
        "unit": bootstrap.get("unit", "item"),
    }


class ResultRow(Shape):
    """The fields every row of a list of results shares (a leaderboard's row, a search's or a model's result):
    declared once here, built from the store's row by `ResultRow.of`."""

    run_id: str = Field(description="For get_result.")
    task: str = Field(description="slug@version.")
    model: ModelRef
    tier: Tier = Field(description=TIER_HELP)
    metric: MetricValue
    n: int = Field(description=N_HELP)
    n_items: int = Field(description=N_ITEMS_HELP)
    n_units: int = Field(description=N_UNITS_HELP)
    unit: str = Field(description=UNIT_HELP)
    parse_rate: float | None = Field(description=PARSE_RATE_HELP)
    cost_usd: float | None = Field(description=COST_HELP)
    eval_date: str = Field(description="UTC date.")
    url: str = Field(description="The result's page.")
    status: ResultStatus = Field(description=RESULT_STATUS_HELP)

    @classmethod
    def of(cls, registry: Registry, result: Result | Ranked, model: Model, task: str, **computed: Any) -> Self:
        """This row from a stored result, its model and task (slug@version), plus the fields only this kind of row
        has."""
        return cls.from_row(
            result,
            task=task,
            model=model_ref(model),
            metric=primary_metric_value(result),
            **sizes(result),
            url=registry.result_url(result.run_id),
            **computed,
        )


class PredictionsLink(Shape):
    url: str = Field(description="The whole parquet file.")
    sha256: str
    rows: int = Field(description="Rows in the file.")


class DatasetCredit(Shape):
    """The dataset and its own licence: credit it when you reuse the result."""

    slug: str
    name: str
    license: str
    license_url: str
    citation: str
    doi: str | None


class ResultDetail(Shape):
    """One result: every metric with its CI, configuration, exact versions, cost, BibTeX, predictions."""

    run_id: str = Field(description="run_key's first 12 hex digits.")
    run_key: str = Field(description="sha256 of the canonical JSON of `key`.")
    url: str = Field(description="The result's page.")
    task: str = Field(description="slug@version.")
    spec_hash: str = Field(description="sha256 of the task version's spec.")
    status: ResultStatus = Field(description=RESULT_STATUS_HELP)
    status_reason: str = Field(description="Why it was withdrawn or held.")
    partial: bool = Field(description="A partial run (--limit); never on a leaderboard.")
    demo: bool = Field(description=DEMO_HELP)
    model: ModelRef
    model_version: str
    tier: Tier = Field(description=TIER_HELP)
    eval_date: str = Field(description="UTC date.")
    primary_metric: str = Field(description=PRIMARY_METRIC_HELP)
    metrics: list[MetricValue]
    bootstrap: Bootstrap
    n: int = Field(description=N_HELP)
    n_items: int = Field(description=N_ITEMS_HELP)
    n_units: int = Field(description=N_UNITS_HELP)
    unit: str = Field(description=UNIT_HELP)
    rank: int | None = Field(description=RANK_HELP)
    rank_range: list[int] | None = Field(description=RANK_RANGE_HELP)
    parse_rate: float | None = Field(description=PARSE_RATE_HELP)
    cost_usd: float | None = Field(description=COST_HELP)
    config: dict[str, Any] = Field(description="Prompt, sampling, limits.")
    versions: dict[str, Any] = Field(description="Harness, packages, spec hash, tokens.")
    key: dict[str, Any] = Field(description="What run_key hashes.")
    predictions: PredictionsLink
    dataset: DatasetCredit
    license: str = Field(description="This result's licence (the dataset's is under `dataset`).")
    bibtex: str = Field(description="Cite it with this.")


class TieredQuery(Query):
    """A filter on results' tier; `tag` is seed 002's word for the same filter and means the same."""

    tier: TierFilter | None = Field(default=None, description="Only results of this tier (any case).")
    tag: TierFilter | None = Field(default=None, description="Same as `tier`.")

    @model_validator(mode="after")
    def one_tier(self) -> TieredQuery:
        if self.tag is not None and self.tier is not None and self.tag != self.tier:
            raise ValueError(f"tier {self.tier!r} and tag {self.tag!r} are the same filter; give one")
        if self.tier is None and self.tag is not None:
            self.tier, self.tag = self.tag, None
        return self


def model_ref(model: Model) -> ModelRef:
    return ModelRef.from_row(model)


def primary_metric_value(result: Result | Ranked) -> MetricValue:
    for metric in orjson.loads(result.metrics_json)["metrics"]:
        if metric["name"] == result.primary_metric:
            return MetricValue(**metric)
    return MetricValue(name=result.primary_metric, value=result.primary_value, ci_low=None, ci_high=None)


def dataset_credit(registry: Registry, task: Task) -> DatasetCredit:
    dataset = dataset_store.get_dataset(registry.store, task.dataset_slug)
    if dataset is None:  # a foreign key makes this unreachable; say so rather than crash
        raise LookupError(f"task {task.ref} names a missing dataset {task.dataset_slug}")
    return DatasetCredit.from_row(dataset)


def result_detail(
    registry: Registry, result: Result, model: Model, task: Task, standing: tuple[int, list[int] | None] | None
) -> ResultDetail:
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
    return ResultDetail.from_row(
        result,
        url=registry.result_url(result.run_id),
        task=result.task_ref,
        demo=task.demo,
        model=model_ref(model),
        model_version=orjson.loads(result.key_json)["model"]["version"],
        metrics=[MetricValue(**metric) for metric in metrics["metrics"]],
        bootstrap=Bootstrap(**metrics["bootstrap"]),
        **sizes(result),
        rank=standing[0] if standing else None,
        rank_range=standing[1] if standing else None,
        config=orjson.loads(result.config_json),
        versions=orjson.loads(result.versions_json),
        key=orjson.loads(result.key_json),
        predictions=PredictionsLink(
            url=registry.predictions_url(result.run_id),
            sha256=result.predictions_sha256,
            rows=result.predictions_rows,
        ),
        dataset=credit,
        license=RESULTS_LICENSE,
        bibtex=bibtex,
    )
