"""Capability: per-item predictions — the file itself, or a short preview for agents (never megabytes inline)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from pydantic import Field

from store import results as result_store
from store.results import Result
from tools.errors import RunNotFound
from tools.registry import Registry
from tools.schemas import Shape
from tools.usage import Visitor

MAX_PREVIEW_ROWS = 100


class GetPredictionsQuery(Shape):
    run_id: str = Field(max_length=64, description="The 12-hex-character run id.")
    limit: int = Field(default=5, ge=0, le=MAX_PREVIEW_ROWS, description="Rows to include inline (0-100).")


class Column(Shape):
    name: str
    type: str


class PredictionsPreview(Shape):
    """Where the predictions file is, what it holds, and its first `limit` rows."""

    run_id: str
    url: str = Field(description="Download the whole parquet file here.")
    sha256: str
    rows: int
    columns: list[Column]
    head: list[dict[str, Any]]


def stored_result(registry: Registry, run_id: str) -> Result:
    result = result_store.get_result(registry.store, run_id)
    if result is None:
        raise RunNotFound(f"no result with run_id {run_id[:64]!r}")
    return result


def read_head(path: Path, limit: int) -> tuple[list[Column], list[dict[str, Any]]]:
    parquet = pq.ParquetFile(path)
    columns = [Column(name=field.name, type=str(field.type)) for field in parquet.schema_arrow]
    if limit == 0:
        return columns, []
    batch = next(parquet.iter_batches(batch_size=limit), None)
    return columns, batch.to_pylist() if batch is not None else []


async def get_predictions(registry: Registry, query: GetPredictionsQuery) -> PredictionsPreview:
    """Use to reuse per-item predictions: the parquet file's URL, sha256, row count, columns and its first
    `limit` rows (at most 100; download the file from `url` for the rest)."""
    result = stored_result(registry, query.run_id)
    key = ("predictions", result.run_id, result.predictions_sha256, query.limit)  # the file is pinned by its hash
    cached: PredictionsPreview | None = registry.cache.peek(registry.store, key)
    if cached is not None:
        return cached
    path = registry.predictions_path(result.predictions_path)
    columns, head = await asyncio.to_thread(read_head, path, query.limit)
    preview = PredictionsPreview(
        run_id=result.run_id,
        url=registry.predictions_url(result.run_id),
        sha256=result.predictions_sha256,
        rows=result.predictions_rows,
        columns=columns,
        head=head,
    )
    registry.cache.put(registry.store, key, preview)
    return preview


def predictions_file(registry: Registry, run_id: str, visitor: Visitor | None) -> tuple[Path, str]:
    """The stored predictions file of a result and its sha256; a listed result's download counts as a reuse."""
    result = stored_result(registry, run_id)
    if visitor is not None and result.status == "published":
        registry.usage.count_download(visitor, f"/artifacts/{run_id}/predictions.parquet", run_id)
    return registry.predictions_path(result.predictions_path), result.predictions_sha256
