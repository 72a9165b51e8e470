"""Every bad input on every route gets `{"error": CODE, "message": ...}` with the right status — never a 500."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.anyio

LONG = "x" * 5000
SQL = "clinicalqa' OR '1'='1"

CASES = [
    ("/v1/tasks/nope", 404, "task_not_found"),
    ("/v1/tasks/clinicalqa?version=7", 404, "task_not_found"),
    ("/v1/tasks/clinicalqa?version=abc", 400, "bad_request"),
    ("/v1/tasks/clinicalqa?version=-1", 400, "bad_request"),
    (f"/v1/tasks/{LONG}", 400, "bad_request"),
    ("/v1/leaderboard", 400, "bad_request"),
    ("/v1/leaderboard?task=@@", 400, "bad_request"),
    ("/v1/leaderboard?task=clinicalqa&limit=-1", 400, "bad_request"),
    ("/v1/leaderboard?task=clinicalqa&limit=abc", 400, "bad_request"),
    ("/v1/leaderboard?task=clinicalqa&limit=100000", 400, "bad_request"),
    ("/v1/leaderboard?task=clinicalqa&tier=gold", 400, "bad_request"),
    ("/v1/leaderboard?task=nope@3", 404, "task_not_found"),
    (f"/v1/leaderboard?task={SQL}", 400, "bad_request"),
    ("/v1/leaderboard.csv?task=nope", 404, "task_not_found"),
    ("/v1/leaderboard.csv", 400, "bad_request"),
    ("/v1/results?dataset=nope", 404, "dataset_not_found"),
    ("/v1/results?task=nope", 404, "task_not_found"),
    ("/v1/results?model=nobody/none", 404, "model_not_found"),
    ("/v1/results?limit=0", 400, "bad_request"),
    (f"/v1/results?model={LONG}", 400, "bad_request"),
    ("/v1/results/000000000000", 404, "run_not_found"),
    ("/v1/results/%2e%2e%2fetc", 404, "not_found"),
    ("/v1/lookup", 400, "bad_request"),
    ("/v1/lookup?model=x", 400, "bad_request"),
    ("/v1/model?model=kgpu/none", 404, "model_not_found"),
    ("/v1/lookup?model=x&task=clinicalqa@9", 404, "task_not_found"),
    (f"/v1/lookup?model={SQL}&task=clinicalqa", 400, "bad_request"),
    ("/v1/predictions/zzz", 404, "run_not_found"),
    ("/v1/predictions/000000000000?limit=1000", 400, "bad_request"),
    ("/artifacts/000000000000/predictions.parquet", 404, "run_not_found"),
    ("/v1/benchmarks/nope", 404, "benchmark_not_found"),
    ("/v1/benchmarks/medbench?revision=99", 404, "benchmark_not_found"),
    ("/v1/benchmarks/medbench?revision=0", 400, "bad_request"),
    ("/v1/benchmarks/medbench?revision=abc", 400, "bad_request"),
    ("/v1/benchmarks/Not%20An%20Id", 400, "bad_request"),
    (f"/v1/benchmarks/{LONG}", 400, "bad_request"),
    ("/v1/benchmarks?limit=0", 400, "bad_request"),
    ("/v1/benchmarks?limit=abc", 400, "bad_request"),
    ("/v1/benchmarks?limit=100000", 400, "bad_request"),
    ("/v1/benchmarks?runs_here=perhaps", 400, "bad_request"),
    (f"/v1/benchmarks?q={LONG}", 400, "bad_request"),
    ("/v1/benchmarks?q=%22%28%29*%3A", 400, "bad_request"),
    (f"/v1/benchmarks?tag={SQL}", 400, "bad_request"),
    ("/v1/benchmarks?language=korean!", 400, "bad_request"),
    ("/v1/benchmarks?status=Runs%20Here", 400, "bad_request"),
    ("/v1/compare", 400, "bad_request"),
    ("/v1/compare?task=clinicalqa@0&a=000000000000", 400, "bad_request"),
    ("/v1/compare?task=clinicalqa@0&a=000000000000&b=000000000001", 404, "run_not_found"),
    ("/v1/compare?task=nope@0&a=000000000000&b=000000000001", 404, "task_not_found"),
    (f"/v1/compare?task=clinicalqa@0&a={LONG}&b=x", 400, "bad_request"),
    ("/v1/nope", 404, "not_found"),
    ("/v1", 404, "not_found"),
]


@pytest.mark.parametrize(("url", "status", "code"), CASES, ids=[c[0][:60] for c in CASES])
async def test_bad_input_gets_a_json_error_with_a_stable_code(
    client: httpx.AsyncClient, url: str, status: int, code: str
) -> None:
    response = await client.get(url)
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) <= {"error", "message", "suggestions"}
    assert body["error"] == code and body["message"]
    if "suggestions" in body:  # close known names, on the not-found errors that have them, named in the message
        assert code in {"task_not_found", "model_not_found"} and 1 <= len(body["suggestions"]) <= 3
        assert all(name in body["message"] for name in body["suggestions"])
    assert "Traceback" not in body["message"]


@pytest.mark.parametrize("path", ["/v1/lookup", "/v1/tasks", "/v1/results/000000000000", "/v1/benchmarks"])
async def test_a_wrong_method_is_method_not_allowed(client: httpx.AsyncClient, path: str) -> None:
    response = await client.post(path, json={})
    assert response.status_code == 405
    assert response.json()["error"] == "method_not_allowed"


async def test_an_unknown_page_is_an_html_error_page(client: httpx.AsyncClient) -> None:
    response = await client.get("/no-such-page")
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    assert "not_found" in response.text


@pytest.mark.parametrize(
    "path",
    [
        "/artifacts/..%2F..%2Fetc%2Fpasswd/predictions.parquet",
        "/artifacts/../benchtoward.db",
        "/artifacts/%2e%2e/benchtoward.db",
        "/static/../../server/app.py",
    ],
)
async def test_paths_that_climb_out_of_artifacts_find_nothing(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 404
    assert b"SQLite format" not in response.content and b"build_app" not in response.content
