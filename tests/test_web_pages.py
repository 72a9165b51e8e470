"""Server-rendered pages show what /v1 shows, escape every user-supplied string and set no cookie."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from server.settings import Settings
from store import Store
from tests.conftest import running
from tests.factory import FakeModel, write_bundle
from tests.populate import HARI, MEDGEMMA
from tools.bundles import import_result
from tools.registry import Registry
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio
HOSTILE = FakeModel("evil/xss", '<script>alert(1)</script>"><img src=x onerror=alert(2)>')


async def test_home_shows_counts_tasks_and_the_agents_link(data_client: httpx.AsyncClient) -> None:
    page = await data_client.get("/")
    assert page.status_code == 200
    assert 'href="/llms.txt"' in page.text and "clinicalqa@0" in page.text
    assert "set-cookie" not in page.headers


async def test_task_page_lists_the_leaderboard_and_the_dataset_credit(data_client: httpx.AsyncClient) -> None:
    page = await data_client.get("/tasks/clinicalqa")
    assert page.status_code == 200
    assert page.text.index(MEDGEMMA.name) < page.text.index(HARI.name)
    assert "10.23421/2026.0800" in page.text and "2025-04-04" in page.text


async def test_result_page_shows_metrics_bibtex_and_links(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    page = await data_client.get(f"/r/{run_id}")
    assert page.status_code == 200
    assert f"benchtoward_{run_id}" in page.text and f"/artifacts/{run_id}/predictions.parquet" in page.text


async def test_a_hostile_model_name_is_escaped_on_every_page(settings: Settings, tmp_path: Path) -> None:
    store = await Store.open(settings.db)
    await sync_specs(store)
    registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
    stored = await import_result(
        registry, write_bundle(tmp_path / "x", task="clinicalqa@0", model=HOSTILE, quality=0.5)
    )
    await store.close()
    async with running(settings) as client:
        for path in ("/", "/tasks/clinicalqa", f"/r/{stored.run_id}"):
            page = await client.get(path)
            assert "<script>alert(1)" not in page.text and "<img src=x" not in page.text
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
