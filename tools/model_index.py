"""The model index page's data: every registered model with its count of published results, searched by name
and filtered by type (the /models page; the page reads it, the query parameters are its state)."""

from __future__ import annotations

from pydantic import Field

from store import models as model_store
from store import results as result_store
from tools.registry import Registry
from tools.schemas import Shape


class ModelIndexQuery(Shape):
    q: str | None = Field(
        default=None, max_length=200, description="Part of a model's name, slug, provider or provider model id."
    )
    type: str | None = Field(default=None, max_length=40, description="llm, tabular, timeseries or baseline.")


class ModelIndexRow(Shape):
    slug: str
    name: str
    type: str
    provider: str
    status: str
    results: int = Field(description="Published, complete results.")
    url: str


class ModelIndex(Shape):
    models: list[ModelIndexRow]
    total: int = Field(description="Every registered model, before the filters.")


async def model_index(registry: Registry, query: ModelIndexQuery) -> ModelIndex:
    """Every registered model, optionally those of one type and those whose names contain `q` (any case)."""
    return registry.remember(("model_index", query.q, query.type), lambda: build_model_index(registry, query))


def build_model_index(registry: Registry, query: ModelIndexQuery) -> ModelIndex:
    everyone = model_store.list_models(registry.store)
    counts = result_store.published_counts_by_model(registry.store)
    needle = (query.q or "").strip().casefold()
    rows = []
    for model in everyone:
        names = " ".join([model.slug, model.name, model.provider, model.provider_model_id or ""]).casefold()
        if (query.type and model.type != query.type) or (needle and needle not in names):
            continue
        rows.append(
            ModelIndexRow.from_row(model, results=counts.get(model.slug, 0), url=registry.url(f"/models/{model.slug}"))
        )
    rows.sort(key=lambda row: (-row.results, row.name.casefold()))
    return ModelIndex(models=rows, total=len(everyone))
