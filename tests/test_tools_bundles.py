"""Result bundles: the one validating path into the store, idempotent by run key, all or nothing."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import orjson
import pytest

from evaluator.canonical import file_sha256
from store import Store
from store import results as result_store
from tests.factory import FakeModel, write_bundle
from tests.populate import HARI
from tools.bundles import export_result, import_result
from tools.errors import BadRequest
from tools.registry import Registry
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio


def dump(path: Path) -> list[tuple[object, ...]]:
    """Every row of every table, to compare a database before and after."""
    with sqlite3.connect(path) as connection:
        tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return [(t, *row) for t in sorted(tables) for row in connection.execute(f"SELECT * FROM {t} ORDER BY 1")]


def edit(directory: Path, **changes: object) -> None:
    path = directory / "result.json"
    data = orjson.loads(path.read_bytes())
    data.update(changes)
    path.write_bytes(orjson.dumps(data))


async def test_importing_a_bundle_stores_it_once_and_a_second_import_changes_nothing(
    registry: Registry, tmp_path: Path
) -> None:
    bundle = write_bundle(tmp_path / "b", task="clinicalqa@0", model=HARI, quality=0.7)
    first = await import_result(registry, bundle)
    before = dump(registry.store.path)
    second = await import_result(registry, bundle)
    assert first.created and not second.created
    assert second.run_id == first.run_id
    assert dump(registry.store.path) == before
    stored = result_store.get_result(registry.store, first.run_id)
    assert stored is not None and stored.run_key.startswith(first.run_id)
    assert file_sha256(registry.predictions_path(stored.predictions_path)) == stored.predictions_sha256


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            lambda d: edit(d, metrics=[{"name": "accuracy", "value": 0.99, "ci_low": 0.9, "ci_high": 1.0}]),
            "from the predictions",
        ),
        (lambda d: edit(d, run_key="0" * 64), "not the sha256"),
        (
            lambda d: edit(d, predictions={"file": "predictions.parquet", "sha256": "0" * 64, "rows": 1045}),
            "sha256 does not match",
        ),
        (lambda d: edit(d, instance_set_hash="0" * 64), "instance_set_hash"),
        (lambda d: edit(d, eval_date="yesterday"), "eval_date"),
        (lambda d: edit(d, primary_metric="f1"), "primary metric"),
        (lambda d: (d / "predictions.parquet").write_bytes(b"PAR1 not really"), "sha256 does not match"),
        (lambda d: (d / "result.json").write_bytes(b"{not json"), "not JSON"),
        (lambda d: (d / "predictions.parquet").unlink(), "missing predictions"),
    ],
    ids=[
        "claimed-metric",
        "run-key",
        "file-hash",
        "instance-set",
        "date",
        "metric-name",
        "corrupt-file",
        "bad-json",
        "no-file",
    ],
)
async def test_an_invalid_bundle_is_refused_with_a_reason_and_nothing_is_stored(
    registry: Registry,
    tmp_path: Path,
    damage,
    message: str,  # type: ignore[no-untyped-def]
) -> None:
    bundle = write_bundle(tmp_path / "b", task="clinicalqa@0", model=HARI, quality=0.7)
    damage(bundle)
    before = dump(registry.store.path)
    with pytest.raises(BadRequest, match=message):
        await import_result(registry, bundle)
    assert dump(registry.store.path) == before
    assert not registry.artifacts_dir.exists() or not any(registry.artifacts_dir.rglob("*.parquet"))


async def test_a_result_computed_on_another_spec_is_refused(registry: Registry, tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "b", task="clinicalqa@0", model=HARI, quality=0.7)
    data = orjson.loads((bundle / "result.json").read_bytes())
    data["key"]["task"]["spec_hash"] = "f" * 64
    data["run_key"] = None
    (bundle / "result.json").write_bytes(orjson.dumps(data))
    with pytest.raises(BadRequest, match="spec_hash"):
        await import_result(registry, bundle)


async def test_a_complete_result_must_score_every_item_of_the_task(registry: Registry, tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "b", task="clinicalqa@0", model=HARI, quality=0.7, n=100)
    with pytest.raises(BadRequest, match="1045 items"):
        await import_result(registry, bundle)
    partial = write_bundle(
        tmp_path / "p",
        task="clinicalqa@0",
        model=HARI,
        quality=0.7,
        n=100,
        config={"adapter": "test-fixture", "temperature": 0, "partial": True, "limit": 100},
    )
    stored = await import_result(registry, partial)
    assert result_store.get_result(registry.store, stored.run_id).partial  # type: ignore[union-attr]


async def test_a_model_registered_at_another_version_is_refused(registry: Registry, tmp_path: Path) -> None:
    await import_result(registry, write_bundle(tmp_path / "a", task="clinicalqa@0", model=HARI, quality=0.7))
    newer = FakeModel(HARI.slug, HARI.name, provider_model_id=HARI.provider_model_id, version="2027-01")
    with pytest.raises(BadRequest, match="registered at version"):
        await import_result(registry, write_bundle(tmp_path / "b", task="clinicalqa@0", model=newer, quality=0.7))


async def test_export_then_import_into_a_fresh_store_gives_the_same_result(registry: Registry, tmp_path: Path) -> None:
    stored = await import_result(registry, write_bundle(tmp_path / "a", task="vitaldb-ioh@0", model=HARI, quality=1.0))
    exported = await export_result(registry, stored.run_id, tmp_path / "exported")
    fresh = await Store.open(tmp_path / "fresh.db")
    try:
        await sync_specs(fresh)
        other = Registry(store=fresh, public_url=registry.public_url, artifacts_dir=tmp_path / "fresh-artifacts")
        again = await import_result(other, exported)
        assert again.run_id == stored.run_id and again.created
        original = result_store.get_result(registry.store, stored.run_id)
        copy = result_store.get_result(fresh, stored.run_id)
        assert original is not None and copy is not None
        assert {**vars(copy), "created_at": ""} == {**vars(original), "created_at": ""}
    finally:
        await fresh.close()
    shutil.rmtree(exported)


async def test_a_result_shown_by_another_deployment_cites_that_deployments_url(
    registry: Registry, tmp_path: Path
) -> None:
    from tools.results import detail

    stored = await import_result(registry, write_bundle(tmp_path / "a", task="clinicalqa@0", model=HARI, quality=0.7))
    row = result_store.get_result(registry.store, stored.run_id)
    assert row is not None
    elsewhere = Registry(store=registry.store, public_url="https://bench.example.org", artifacts_dir=tmp_path)
    shown = detail(elsewhere, row)
    assert f"https://bench.example.org/r/{stored.run_id}" in shown.bibtex
    assert shown.url == f"https://bench.example.org/r/{stored.run_id}"
