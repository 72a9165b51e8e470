"""Inside a result, a model's page, the model index, the comparison page and the cost plot: with the real app on
a real store, the demo task's results computed by the real harness (our baselines, as `benchtoward demo` does)."""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from collections import Counter, defaultdict
from io import BytesIO
from pathlib import Path

import httpx
import numpy as np
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluator import stats
from server.settings import Settings
from store import Store
from tests.conftest import running
from tests.populate import HARI, MAJORITY, MEDGEMMA, PENDING, populate
from tools.eval_plan import EvalRequest
from tools.evaluate import evaluate
from tools.insights import roc_curve
from tools.registry import Registry
from tools.seed import sync_specs
from web.plots import Costed, cost_plot
from web.result_view import human_versions, p_value, signed, token_figures

pytestmark = pytest.mark.anyio
DEMO = "clinicalqa-upstream-demo@0"
ITEMS = Path(__file__).resolve().parent.parent / "data/clinicalqa-upstream/clinicalqa_upstream.jsonl.gz"


@pytest.fixture
async def demo_runs(settings: Settings, tmp_path: Path) -> dict[str, str]:
    """The fixture results, plus the majority and random baselines run on the demo task by the real harness."""
    store = await Store.open(settings.db)
    await sync_specs(store)
    try:
        registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
        run_ids = await populate(registry, tmp_path / "bundles")
        for baseline in ("baseline/majority", "baseline/random"):
            request = EvalRequest(model=baseline, task=DEMO, cache_root=tmp_path / "cache", publish=True)
            outcome = await evaluate(registry, request)
            assert outcome.outcome == "computed", outcome.message
            run_ids[baseline] = outcome.run_id
        return run_ids
    finally:
        await store.close()


@pytest.fixture
async def demo_client(settings: Settings, demo_runs: dict[str, str]) -> httpx.AsyncClient:
    async with running(settings) as http:
        yield http  # type: ignore[misc]


def main_text(html: str) -> str:
    return html.split('<main id="main">', 1)[1].split("</main>", 1)[0]


def categories_of_the_demo_items() -> dict[str, str]:
    lines = gzip.decompress(ITEMS.read_bytes()).decode().splitlines()
    return {record["uid"]: (record.get("category") or "").strip() for record in map(orjson.loads, lines)}


@pytest.mark.timeout(600)
async def test_a_demo_result_shows_accuracy_by_category_computed_from_the_shipped_items(
    demo_client: httpx.AsyncClient, demo_runs: dict[str, str]
) -> None:
    run_id = demo_runs["baseline/majority"]
    preview = (await demo_client.get(f"/v1/predictions/{run_id}?limit=100")).json()
    html = main_text((await demo_client.get(f"/r/{run_id}")).text)
    assert "Accuracy by category" in html
    # Independently: the category of each scored item from the shipped file, its correctness from the parquet.
    parquet = await demo_client.get(preview["url"].replace("http://testserver", ""))
    rows = pq.read_table(BytesIO(parquet.content)).to_pylist()
    category = categories_of_the_demo_items()
    right: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        right[category[row["instance_id"]] or "(no category)"].append(row["correct"])
    largest, items = max(right.items(), key=lambda pair: (len(pair[1]), pair[0]))
    expected = f"{100 * sum(items) / len(items):.1f}%"
    cells = rf'<td>{re.escape(largest)}</td><td class="num">{len(items)}</td><td class="num">{re.escape(expected)}\s'
    assert re.search(cells, html)
    sizes = Counter({name: len(values) for name, values in right.items()})
    assert sum(sizes.values()) == len(rows) == 862


@pytest.mark.timeout(600)
async def test_the_item_browser_pages_filters_wrong_answers_and_searches_by_id(
    demo_client: httpx.AsyncClient, demo_runs: dict[str, str]
) -> None:
    run_id = demo_runs["baseline/random"]
    first = main_text((await demo_client.get(f"/r/{run_id}")).text)
    assert "862 of 862 items, page 1 of 35" in first
    assert first.count('<li class="item ') == 25 and 'lang="ko"' in first  # the demo licence lets us show items
    wrong = main_text((await demo_client.get(f"/r/{run_id}?wrong=1&page=2")).text)
    assert 'class="item right"' not in wrong and wrong.count('class="item wrong"') == 25
    assert "page 2 of" in wrong and "wrong=1&amp;page=3" in wrong  # the filter is kept in the pager's links
    found = main_text((await demo_client.get(f"/r/{run_id}?item=cqa-up-0000")).text)
    ids = re.findall(r"<code>(cqa-up-[0-9]+)</code>", found)
    assert ids and all(i.startswith("cqa-up-0000") for i in ids)
    for query in ("page=99999999999&item=%3Cscript%3E", "page=%C2%B2", "page=-3&wrong=yes", f"item={'x' * 5000}"):
        beyond = await demo_client.get(f"/r/{run_id}?{query}")
        assert beyond.status_code == 200 and "<script>" not in main_text(beyond.text), query


