"""Server-rendered pages show what /v1 shows, escape every user-supplied string, set no cookie and carry no
inline script or style (the CSP allows neither)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from starlette.routing import Route

from server.app import build_app
from server.settings import Settings
from store import Store
from store import results as result_store
from tests.conftest import running
from tests.factory import FakeModel, write_bundle
from tests.populate import GPT_OSS, HARI, LAST_MAP, MAJORITY, MEDGEMMA, PENDING
from tools.bundles import import_result
from tools.registry import Registry
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio
HOSTILE = FakeModel("evil/xss", '<script>alert(1)</script>"><img src=x onerror=alert(2)>')
STATIC_PAGES = ["/", "/tasks", "/datasets", "/about", "/authors", "/privacy", "/disclaimer"]
INLINE_CODE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|\sstyle=|\son[a-z]+=", re.IGNORECASE)


def page_paths(run_ids: dict[str, str]) -> list[str]:
    """One path of every page type, over the fixture results."""
    return [
        *STATIC_PAGES,
        "/tasks/clinicalqa",
        "/tasks/vitaldb-ioh?version=0",
        "/tasks/clinicalqa-upstream-demo",
        f"/r/{run_ids[f'{HARI.slug}@clinicalqa@0']}",
        f"/r/{run_ids[f'{PENDING.slug}@clinicalqa@0']}",
        f"/models/{MEDGEMMA.slug}",
    ]


def main_text(html: str) -> str:
    return html.split('<main id="main">', 1)[1].split("</main>", 1)[0]


async def test_home_shows_counts_tasks_and_the_agents_link(data_client: httpx.AsyncClient) -> None:
    page = await data_client.get("/")
    assert page.status_code == 200
    assert 'href="/llms.txt"' in page.text and "clinicalqa@0" in page.text
    assert "http://testserver/mcp" in page.text  # the MCP endpoint, as agents should configure it
    for label in ("Results on real data", "Results on demo data", "Models evaluated", "Task versions", "Reuses"):
        assert f"<dt>{label}</dt>" in page.text
    latest = page.text.split('id="latest-heading"', 1)[1]
    assert latest.count('href="/r/') == 5  # latest published results; the in-review one is not listed
    boards = page.text.split('id="boards-heading"', 1)[1].split('id="counts-heading"', 1)[0]
    assert boards.index("ClinicalQA") < boards.index(MEDGEMMA.name)  # the home page leads with leaderboards
    assert "<title>BenchToward: open leaderboards" in page.text and '<meta name="description"' in page.text
    assert "set-cookie" not in page.headers


async def test_home_and_task_pages_read_well_with_no_results(client: httpx.AsyncClient) -> None:
    home = await client.get("/")
    assert "No published results yet" in home.text and "<dd>0</dd>" in home.text
    assert "Demo instance" not in home.text  # no results at all is no demo instance
    task = await client.get("/tasks/clinicalqa")
    assert task.status_code == 200 and "No results on this version yet" in task.text
    assert "request_evaluation" in task.text and 'href="/llms.txt"' in task.text  # the way forward
    assert "<svg" not in task.text and "Download this leaderboard" not in task.text  # nothing to plot or download


async def test_tasks_index_lists_every_version_with_its_status_and_results(data_client: httpx.AsyncClient) -> None:
    page = await data_client.get("/tasks")
    body = (await data_client.get("/v1/tasks")).json()["tasks"]
    text = main_text(page.text)
    for task in body:
        assert f'href="/tasks/{task["slug"]}?version={task["version"]}"' in text
    row = text.split('href="/tasks/clinicalqa?version=0"', 1)[1].split("</tr>", 1)[0]
    assert "published" in row and "preview" in row and 'data-label="Results">4</td>' in row and "Accuracy" in row
    assert "demo data" in text and "in review" in text  # badges and the status legend


async def test_task_page_lists_the_leaderboard_and_the_dataset_credit(data_client: httpx.AsyncClient) -> None:
    page = await data_client.get("/tasks/clinicalqa")
    assert page.status_code == 200
    assert page.text.index(MEDGEMMA.name) < page.text.index(HARI.name)
    assert "10.23421/2026.0800" in page.text and "2025-04-04" in page.text
    assert "https://creativecommons.org/licenses/by/4.0/" in page.text


async def test_task_page_shows_the_spec_with_its_hash_and_the_version_history(data_client: httpx.AsyncClient) -> None:
    detail = (await data_client.get("/v1/tasks/clinicalqa?version=0")).json()
    page = (await data_client.get("/tasks/clinicalqa?version=0")).text
    assert detail["spec_hash"] in page
    assert "<details>" in page and '"primary_metric": "accuracy"' in page  # the spec, as text
    assert "First public version (p0)." in page and 'aria-current="page"' in page
    assert 'href="/v1/tasks/clinicalqa?version=0"' in page


async def test_each_rank_has_a_focusable_rank_range_described_for_screen_readers(
    data_client: httpx.AsyncClient,
) -> None:
    board = (await data_client.get("/v1/leaderboard", params={"task": "clinicalqa@0"})).json()
    page = (await data_client.get("/tasks/clinicalqa")).text
    ranks = re.findall(r'<span class="rk" tabindex="0" aria-describedby="(rr\d+)">(\d+|ref\.)</span>', page)
    assert len(ranks) == len(board["rows"])
    for (tip, rank), row in zip(ranks, board["rows"], strict=True):
        if row["model"]["type"] == "baseline":  # a reference row: unranked on the page
            assert rank == "ref." and f'id="{tip}">Baseline: a reference' in page
            continue
        assert int(rank) == row["rank"]
        best, worst = row["rank_range"]  # computed when the fixture results were imported
        span = str(best) if best == worst else f"{best}–{worst}"  # "1", never "1–1"
        assert f'role="tooltip" id="{tip}">95% rank range: {span}</span>' in page
        if best != worst:  # a shared rank reads inline, not only in the tooltip
            assert f'{rank}</span><span class="rr" aria-hidden="true">{span}</span>' in page
    assert board["rank_range_note"] in page


async def test_leaderboard_filters_work_from_query_parameters(data_client: httpx.AsyncClient) -> None:
    baselines = (await data_client.get("/tasks/clinicalqa", params={"model_type": "baseline"})).text
    assert MAJORITY.name in baselines and MEDGEMMA.name not in main_text(baselines).split("<svg")[0]
    assert '<option value="baseline" selected>' in baselines
    assert 'href="/v1/leaderboard.csv?task=clinicalqa@0&amp;model_type=baseline"' in baselines
    standard = (await data_client.get("/tasks/clinicalqa", params={"tier": "standard"})).text
    assert GPT_OSS.name in standard and MAJORITY.name not in main_text(standard).split("<svg")[0]  # the table
    none = (await data_client.get("/tasks/clinicalqa", params={"tier": "official"})).text
    assert "No published result on this version matches these filters" in none
    assert '<option value="official"' not in standard  # only the values that occur are offered, with counts
    assert '<option value="standard" selected>standard (' in standard


async def test_leaderboard_sorts_and_searches_from_query_parameters(data_client: httpx.AsyncClient) -> None:
    board = (await data_client.get("/v1/leaderboard", params={"task": "clinicalqa@0"})).json()["rows"]
    by_n = (await data_client.get("/tasks/clinicalqa", params={"sort": "-n"})).text
    names = [row["model"]["name"] for row in sorted(board, key=lambda r: -r["n"])]
    table = by_n.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    positions = [table.index(name) for name in names]
    assert positions == sorted(positions) and 'aria-sort="descending"' in by_n
    found = (await data_client.get("/tasks/clinicalqa", params={"q": "medgemma"})).text
    assert MEDGEMMA.name in found.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert HARI.name not in found.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    empty = await data_client.get("/tasks/clinicalqa?version=0&model_type=&tier=&q=", follow_redirects=False)
    assert empty.status_code == 303 and empty.headers["location"] == "/tasks/clinicalqa?version=0"


async def test_each_leaderboard_offers_to_compare_two_of_its_results(data_client: httpx.AsyncClient) -> None:
    page = (await data_client.get("/tasks/clinicalqa")).text
    form = page.split('<form class="compare"', 1)[1].split("</form>", 1)[0]
    assert 'action="/compare"' in form and 'name="task" value="clinicalqa@0"' in form
    run_ids = [row["run_id"] for row in (await data_client.get("/v1/leaderboard?task=clinicalqa@0")).json()["rows"]]
    assert form.count('name="a"') == form.count('name="b"') == 1
    assert all(form.count(f'value="{run_id}"') == 2 for run_id in run_ids)


async def test_bad_filters_and_versions_get_an_html_error_page(data_client: httpx.AsyncClient) -> None:
    for path, status in [
        ("/tasks/clinicalqa?version=abc", 400),
        ("/tasks/clinicalqa?version=9", 404),
        ("/tasks/nope", 404),
        ("/r/000000000000", 404),
        ("/models/nobody/none", 404),
    ]:
        page = await data_client.get(path)
        assert page.status_code == status, path
        assert page.headers["content-type"].startswith("text/html")
        assert "beacon.js" not in page.text  # an error page is not a visit
        heading = main_text(page.text).split("<h1>", 1)[1].split("</h1>", 1)[0]
        assert "_" not in heading and not heading[0].isdigit(), heading  # words, not "404 not_found"


async def test_error_pages_point_to_what_exists(data_client: httpx.AsyncClient) -> None:
    version = main_text((await data_client.get("/tasks/clinicalqa?version=9")).text)
    assert "<h1>No such version</h1>" in version and 'href="/tasks/clinicalqa?version=0"' in version
    assert "[0]" not in version.split("<details", 1)[0]  # no Python list
    typo = main_text((await data_client.get("/tasks/clinicalq")).text)
    assert "Did you mean" in typo and 'href="/tasks/clinicalqa?version=0"' in typo
    route = main_text((await data_client.get("/nope")).text)
    assert "<h1>Page not found</h1>" in route and "/nope" in route and "not_found" in route.split("<details")[1]


async def test_the_forest_plot_is_server_rendered_svg_with_a_text_alternative(data_client: httpx.AsyncClient) -> None:
    page = (await data_client.get("/tasks/clinicalqa")).text
    svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert 'role="img"' in svg and 'aria-labelledby="forest-title forest-caption"' in svg
    assert '<title id="forest-title">Forest plot of Accuracy on clinicalqa@0, 3 result(s) and 1 reference' in svg
    assert svg.count("<circle") == 3 and svg.count('<g class="pt">') == 3  # the models, as rows
    assert svg.count('class="refline"') == 1 and MAJORITY.name in svg  # the baseline, as a vertical line
    assert "min-width" not in svg
    assert 'id="forest-caption"' in page and "The same numbers are in the table above" in page


async def test_task_page_links_csv_and_json_downloads(data_client: httpx.AsyncClient) -> None:
    page = (await data_client.get("/tasks/clinicalqa")).text
    assert 'href="/v1/leaderboard.csv?task=clinicalqa@0"' in page
    assert 'href="/v1/leaderboard?task=clinicalqa@0"' in page
    assert (await data_client.get("/v1/leaderboard.csv?task=clinicalqa@0")).status_code == 200


async def test_a_demo_task_carries_the_demo_banner(client: httpx.AsyncClient) -> None:
    demo = await client.get("/tasks/clinicalqa-upstream-demo")
    real = await client.get("/tasks/clinicalqa")
    assert 'class="banner demo"' in demo.text and "Demo data." in demo.text
    assert 'class="banner demo"' not in real.text


async def test_result_page_shows_metrics_bibtex_and_links(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{LAST_MAP.slug}@vitaldb-ioh@0"]
    body = (await data_client.get(f"/v1/results/{run_id}")).json()
    page = (await data_client.get(f"/r/{run_id}")).text
    assert f"benchtoward_{run_id}" in page and f"/artifacts/{run_id}/predictions.parquet" in page
    assert f'href="/v1/results/{run_id}"' in page and body["run_key"] in page and body["spec_hash"] in page
    for metric in body["metrics"]:
        label = metric["name"].upper() if metric["name"] in ("auroc", "auprc") else metric["name"].capitalize()
        assert f'<td data-label="Metric">{label}' in page and f"{metric['ci_low']:.3f}–{metric['ci_high']:.3f}" in page
    assert f"{body['bootstrap']['n_units']} patients" in page  # the number of units resampled
    assert body["versions"]["harness"] in page and 'class="copy" data-copy="bibtex" hidden' in page
    assert "Most common answer" not in page and "In review." not in page


async def test_result_page_of_a_result_in_review_says_so(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    page = (await data_client.get(f"/r/{run_ids[f'{PENDING.slug}@clinicalqa@0']}")).text
    assert "<strong>In review.</strong>" in page and "Please do not recompute it" in page


async def test_a_withdrawn_result_keeps_its_page_with_the_reason(settings: Settings, run_ids: dict[str, str]) -> None:
    run_id = run_ids[f"{GPT_OSS.slug}@clinicalqa@0"]
    store = await Store.open(settings.db)
    await result_store.set_result_status(store, run_id, "withdrawn", "the authors reported a <b>wrong</b> template")
    await store.close()
    async with running(settings) as client:
        page = (await client.get(f"/r/{run_id}")).text
        board = (await client.get("/tasks/clinicalqa")).text
    assert "<strong>Withdrawn.</strong>" in page
    assert "the authors reported a &lt;b&gt;wrong&lt;/b&gt; template" in page
    assert f'href="/r/{run_id}"' not in board


async def test_model_page_lists_its_results_across_tasks(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    body = (await data_client.get("/v1/model", params={"model": "medgemma-27b"})).json()
    page = (await data_client.get(f"/models/{MEDGEMMA.slug}")).text
    assert body["slug"] == MEDGEMMA.slug and body["aliases"] == ["medgemma-27b"]
    assert [r["run_id"] for r in body["results"]] == [run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]]
    assert f'href="/r/{body["results"][0]["run_id"]}"' in page and "2026-01" in page
    pending = (await data_client.get(f"/models/{PENDING.slug}")).text
    assert "in review" in pending  # a result in review is listed with its status


async def test_a_result_page_links_to_its_model_page_and_back(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    result = (await data_client.get(f"/r/{run_id}")).text
    assert f'href="/models/{HARI.slug}"' in result
    model = (await data_client.get(f"/models/{HARI.slug}")).text
    assert f'href="/r/{run_id}"' in model and 'href="/tasks/clinicalqa?version=0"' in model


async def test_datasets_page_credits_each_dataset_with_licence_and_citation(data_client: httpx.AsyncClient) -> None:
    page = (await data_client.get("/datasets")).text
    for dataset in (await data_client.get("/v1/datasets")).json()["datasets"]:
        assert f'id="{dataset["slug"]}"' in page and f'href="{dataset["license_url"]}"' in page
        assert dataset["citation"].split(".")[0] in page


@pytest.mark.parametrize(
    ("path", "phrases"),
    [
        ("/about", ["run key", "temperature 0", "parse rate", "paired bootstrap", "official", "baseline"]),
        ("/authors", ["pull request", "official code", "withdraw", "benchtoward/benchmarks"]),
        ("/privacy", ["no cookies", "secret", "never stored", "/v1/beacon"]),
        ("/disclaimer", ["not an official service", "not clinical validation or certification"]),
    ],
)
async def test_the_site_texts_cover_what_the_seed_page_promises(
    client: httpx.AsyncClient, path: str, phrases: list[str]
) -> None:
    text = " ".join(main_text((await client.get(path)).text).lower().split())
    for phrase in phrases:
        assert phrase.lower() in text, (path, phrase)


async def test_pages_carry_no_inline_script_or_style_and_load_the_beacon(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    for path in page_paths(run_ids):
        page = await data_client.get(path)
        assert page.status_code == 200, path
        assert INLINE_CODE.search(page.text) is None, (path, INLINE_CODE.search(page.text))
        assert page.text.count('<script src="/static/beacon.js" defer></script>') == 1, path


async def test_no_public_page_or_route_sets_a_cookie(
    data_client: httpx.AsyncClient, settings: Settings, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    concrete = {"{run_id}": run_id, "{slug}": "clinicalqa", "{slug:path}": HARI.slug}
    queries = {
        "/v1/leaderboard": "?task=clinicalqa",
        "/v1/leaderboard.csv": "?task=clinicalqa",
        "/v1/model": "?model=hari-q3-8b",
    }
    requests = {("GET", path) for path in page_paths(run_ids)}
    requests |= {("GET", f"/static/{name}") for name in ("site.css", "beacon.js", "site.js")} | {("GET", "/no-such")}
    routes = [r for r in build_app(settings).routes if isinstance(r, Route) and r.path != "/mcp"]
    for route in routes:
        path = route.path
        for pattern, value in concrete.items():
            path = path.replace(pattern, value)
        requests |= {(method, path + queries.get(path, "")) for method in route.methods or {"GET"} if method != "HEAD"}
    assert ("POST", "/v1/beacon") in requests and len(requests) >= 30
    for method, path in sorted(requests):
        response = await data_client.request(method, path, content=b"/tasks/clinicalqa" if method == "POST" else None)
        assert response.status_code < 500 and "set-cookie" not in response.headers, (method, path)
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
    mcp = await data_client.post("/mcp", json=ping, headers={"accept": "application/json, text/event-stream"})
    assert mcp.status_code == 200 and "set-cookie" not in mcp.headers


async def test_a_hostile_model_name_is_escaped_on_every_page(settings: Settings, tmp_path: Path) -> None:
    store = await Store.open(settings.db)
    await sync_specs(store)
    registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
    stored = await import_result(
        registry, write_bundle(tmp_path / "x", task="clinicalqa@0", model=HOSTILE, quality=0.5)
    )
    await store.close()
    async with running(settings) as client:
        for path in ("/", "/tasks/clinicalqa", f"/r/{stored.run_id}", f"/models/{HOSTILE.slug}"):
            page = await client.get(path)
            assert page.status_code == 200, path
            assert "<script>alert(1)" not in page.text and "<img src=x" not in page.text
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text


async def test_a_result_on_a_demo_task_carries_the_demo_banner_everywhere_it_is_shown(
    settings: Settings, tmp_path: Path
) -> None:
    store = await Store.open(settings.db)
    await sync_specs(store)
    registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
    demo = FakeModel("demo/model", "Demo Model")
    bundle = write_bundle(tmp_path / "demo", task="clinicalqa-upstream-demo@0", model=demo, quality=0.6)
    stored = await import_result(registry, bundle)
    await store.close()
    async with running(settings) as client:
        result = (await client.get(f"/r/{stored.run_id}")).text
        home = (await client.get("/")).text
        model = (await client.get(f"/models/{demo.slug}")).text
    assert 'class="banner demo"' in result and "Demo data." in result
    latest = home.split('id="latest-heading"', 1)[1].split("</table>", 1)[0]
    assert "Demo Model" in latest and "demo data" in latest
    assert "demo data" in model


async def test_tasks_index_searches_filters_by_status_and_sorts(data_client: httpx.AsyncClient) -> None:
    found = main_text((await data_client.get("/tasks", params={"q": "demo"})).text)
    table = found.split("<tbody>", 1)[1]
    assert "clinicalqa-upstream-demo" in table and 'href="/tasks/clinicalqa?version=0"' not in table
    assert '<option value="published">published (' in found  # the statuses that occur, with counts
    by_results = main_text((await data_client.get("/tasks", params={"sort": "-results"})).text).split("<tbody>", 1)[1]
    assert by_results.index('href="/tasks/clinicalqa?version=0"') < by_results.index("clinicalqa-upstream-demo")
    nothing = main_text((await data_client.get("/tasks", params={"status": "building"})).text)
    assert "No task matches" in nothing


async def test_datasets_page_shows_no_markdown_or_repository_internals_outside_details(
    client: httpx.AsyncClient,
) -> None:
    page = main_text((await client.get("/datasets")).text)
    outside = re.sub(r"<details.*?</details>", "", page, flags=re.S)
    assert "`" not in outside and "<code>benchtoward data fetch vitaldb</code>" in outside  # markdown, rendered
    assert "PROVENANCE.md" not in outside and "PROVENANCE.md" in page  # kept, behind a details element
    assert "evaluator.vitaldb.synthetic" not in outside
