"""The /v1 routes on the real app (with its lifespan) over a populated store."""

from __future__ import annotations

import csv
import io

import httpx
import pyarrow.parquet as pq
import pytest

from tests.populate import HARI, MAJORITY, MEDGEMMA, PENDING

pytestmark = pytest.mark.anyio


async def flush_usage(client: httpx.AsyncClient) -> None:
    """Reuse events are written in batches; the app writes them on shutdown or every few seconds.
    Reading /v1/stats after a short bounded poll would be a sleep, so tests read the counter directly."""
    runtime = client._transport.app.state.runtime  # type: ignore[attr-defined]
    await runtime.registry.usage.flush(runtime.registry.store)


async def test_datasets_carry_licence_licence_url_and_citation(client: httpx.AsyncClient) -> None:
    body = (await client.get("/v1/datasets")).json()
    clinicalqa = next(d for d in body["datasets"] if d["slug"] == "clinicalqa")
    assert clinicalqa["license_url"].startswith("https://")
    assert "10.23421/2026.0800" in clinicalqa["citation"]
    assert "2025-04-04" in clinicalqa["notes"]


async def test_tasks_list_both_seed_tasks_as_published_previews(client: httpx.AsyncClient) -> None:
    tasks = {t["task"]: t for t in (await client.get("/v1/tasks")).json()["tasks"]}
    for ref in ("clinicalqa@0", "vitaldb-ioh@0"):
        assert tasks[ref]["preview"] and tasks[ref]["status"] == "published" and not tasks[ref]["demo"]
        assert len(tasks[ref]["spec_hash"]) == 64


async def test_a_task_spec_is_served_with_the_hash_of_its_canonical_json(client: httpx.AsyncClient) -> None:
    from evaluator.canonical import canonical_hash

    body = (await client.get("/v1/tasks/vitaldb-ioh", params={"version": 0})).json()
    assert body["spec_hash"] == canonical_hash(body["spec"])
    assert body["spec"]["label"]["threshold_mmhg"] == 65
    assert [v["version"] for v in body["versions"]] == [0]


async def test_leaderboard_ranks_published_complete_results_best_first(
    data_client: httpx.AsyncClient,
) -> None:
    body = (await data_client.get("/v1/leaderboard", params={"task": "clinicalqa@0"})).json()
    rows = body["rows"]
    assert next(r["model"]["slug"] for r in rows) == MEDGEMMA.slug
    assert PENDING.slug not in {r["model"]["slug"] for r in rows}  # in review: not on the leaderboard
    values = [r["metric"]["value"] for r in rows]
    assert values == sorted(values, reverse=True)
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    first = rows[0]
    assert set(first) == {
        "rank",
        "run_id",
        "task",
        "model",
        "tier",
        "metric",
        "n",
        "n_items",
        "n_units",
        "unit",
        "parse_rate",
        "cost_usd",
        "eval_date",
        "url",
        "rank_range",
        "status",
    }
    assert first["n_items"] == first["n"] and first["unit"] == "question"
    assert body["total"] == len(rows) and body["next"] is None
    assert first["metric"]["ci_low"] <= first["metric"]["value"] <= first["metric"]["ci_high"]
    assert first["url"] == f"http://testserver/r/{first['run_id']}"


async def test_leaderboard_filters_keep_each_rows_full_rank(data_client: httpx.AsyncClient) -> None:
    board = (await data_client.get("/v1/leaderboard", params={"task": "clinicalqa", "model_type": "baseline"})).json()
    assert [r["model"]["slug"] for r in board["rows"]] == [MAJORITY.slug]
    assert board["rows"][0]["rank"] == 4
    limited = (await data_client.get("/v1/leaderboard", params={"task": "clinicalqa@0", "limit": 2})).json()
    assert len(limited["rows"]) == 2
    tiered = (await data_client.get("/v1/leaderboard", params={"task": "clinicalqa@0", "tier": "standard"})).json()
    assert {r["tier"] for r in tiered["rows"]} == {"standard"}


async def test_lookup_accepts_a_slug_or_a_provider_model_id(data_client: httpx.AsyncClient) -> None:
    by_slug = (await data_client.get("/v1/lookup", params={"model": HARI.slug, "task": "clinicalqa@0"})).json()
    by_id = (await data_client.get("/v1/lookup", params={"model": "hari-q3-8b", "task": "clinicalqa"})).json()
    assert by_slug["status"] == by_id["status"] == "evaluated"
    assert by_slug["result"]["run_id"] == by_id["result"]["run_id"]
    assert by_slug["result"]["model"]["slug"] == HARI.slug


