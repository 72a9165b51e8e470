"""Result bundles (result.json + predictions.parquet): import, export, and the one way a result is stored.

`store_result` is the only path by which a result enters the store, for imported bundles and for the
evaluator's own runs alike. It checks the bundle against the task spec and the model, recomputes the
run key, verifies the predictions file (hash, schema, rows, unique ids) and the point estimates, moves
the file into place durably, and only then inserts the row, in one transaction. A run key already
stored is a no-op; anything invalid raises BadRequest and writes nothing.
"""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
from pydantic import Field, ValidationError

from evaluator.canonical import canonical_json, file_sha256
from evaluator.kinds import TaskKind
from evaluator.predictions import FILE_NAME, copy_durably, instance_set_hash, read_predictions
from evaluator.runkey import run_id as run_id_of
from evaluator.runkey import run_key as run_key_of
from store import models as model_store
from store import results as result_store
from store import tasks as task_store
from store.clock import utc_now
from store.models import Model
from store.results import Result
from store.tasks import Task
from tools.citation import result_bibtex
from tools.errors import BadRequest
from tools.predictions import stored_result
from tools.ranking import refresh_rank_ranges
from tools.refs import MODEL_SLUG
from tools.registry import Registry
from tools.schemas import Bootstrap, MetricValue, ResultStatus, Shape, Tier, dataset_credit

BUNDLE_FORMAT = "benchtoward-result/1"
RESULT_FILE = "result.json"
METRIC_TOLERANCE = 1e-9


class BundleModel(Shape):
    """The model a bundle was computed with; registered on import when it is not known yet."""

    slug: str = Field(pattern=MODEL_SLUG)
    name: str = Field(min_length=1, max_length=200)
    type: str = Field(pattern=r"^[a-z][a-z0-9-]{0,39}$")
    provider: str = Field(min_length=1, max_length=100)
    provider_model_id: str | None = None
    version: str = ""

    @classmethod
    def of(cls, model: Model) -> BundleModel:
        return cls.from_row(model)


class BundlePredictions(Shape):
    file: str = FILE_NAME
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    rows: int = Field(ge=0)


class ResultBundle(Shape):
    """result.json of a bundle."""

    format: str = Field(default=BUNDLE_FORMAT, pattern=f"^{BUNDLE_FORMAT}$")
    key: dict[str, Any]
    run_key: str | None = None
    model: BundleModel
    tier: Tier
    status: ResultStatus = "in_review"
    status_reason: str = ""
    eval_date: str
    primary_metric: str
    metrics: list[MetricValue]
    bootstrap: Bootstrap
    n: int = Field(ge=0)
    parse_rate: float | None = Field(default=None, ge=0, le=1)
    cost_usd: float | None = Field(default=None, ge=0)
    versions: dict[str, Any]
    instance_set_hash: str
    predictions: BundlePredictions


@dataclass(frozen=True)
class StoredResult:
    run_id: str
    run_key: str
    created: bool


def check_key(bundle: ResultBundle, task: Task) -> None:
    key = bundle.key
    if set(key) != {"model", "task", "harness", "config"}:
        raise BadRequest("key must hold exactly model, task, harness and config")
    if key["task"] != {"slug": task.slug, "version": task.version, "spec_hash": task.spec_hash}:
        raise BadRequest(f"the result was computed on {key['task']}, but {task.ref} has spec_hash {task.spec_hash}")
    if key["model"] != {"slug": bundle.model.slug, "version": bundle.model.version}:
        raise BadRequest(f"key.model {key['model']} does not match the bundle's model")
    if bundle.primary_metric != task.primary_metric:
        raise BadRequest(f"primary metric {bundle.primary_metric!r}; {task.ref} ranks by {task.primary_metric!r}")
    if bundle.primary_metric not in {metric.name for metric in bundle.metrics}:
        raise BadRequest(f"metrics lack the primary metric {bundle.primary_metric!r}")
    try:
        date.fromisoformat(bundle.eval_date)
    except ValueError:
        raise BadRequest(f"eval_date must be YYYY-MM-DD, got {bundle.eval_date[:40]!r}") from None


