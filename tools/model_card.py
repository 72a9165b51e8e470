"""A model's card: where its weights are, its base model, the licence of its weights and its paper.

Set by a maintainer (`benchtoward model-card`), shown on the model's page. Links must be http(s) URLs with a host;
a Hugging Face repo id (org/name) for the weights becomes its hub URL. Nothing is guessed from the model's name.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from store import model_cards as card_store
from store.model_cards import ModelCard
from tools.refs import resolve_model
from tools.registry import Registry
from tools.schemas import Shape

HF_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


class ModelCardSpec(Shape):
    """What to record of a model's card; a field left out is recorded as unknown."""

    model: str = Field(max_length=200, description="Model slug or provider model id.")
    weights_url: str | None = Field(default=None, max_length=500, description="URL or Hugging Face repo id.")
    base_model: str | None = Field(default=None, max_length=200, description="The model it was fine-tuned from.")
    license: str | None = Field(default=None, max_length=200, description="Licence of the weights, as stated.")
    paper_url: str | None = Field(default=None, max_length=500, description="The paper or technical report.")

    @field_validator("weights_url", mode="before")
    @classmethod
    def hub_url(cls, value: object) -> object:
        if isinstance(value, str) and HF_REPO.match(value.strip()):
            return f"https://huggingface.co/{value.strip()}"
        return value

    @field_validator("weights_url", "paper_url")
    @classmethod
    def web_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in value.strip()):
            raise ValueError("must be an http(s) URL with a host")
        return value.strip()

    @field_validator("base_model", "license")
    @classmethod
    def text(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None


class ModelCardView(Shape):
    weights_url: str | None
    base_model: str | None
    license: str | None
    paper_url: str | None


async def set_model_card(registry: Registry, spec: ModelCardSpec) -> ModelCardView:
    """Record the card of a registered model (model_not_found otherwise), replacing what it had."""
    model = resolve_model(registry.store, spec.model)
    card = ModelCard(model.slug, spec.weights_url, spec.base_model, spec.license, spec.paper_url)
    await card_store.put_model_card(registry.store, card)
    return view(card)


def model_card(registry: Registry, slug: str) -> ModelCardView | None:
    """The card of a model, or None when none was recorded."""
    return registry.remember(("model_card", slug), lambda: read_card(registry, slug))


def read_card(registry: Registry, slug: str) -> ModelCardView | None:
    card = card_store.get_model_card(registry.store, slug)
    return view(card) if card is not None else None


def view(card: ModelCard) -> ModelCardView:
    return ModelCardView(
        weights_url=card.weights_url, base_model=card.base_model, license=card.license, paper_url=card.paper_url
    )
