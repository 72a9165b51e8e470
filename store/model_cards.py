"""A model's card: weights link, base model, licence and paper (each optional), one row per model."""

from __future__ import annotations

from dataclasses import dataclass

from store.clock import utc_now
from store.db import Store

COLUMNS = "model_slug, weights_url, base_model, license, paper_url, updated_at"


@dataclass(frozen=True)
class ModelCard:
    model_slug: str
    weights_url: str | None = None
    base_model: str | None = None
    license: str | None = None
    paper_url: str | None = None
    updated_at: str = ""


def get_model_card(store: Store, slug: str) -> ModelCard | None:
    row = store.read_one(f"SELECT {COLUMNS} FROM model_cards WHERE model_slug = ?", (slug,))
    return ModelCard(**dict(row)) if row is not None else None


async def put_model_card(store: Store, card: ModelCard) -> None:
    """Store a model's card, replacing the one it had."""
    async with store.transaction() as db:
        await db.execute(
            f"INSERT INTO model_cards ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (model_slug) DO UPDATE SET "
            "weights_url = excluded.weights_url, base_model = excluded.base_model, license = excluded.license, "
            "paper_url = excluded.paper_url, updated_at = excluded.updated_at",
            (card.model_slug, card.weights_url, card.base_model, card.license, card.paper_url, utc_now()),
        )