def check_model(store_model: Model | None, bundle: ResultBundle) -> None:
    if store_model is not None and store_model.version != bundle.model.version:
        raise BadRequest(
            f"model {store_model.slug} is registered at version {store_model.version!r}; "
            f"the result was computed with {bundle.model.version!r}"
        )


def check_predictions(path: Path, bundle: ResultBundle, task: Task, kind: TaskKind) -> None:
    """Hash, schema, row count, unique ids, and the point estimates recomputed from the rows (by the task's kind)."""
    if not path.is_file():
        raise BadRequest(f"missing predictions file {path.name}")
    if file_sha256(path) != bundle.predictions.sha256:
        raise BadRequest("predictions sha256 does not match the bundle")
    try:
        table = read_predictions(path, task.kind, kind.schema)
    except (ValueError, OSError, pa.ArrowException) as error:
        raise BadRequest(f"predictions file is not a valid {task.kind} table: {str(error)[:300]}") from None
    if not (table.num_rows == bundle.n == bundle.predictions.rows):
        raise BadRequest(f"{table.num_rows} prediction rows, but n={bundle.n} and rows={bundle.predictions.rows}")
    ids = table.column("instance_id").to_pylist()
    if len(set(ids)) != table.num_rows:
        raise BadRequest("instance_id values in the predictions file are not unique")
    if instance_set_hash(ids) != bundle.instance_set_hash:
        raise BadRequest("instance_set_hash does not match the instance ids of the predictions file")
    expected = orjson.loads(task.spec_json)["dataset"].get("expected_items")
    if expected is not None and not bundle.key["config"].get("partial", False) and table.num_rows != expected:
        raise BadRequest(
            f"{task.ref} has {expected} items; a complete result must score all of them, not {table.num_rows}"
        )
    recomputed = kind.point_metrics(table) if table.num_rows else {}
    for metric in bundle.metrics:
        if metric.name in recomputed and not same_value(metric.value, recomputed[metric.name]):
            raise BadRequest(
                f"{metric.name} is {metric.value} in result.json but {recomputed[metric.name]} from the predictions"
            )


def same_value(claimed: float | None, computed: float | None) -> bool:
    if claimed is None or computed is None:
        return claimed is computed
    return abs(claimed - computed) <= METRIC_TOLERANCE


def place_predictions(source: Path, destination: Path) -> None:
    """Copy the file into the artifacts folder atomically and durably (temp file, fsync, rename)."""
    if source.resolve() != destination.resolve():
        copy_durably(source, destination)  # the rename too survives a crash before the row is inserted


def result_row(registry: Registry, bundle: ResultBundle, task: Task, model_name: str) -> Result:
    key = run_key_of(bundle.key)
    run_id = run_id_of(key)
    config = bundle.key["config"]
    return Result(
        run_id=run_id,
        run_key=key,
        key_json=canonical_json(bundle.key).decode(),
        model_slug=bundle.model.slug,
        task_slug=task.slug,
        task_version=task.version,
        spec_hash=task.spec_hash,
        tier=bundle.tier,
        status=bundle.status,
        partial=bool(config.get("partial", False)),
        primary_metric=bundle.primary_metric,
        primary_value=next(m.value for m in bundle.metrics if m.name == bundle.primary_metric),
        metrics_json=canonical_json(
            {
                "metrics": [m.model_dump() for m in bundle.metrics],
                "bootstrap": bundle.bootstrap.model_dump(),
            }
        ).decode(),
        n=bundle.n,
        n_units=bundle.bootstrap.n_units,
        parse_rate=bundle.parse_rate,
        cost_usd=bundle.cost_usd,
        eval_date=bundle.eval_date,
        config_json=canonical_json(config).decode(),
        versions_json=canonical_json(bundle.versions).decode(),
        instance_set_hash=bundle.instance_set_hash,
        predictions_path=f"{run_id}/{FILE_NAME}",
        predictions_sha256=bundle.predictions.sha256,
        predictions_rows=bundle.predictions.rows,
        bibtex=result_bibtex(
            run_id=run_id,
            run_key=key,
            model_name=model_name,
            model_slug=bundle.model.slug,
            task_ref=task.ref,
            task_title=task.title,
            spec_hash=task.spec_hash,
            eval_date=bundle.eval_date,
            url=registry.result_url(run_id),
            dataset_citation=dataset_credit(registry, task).citation,
        ),
        status_reason=bundle.status_reason,
        created_at=utc_now(),
    )