async def test_items_of_a_dataset_whose_licence_is_not_flagged_show_ids_and_answers_only(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    html = main_text((await data_client.get(f"/r/{run_ids[f'{HARI.slug}@clinicalqa@0']}")).text)
    assert "Only ids and answers are shown" in html and 'lang="ko"' not in html
    assert "Accuracy by category" not in html


async def test_a_result_page_shows_rank_tokens_and_versions_as_people_read_them(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    html = main_text((await data_client.get(f"/r/{run_ids[f'{MEDGEMMA.slug}@clinicalqa@0']}")).text)
    assert "<dt>Rank</dt><dd>1 of 4" in html
    assert "{'" not in html and "Tokens version" not in html and "Harness version" not in html  # no Python reprs
    assert "Show every version and setting" in html and "<td>Harness</td>" in html
    pending = main_text((await data_client.get(f"/r/{run_ids[f'{PENDING.slug}@clinicalqa@0']}")).text)
    assert "<dt>Rank</dt>" not in pending  # a result in review has no rank


def test_the_roc_curve_and_operating_points_match_an_independent_computation() -> None:
    rng = np.random.default_rng(7)
    labels = rng.random(150) < 0.3
    scores = np.round(labels * 0.8 + rng.normal(size=150), 1)  # rounded: tied scores form one threshold
    units = [str(i // 3) for i in range(150)]
    table = pa.table(
        {
            "instance_id": [str(i) for i in range(150)],
            "unit_id": units,
            "label": labels.astype(np.int8),
            "score": scores,
        }
    )
    roc = roc_curve(table)
    assert roc is not None and roc.windows == 150 and roc.patients == 50 and roc.positive_windows == int(labels.sum())
    assert roc.patients_with_event == len({u for u, y in zip(units, labels, strict=True) if y})
    area = float(np.sum(np.diff(roc.fpr) * (np.array(roc.tpr[1:]) + np.array(roc.tpr[:-1])) / 2))
    assert area == pytest.approx(stats.auroc(labels, scores), abs=1e-3)  # points are rounded to 4 decimals
    for point in roc.operating_points:
        flagged = scores >= point.threshold
        assert point.sensitivity == pytest.approx((flagged & labels).sum() / labels.sum())
        assert point.specificity == pytest.approx((~flagged & ~labels).sum() / (~labels).sum())
        assert point.specificity >= point.target_specificity
        assert point.ppv == pytest.approx((flagged & labels).sum() / flagged.sum())
        lower = scores[scores < point.threshold]  # the next lower threshold no longer reaches the target
        if lower.size:
            assert ((lower.max() > scores) & ~labels).sum() / (~labels).sum() < point.target_specificity


async def test_a_model_page_shows_ranks_and_the_models_own_status(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    html = main_text((await data_client.get(f"/models/{HARI.slug}")).text)
    assert "may still change as a new version" not in html  # the task's status text is not the model's
    assert "Registered; its published results are on the task leaderboards." in html
    assert '<td data-label="Rank">2' in html and 'href="/models"' in html


async def test_the_model_index_lists_searches_and_filters_every_model(data_client: httpx.AsyncClient) -> None:
    for path in ("/models", "/models/"):
        page = await data_client.get(path, follow_redirects=True)
        assert page.status_code == 200 and MEDGEMMA.name in page.text and MAJORITY.name in page.text
    found = main_text((await data_client.get("/models?q=HARI")).text)
    assert HARI.name in found and MEDGEMMA.name not in found
    baselines = main_text((await data_client.get("/models?type=baseline")).text)
    assert MAJORITY.name in baselines and HARI.name not in baselines
    nothing = await data_client.get("/models?q=%3Cb%3Enobody")
    assert nothing.status_code == 200 and "No model matches" in nothing.text and "<b>nobody" not in nothing.text


async def test_the_compare_page_walks_from_a_task_to_two_results(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    start = main_text((await data_client.get("/compare")).text)
    assert 'name="task"' in start and 'name="a"' not in start
    chosen = main_text((await data_client.get("/compare?task=clinicalqa@0")).text)
    assert chosen.count('<option value="') >= 8 and 'name="a"' in chosen and 'name="b"' in chosen
    a, b = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"], run_ids[f"{MAJORITY.slug}@clinicalqa@0"]
    shown = main_text((await data_client.get(f"/compare?task=clinicalqa@0&a={a}&b={b}")).text)
    body = (await data_client.get(f"/v1/compare?task=clinicalqa@0&a={a}&b={b}")).json()
    points = body["difference"]["value"] * 100
    assert f"{points:.1f} points" in shown and "McNemar" in shown
    assert f"{body['agreement']['only_a']:,}" in shown
    wrong = await data_client.get(f"/compare?task=clinicalqa@0&a={a}&b={run_ids[f'{PENDING.slug}@clinicalqa@0']}")
    assert wrong.status_code == 409 and "text/html" in wrong.headers["content-type"]


async def test_the_compare_pages_task_choice_is_the_published_tasks_of_the_list_tasks_capability(
    data_client: httpx.AsyncClient,
) -> None:
    listed = (await data_client.get("/v1/tasks")).json()["tasks"]
    published = [task["task"] for task in listed if task["status"] == "published"]
    page = (await data_client.get("/compare")).text
    choice = page.split('<select id="c-task" name="task">', 1)[1].split("</select>", 1)[0]
    assert re.findall(r'<option value="([^"]+)"', choice) == published and len(published) >= 2


async def test_a_task_page_with_known_costs_draws_cost_against_score_and_links_to_compare(
    data_client: httpx.AsyncClient,
) -> None:
    html = main_text((await data_client.get("/tasks/clinicalqa?version=0")).text)
    assert 'href="/compare?task=clinicalqa%400"' in html
    assert '<svg class="plot cost"' in html and html.count("<circle") >= 3  # the LLMs; the baseline is a square


def test_the_cost_plot_needs_two_known_costs_and_goes_logarithmic_over_a_wide_range() -> None:
    assert cost_plot([Costed("a", 0.0, 0.5, True), Costed("b", 0.0, 0.6, True)], "accuracy") is None
    assert cost_plot([Costed("a", None, 0.5, False), Costed("b", 1.0, 0.6, False)], "accuracy") is None
    linear = cost_plot([Costed("a", 0.0, 0.5, True), Costed("b", 2.0, 0.6, False)], "accuracy")
    assert linear is not None and not linear.log_cost and len(linear.dots) == 2
    wide = cost_plot([Costed("a", 0.01, 0.5, False), Costed("b", 50.0, 0.7, False), Costed("c", 0.0, 0.3, True)], "x")
    assert wide is not None and wide.log_cost and len(wide.dots) == 2  # zero cost has no place on a log axis
    assert wide.dots[0].x < wide.dots[1].x and wide.dots[0].y > wide.dots[1].y  # cheaper left, better higher


def test_stored_versions_read_as_figures_and_table_rows_not_dict_dumps() -> None:
    versions = {
        "harness": "0.4.0",
        "spec_hash": "ab" * 32,
        "packages": {"python": "3.11.2", "numpy": "2.4.6"},
        "tokens": {"prompt": 387900, "completion": 5172},
    }
    tokens = token_figures(versions)
    assert tokens is not None and tokens.total == 393072
    rows = [
        (r.group, r.name, r.value) for r in human_versions(versions, {"adapter": "openai-chat", "max_tokens": 4096})
    ]
    assert rows == [
        ("Configuration", "Adapter", "openai-chat"),
        ("Configuration", "Max tokens", "4,096"),
        ("Versions", "Harness", "0.4.0"),
        ("Packages", "numpy", "2.4.6"),
        ("Packages", "python", "3.11.2"),
    ]
    assert token_figures({"harness": "1"}) is None
    assert (signed(-0.0213, 3), signed(0.0004, 3), signed(1.25, 1)) == ("\u22120.021", "0.000", "+1.2")
    assert (p_value(3e-17), p_value(0.04123)) == ("p < 0.0001", "p = 0.0412")


async def test_a_model_card_set_on_the_command_line_shows_on_the_model_page(
    settings: Settings, run_ids: dict[str, str]
) -> None:
    cli = [sys.executable, "-m", "server.cli", "model-card", "--db", str(settings.db)]
    done = subprocess.run(
        [
            *cli,
            "medgemma-27b",
            "--weights",
            "google/medgemma-27b-text-it",
            "--license",
            "Health AI Developer Foundations",
            "--base-model",
            "Gemma 3 27B",
            "--paper",
            "https://arxiv.org/abs/2507.05201",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    refused = subprocess.run(
        [*cli, "medgemma-27b", "--paper", "javascript:alert(1)"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    unknown = subprocess.run([*cli, "nobody/none"], capture_output=True, text=True, timeout=120, check=False)
    assert refused.returncode != 0 and "bad_request" in refused.stderr and "Traceback" not in refused.stderr
    assert unknown.returncode != 0 and "model_not_found" in unknown.stderr
    async with running(settings) as http:
        html = main_text((await http.get(f"/models/{MEDGEMMA.slug}")).text)
    assert 'href="https://huggingface.co/google/medgemma-27b-text-it"' in html
    assert "Gemma 3 27B" in html and "Health AI Developer Foundations" in html and "javascript:" not in html


async def test_compare_from_a_result_preselects_it_as_a_and_another_result_as_b(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    hari = run_ids[f"{HARI.slug}@clinicalqa@0"]
    result = main_text((await data_client.get(f"/r/{hari}")).text)
    assert f'href="/compare?task=clinicalqa%400&amp;a={hari}"' in result
    form = main_text((await data_client.get(f"/compare?task=clinicalqa@0&a={hari}")).text)
    chosen = re.findall(r'<option value="([0-9a-f]{12})" selected>', form)
    assert chosen[0] == hari and chosen[1] != hari
