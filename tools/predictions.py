"""Capability: per-item predictions — the file itself, or a short preview for agents (never megabytes inline)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pydantic import Field

from store import results as result_store
from store.results import Result
from tools import paging
from tools.errors import BadRequest, RunNotFound
from tools.inputs import Query
from tools.paging import cursor_field, next_field, total_field
from tools.registry import Registry
from tools.schemas import Shape
from tools.usage import Visitor

MAX_PREVIEW_ROWS = 100


class GetPredictionsQuery(Query):
    run_id: str = Field(max_length=64, description="The 12-hex-character run id.")
    correct: bool | None = Field(default=None, description="Only right (true) or wrong (false) rows.")
    instance_id: str | None = Field(default=None, max_length=200, description="Only the row(s) of this item.")
    limit: int = Field(default=5, ge=0, le=MAX_PREVIEW_ROWS, description="Rows per page.")
    cursor: str | None = cursor_field()


class Column(Shape):
    name: str
    type: str


class PredictionsPreview(Shape):
    """Where the predictions file is, what it holds, and one page of its rows (filtered by `correct` and
    `instance_id`); page on with `cursor` to read every row without the file."""

    run_id: str
    url: str = Field(description="The whole parquet file.")
    sha256: str
    rows: int = Field(description="Rows in the file.")
    columns: list[Column]
    total: int = total_field()
    next: str | None = next_field()
    head: list[dict[str, Any]] = Field(description="This page's rows, in file order.")


def stored_result(registry: Registry, run_id: str) -> Result:
    result = result_store.get_result(registry.store, run_id)
    if result is None:
        raise RunNotFound(f"no result with run_id {run_id[:64]!r}")
    return result


def read_page(path: Path, query: GetPredictionsQuery, offset: int) -> tuple[list[Column], int, list[dict[str, Any]]]:
    """The columns, the number of rows matching the filters, and the page's rows."""
    table = pq.read_table(path)
    columns = [Column(name=field.name, type=str(field.type)) for field in table.schema]
    names = table.column_names
    if query.correct is not None:
        if "correct" not in names:
            raise BadRequest("correct: these predictions have no `correct` column (a score per window instead)")
        table = table.filter(pc.equal(table["correct"], query.correct))
    if query.instance_id is not None:
        table = table.filter(pc.equal(pc.cast(table["instance_id"], pa.string()), query.instance_id))
    return columns, table.num_rows, table.slice(offset, query.limit).to_pylist() if query.limit else []


async def get_predictions(registry: Registry, query: GetPredictionsQuery) -> PredictionsPreview:
    """Use to reuse per-item predictions: the parquet file's URL and sha256, and its rows page by page (until
    `next` is null)."""
    result = stored_result(registry, query.run_id)
    key = ("predictions", result.run_id, result.predictions_sha256, query.model_dump_json())  # pinned by its hash
    cached: PredictionsPreview | None = registry.cache.peek(registry.store, key)
    if cached is not None:
        return cached
    offset = paging.offset_of(query)
    path = registry.predictions_path(result.predictions_path)
    columns, total, rows = await asyncio.to_thread(read_page, path, query, offset)
    preview = PredictionsPreview(
        run_id=result.run_id,
        url=registry.predictions_url(result.run_id),
        sha256=result.predictions_sha256,
        rows=result.predictions_rows,
        columns=columns,
        total=total,
        next=paging.next_cursor(query, offset, len(rows), total),
        head=rows,
    )
    registry.cache.put(registry.store, key, preview)
    return preview


def predictions_file(registry: Registry, run_id: str, visitor: Visitor | None) -> tuple[Path, str]:
    """The stored predictions file of a result and its sha256; a listed result's download counts as a reuse."""
    result = stored_result(registry, run_id)
    if visitor is not None and result.status == "published":
        registry.usage.count_download(visitor, f"/artifacts/{run_id}/predictions.parquet", run_id)
    return registry.predictions_path(result.predictions_path), result.predictions_sha256