async def store_result(registry: Registry, bundle: ResultBundle, predictions: Path) -> StoredResult:
    """Validate and store one result; a run key already stored is returned untouched (created=False)."""
    store = registry.store
    key = run_key_of(bundle.key)
    if bundle.run_key is not None and bundle.run_key != key:
        raise BadRequest(f"run_key {bundle.run_key[:64]} is not the sha256 of the key ({key})")
    existing = result_store.get_result_by_key(store, key)
    if existing is not None:
        return StoredResult(existing.run_id, key, created=False)
    task = task_store.get_task(
        store,
        str(bundle.key.get("task", {}).get("slug", "")),
        int(bundle.key.get("task", {}).get("version", -1)),
    )
    if task is None:
        raise BadRequest(f"the bundle's task {bundle.key.get('task')} is not registered here")
    check_key(bundle, task)
    known_model = model_store.get_model(store, bundle.model.slug)
    check_model(known_model, bundle)
    await asyncio.to_thread(check_predictions, predictions, bundle, task, registry.kind(task.kind))
    row = result_row(registry, bundle, task, known_model.name if known_model else bundle.model.name)
    await asyncio.to_thread(place_predictions, predictions, registry.predictions_path(row.predictions_path))
    async with store.transaction() as db:
        if known_model is None:
            await model_store.write_model(db, Model(**bundle.model.model_dump()))
        if await result_store.run_key_taken(db, key):  # stored by another writer meanwhile
            return StoredResult(row.run_id, key, created=False)
        await result_store.insert_result(db, row)
    if row.status == "published" and not row.partial:
        await refresh_rank_ranges(registry, task.slug, task.version)
    return StoredResult(row.run_id, key, created=True)


def read_bundle(directory: Path) -> ResultBundle:
    path = directory / RESULT_FILE
    if not path.is_file():
        raise BadRequest(f"{directory} holds no {RESULT_FILE}")
    try:
        return ResultBundle.model_validate(orjson.loads(path.read_bytes()))
    except orjson.JSONDecodeError as error:
        raise BadRequest(f"{RESULT_FILE} is not JSON: {error}") from None
    except ValidationError as error:
        raise BadRequest(f"{RESULT_FILE} does not match the bundle format: {error}") from None


async def import_result(registry: Registry, directory: Path) -> StoredResult:
    """Load a bundle directory (result.json + predictions.parquet) into the store."""
    bundle = read_bundle(directory)
    if Path(bundle.predictions.file).name != bundle.predictions.file:
        raise BadRequest("predictions.file must be a plain file name inside the bundle")
    return await store_result(registry, bundle, directory / bundle.predictions.file)


def bundle_of(result: Result, model: Model) -> ResultBundle:
    metrics = orjson.loads(result.metrics_json)
    return ResultBundle.from_row(
        result,
        key=orjson.loads(result.key_json),
        model=BundleModel.of(model),
        metrics=[MetricValue(**m) for m in metrics["metrics"]],
        bootstrap=Bootstrap(**metrics["bootstrap"]),
        versions=orjson.loads(result.versions_json),
        predictions=BundlePredictions(sha256=result.predictions_sha256, rows=result.predictions_rows),
    )


async def export_result(registry: Registry, run_id: str, directory: Path) -> Path:
    """Write one stored result as a bundle directory; return the directory."""
    result = stored_result(registry, run_id)
    model = model_store.get_model(registry.store, result.model_slug)
    assert model is not None  # a foreign key guarantees it
    directory.mkdir(parents=True, exist_ok=True)
    bundle = bundle_of(result, model)
    (directory / RESULT_FILE).write_bytes(orjson.dumps(bundle.model_dump(mode="json"), option=orjson.OPT_INDENT_2))
    await asyncio.to_thread(shutil.copyfile, registry.predictions_path(result.predictions_path), directory / FILE_NAME)
    return directory
