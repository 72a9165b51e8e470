"""Registering models: explicitly (`benchtoward models add`), on the fly for an endpoint, and our baselines;
and reading one model with every result it has across tasks (`get_model`)."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, field_validator

from store import models as model_store
from store import results as result_store
from store.models import Model
from store.results import ResultFilter
from tools import paging
from tools.errors import BadRequest
from tools.paging import cursor_field, next_field, total_field
from tools.refs import (
    MODEL_HELP,
    MODEL_NAME_SCHEMA,
    MODEL_SLUG,
    find_model,
    is_model_slug,
    registered_slug,
    resolve_model,
)
from tools.registry import Registry
from tools.results import ResultSummary, summaries
from tools.schemas import ModelRef, Shape

MODEL_TYPES = ("llm", "tabular", "timeseries", "baseline")
BASELINE_VERSION = "1"  # bump when a baseline's code changes what it predicts


class ModelSpec(Shape):
    """A model to register."""

    slug: str = Field(
        pattern=MODEL_SLUG, max_length=200, description="provider/name, e.g. snuh/hari-q3-8b or a Hugging Face repo id"
    )
    name: str = Field(min_length=1, max_length=200)
    type: str = Field(default="llm", pattern="^(" + "|".join(MODEL_TYPES) + ")$")
    provider: str | None = Field(default=None, max_length=100, description="Default: the slug's prefix.")
    provider_model_id: str | None = Field(default=None, max_length=200)
    aliases: list[str] = Field(default_factory=list)
    version: str = Field(default="", max_length=200, description="Version or weights revision.")
    endpoint: str | None = Field(default=None, max_length=500, description="OpenAI-compatible base URL.")
    price_input_per_mtok: float | None = Field(default=None, ge=0, description="USD per million input tokens.")
    price_output_per_mtok: float | None = Field(default=None, ge=0, description="USD per million output tokens.")
    status: str = "published"

    @field_validator("slug", "provider_model_id", mode="before")
    @classmethod
    def strip_spaces(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value


def model_of(spec: ModelSpec) -> Model:
    return Model(
        slug=spec.slug,
        name=spec.name,
        type=spec.type,
        provider=spec.provider or spec.slug.split("/", 1)[0],
        provider_model_id=spec.provider_model_id,
        version=spec.version,
        status=spec.status,
        endpoint=spec.endpoint,
        price_input_per_mtok=spec.price_input_per_mtok,
        price_output_per_mtok=spec.price_output_per_mtok,
        aliases=tuple(spec.aliases),
    )


async def add_model(registry: Registry, spec: ModelSpec) -> Model:
    """Register a model or update its description. A model with results keeps its version: a new
    version of the weights is a new computation, so register it under a new slug or version first. A slug that
    matches a registered one without regard to case updates that model, whose stored form is kept."""
    stored = registered_slug(registry.store, spec.slug)
    if stored is not None and stored != spec.slug:
        spec = spec.model_copy(update={"slug": stored})
    existing = model_store.get_model(registry.store, spec.slug)
    if (
        existing is not None
        and existing.version != spec.version
        and result_store.model_has_results(registry.store, spec.slug)
    ):
        raise BadRequest(
            f"{spec.slug} has results at version {existing.version!r}; changing its version would orphan them"
        )
    model = model_of(spec)
    await model_store.upsert_model(registry.store, model)
    return model_store.get_model(registry.store, spec.slug) or model


async def ensure_baseline(registry: Registry, slug: str, name: str) -> Model:
    """Our baselines (declared by their task kinds) are registered models with fixed slugs, added the first
    time they are used."""
    existing = model_store.get_model(registry.store, slug)
    if existing is not None:
        return existing
    spec = ModelSpec(slug=slug, name=name, type="baseline", provider="benchtoward", version=BASELINE_VERSION)
    return await add_model(registry, spec)


async def ensure_endpoint_model(registry: Registry, slug: str, model_id: str | None, endpoint: str) -> Model:
    """`--endpoint` with a name no registered model answers to (any case) registers it: type llm, provider from
    the slug's prefix, provider model id from `--model-id` (default: the slug's name part)."""
    slug = slug.strip()
    existing = find_model(registry.store, slug)
    if existing is not None:
        return existing
    if not is_model_slug(slug):
        raise BadRequest(f"model slug must be provider/name, got {slug[:80]!r}")
    name = slug.split("/", 1)[1]
    spec = ModelSpec(slug=slug, name=name, provider_model_id=model_id or name, endpoint=endpoint)
    return await add_model(registry, spec)


class GetModelQuery(Shape):
    model: str = Field(
        max_length=200,
        description=MODEL_HELP,
        json_schema_extra=MODEL_NAME_SCHEMA,
    )


class ModelSummary(ModelRef):
    """A registered model, its names and where it stands."""

    provider_model_id: str | None
    version: str = Field(description="Version or weights revision evaluated.")
    status: str = Field(description="building | evaluating | in_review | published")
    aliases: list[str] = Field(description="Other names lookup accepts (any case).")
    url: str = Field(description="The model's page.")

    @classmethod
    def of(cls, registry: Registry, model: Model, aliases: list[str], **computed: Any) -> Self:
        return cls.from_row(model, aliases=aliases, url=registry.url(f"/models/{model.slug}"), **computed)


class ModelDetail(ModelSummary):
    """A model, where it stands, and its results on every task, newest first."""

    results: list[ResultSummary] = Field(description="Complete results on every task, whatever their status.")


async def get_model(registry: Registry, query: GetModelQuery) -> ModelDetail:
    """Use to see one model across tasks: its status and every complete result it has, newest first."""
    return registry.remember(("model", query.model), lambda: build_model_detail(registry, query))


def build_model_detail(registry: Registry, query: GetModelQuery) -> ModelDetail:
    model = resolve_model(registry.store, query.model)
    where = ResultFilter(model_slugs=(model.slug,), status=None)
    results = result_store.search_results(registry.store, where, limit=1000)
    aliases = sorted(model.names() - {model.slug})
    return ModelDetail.of(registry, model, aliases, results=summaries(registry, results))


ModelStatus = Literal["building", "evaluating", "in_review", "published"]


class ListModelsQuery(Shape):
    q: str | None = Field(
        default=None,
        max_length=200,
        description="Words all found in a model's names (any case).",
    )
    type: Literal["llm", "tabular", "timeseries", "baseline"] | None = Field(
        default=None, description="Only models of this type (any case)."
    )
    status: ModelStatus | None = Field(default=None, description="Only models with this status (any case).")
    limit: int = Field(default=100, ge=1, le=1000, description="Models per page.")
    cursor: str | None = cursor_field()

    @field_validator("type", "status", mode="before")
    @classmethod
    def lower_case(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


class ModelList(Shape):
    total: int = total_field()
    next: str | None = next_field()
    models: list[ModelSummary]


def model_summaries(registry: Registry) -> tuple[ModelSummary, ...]:
    aliases = model_store.all_aliases(registry.store)
    return tuple(
        ModelSummary.of(registry, model, list(aliases.get(model.slug, ())))
        for model in model_store.list_models(registry.store)
    )


def matches(model: ModelSummary, query: ListModelsQuery) -> bool:
    if (query.type and model.type != query.type) or (query.status and model.status != query.status):
        return False
    text = " ".join([model.slug, model.name, model.provider, model.provider_model_id or "", *model.aliases]).lower()
    return all(word in text for word in (query.q or "").lower().split())


async def list_models(registry: Registry, query: ListModelsQuery) -> ModelList:
    """Use to find a model: every registered model with its status (e.g. `evaluating`), type and names, by
    slug."""
    every = registry.remember(("models",), lambda: model_summaries(registry))
    found = [model for model in every if matches(model, query)]
    shown, total, following = paging.page(found, query, query.limit)
    return ModelList(total=total, next=following, models=shown)