async def test_lookup_says_not_evaluated_and_in_review_honestly(data_client: httpx.AsyncClient) -> None:
    missing = (await data_client.get("/v1/lookup", params={"model": HARI.slug, "task": "vitaldb-ioh@0"})).json()
    assert missing["status"] == "not_evaluated" and missing["result"] is None and missing["model_known"] is True
    assert missing["progress"] is None and missing["request_id"] is None and "/v1/requests" in missing["hint"]
    unknown = (await data_client.get("/v1/lookup", params={"model": "nobody/new-7b", "task": "clinicalqa@0"})).json()
    assert unknown["status"] == "not_evaluated" and unknown["model_known"] is False  # not an error
    pending = (await data_client.get("/v1/lookup", params={"model": PENDING.slug, "task": "clinicalqa@0"})).json()
    assert pending["status"] == "in_review" and pending["result"]["status"] == "in_review"


async def test_each_lookup_that_finds_a_result_counts_one_reuse(data_client: httpx.AsyncClient) -> None:
    for _ in range(3):
        await data_client.get("/v1/lookup", params={"model": HARI.slug, "task": "clinicalqa@0"})
    await data_client.get("/v1/lookup", params={"model": HARI.slug, "task": "vitaldb-ioh@0"})  # not found
    await flush_usage(data_client)
    reuses = (await data_client.get("/v1/stats")).json()["reuses"]
    assert reuses["lookups"] == 3


async def test_a_result_has_every_metric_with_ci_config_versions_and_bibtex(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    run_id = run_ids["baseline/last-map@vitaldb-ioh@0"]
    body = (await data_client.get(f"/v1/results/{run_id}")).json()
    assert {m["name"] for m in body["metrics"]} == {"auroc", "auprc"}
    assert body["bootstrap"]["unit"] == "patient" and body["bootstrap"]["replicates"] > 0
    assert body["versions"]["harness"] and body["spec_hash"] == body["key"]["task"]["spec_hash"]
    assert body["bibtex"].startswith(f"@misc{{benchtoward_{run_id}")
    assert "Lee HC" in body["bibtex"]  # asks users to cite the dataset too
    assert body["predictions"]["url"].endswith(f"/artifacts/{run_id}/predictions.parquet")


async def test_results_match_every_filter(data_client: httpx.AsyncClient) -> None:
    everything = (await data_client.get("/v1/results")).json()["results"]
    assert {r["task"] for r in everything} == {"clinicalqa@0", "vitaldb-ioh@0"}
    llms = (await data_client.get("/v1/results", params={"dataset": "clinicalqa", "model_type": "llm"})).json()
    assert {r["model"]["type"] for r in llms["results"]} == {"llm"}
    assert {r["task"] for r in llms["results"]} == {"clinicalqa@0"}
    one = (await data_client.get("/v1/results", params={"model": "medgemma-27b", "task": "clinicalqa"})).json()
    assert [r["model"]["slug"] for r in one["results"]] == [MEDGEMMA.slug]


async def test_predictions_download_is_the_stored_parquet_file(
    data_client: httpx.AsyncClient, run_ids: dict[str, str], tmp_path
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    response = await data_client.get(f"/artifacts/{run_id}/predictions.parquet")
    assert response.status_code == 200
    (tmp_path / "p.parquet").write_bytes(response.content)
    table = pq.read_table(tmp_path / "p.parquet")
    assert table.num_rows == 1045 and "correct" in table.column_names
    preview = (await data_client.get(f"/v1/predictions/{run_id}", params={"limit": 3})).json()
    assert preview["rows"] == 1045 and len(preview["head"]) == 3
    assert preview["head"][0]["instance_id"] == table.column("instance_id")[0].as_py()


async def test_leaderboard_csv_has_one_row_per_result(data_client: httpx.AsyncClient) -> None:
    response = await data_client.get("/v1/leaderboard.csv", params={"task": "clinicalqa@0"})
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert next(r["model_slug"] for r in rows) == MEDGEMMA.slug and len(rows) == 4


async def test_downloads_count_once_per_visitor_file_and_day(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    for _ in range(3):
        await data_client.get(f"/artifacts/{run_id}/predictions.parquet")
        await data_client.get(f"/v1/results/{run_id}")
    await data_client.get("/v1/leaderboard.csv", params={"task": "clinicalqa@0"})
    await data_client.get(f"/v1/results/{run_ids[f'{PENDING.slug}@clinicalqa@0']}")  # not listed: not counted
    await data_client.get(f"/v1/results/{run_id}", headers={"user-agent": "Googlebot/2.1"})  # a crawler
    await flush_usage(data_client)
    reuses = (await data_client.get("/v1/stats")).json()["reuses"]
    assert reuses["downloads"] == 3


async def test_stats_count_published_results_and_their_known_cost(data_client: httpx.AsyncClient) -> None:
    body = (await data_client.get("/v1/stats")).json()
    assert body["results"] == 5  # four on ClinicalQA, one on VitalDB; the in-review one is not counted
    assert body["models_evaluated"] == 5
    assert body["total_cost_usd"] == pytest.approx(3 * 1045 * 0.0002)
