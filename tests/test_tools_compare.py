"""`compare`: two results of one task, checked against an independent paired bootstrap and scipy's binomtest."""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx
import numpy as np
import pyarrow.parquet as pq
import pytest
from scipy.stats import binomtest

from evaluator import paired
from store import rank_ranges as range_store
from store import results as result_store
from store import tasks as task_store
from tests.factory import FakeModel, write_bundle
from tests.populate import GPT_OSS, HARI, LAST_MAP, MAJORITY, MEDGEMMA, PENDING
from tools.bundles import import_result
from tools.compare import CompareQuery, compare
from tools.errors import NotComparable, RunNotFound, RunNotOnTask, RunNotPublished, TaskNotFound
from tools.registry import Registry

pytestmark = pytest.mark.anyio


def independent_paired_bootstrap(
    key: str, units: list[str], correct_a: np.ndarray, correct_b: np.ndarray, replicates: int
) -> tuple[float, float, float, float]:
    """Difference of accuracies, its 95% percentile interval and P(A > B), written from the documented draw:
    seed = first 128 bits of sha256(key); replicate r draws U units uniformly with replacement."""
    seed = int(hashlib.sha256(key.encode()).hexdigest()[:32], 16)
    rng = np.random.default_rng(seed)
    names, first = np.unique(np.asarray(units), return_index=True)
    order = {names[i]: rank for rank, i in enumerate(np.argsort(first, kind="stable"))}
    codes = np.array([order[u] for u in units])
    n_units = len(names)
    picks = rng.integers(0, n_units, size=(replicates, n_units), dtype=np.int64)
    counts = np.stack([np.bincount(row, minlength=n_units) for row in picks]).astype(np.float64)
    weights = counts[:, codes]  # replicate x item: how often each item's unit was drawn
    total = weights.sum(axis=1)
    diff = (weights @ correct_a.astype(float) - weights @ correct_b.astype(float)) / total
    low, high = np.percentile(diff, [2.5, 97.5])
    return float(correct_a.mean() - correct_b.mean()), float(low), float(high), float((diff > 0).mean())


def read(registry: Registry, run_id: str) -> tuple[list[str], np.ndarray]:
    result = result_store.get_result(registry.store, run_id)
    assert result is not None
    table = pq.read_table(registry.predictions_path(result.predictions_path)).sort_by("instance_id")
    return table.column("unit_id").to_pylist(), np.asarray(table.column("correct").to_pylist())


async def test_the_difference_interval_and_share_agree_with_an_independent_paired_bootstrap(
    registry: Registry, run_ids: dict[str, str]
) -> None:
    a, b = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"], run_ids[f"{HARI.slug}@clinicalqa@0"]
    found = await compare(registry, CompareQuery(task="clinicalqa@0", a=a, b=b))
    units, right_a = read(registry, a)
    _, right_b = read(registry, b)
    stored = range_store.get_rank_ranges(registry.store, "clinicalqa", 0)
    assert stored is not None
    task = task_store.get_task(registry.store, "clinicalqa", 0)
    assert task is not None
    key = "\n".join([task.spec_hash, *sorted(stored.covers)])  # the rank ranges' seed: spec hash and ranked run ids
    value, low, high, share = independent_paired_bootstrap(key, units, right_a, right_b, found.bootstrap.replicates)
    assert found.same_draws_as_rank_ranges
    assert found.difference.value == pytest.approx(value, abs=1e-12)
    assert found.difference.ci_low == pytest.approx(low, abs=1e-12)
    assert found.difference.ci_high == pytest.approx(high, abs=1e-12)
    assert found.p_a_better == pytest.approx(share, abs=1e-12)
    assert found.difference.ci_low < found.difference.value < found.difference.ci_high


async def test_the_agreement_table_counts_shared_items_and_mcnemar_matches_scipy(
    registry: Registry, run_ids: dict[str, str]
) -> None:
    a, b = run_ids[f"{GPT_OSS.slug}@clinicalqa@0"], run_ids[f"{MAJORITY.slug}@clinicalqa@0"]
    found = await compare(registry, CompareQuery(task="clinicalqa@0", a=a, b=b))
    _, right_a = read(registry, a)
    _, right_b = read(registry, b)
    table = found.agreement
    assert table is not None
    assert (table.both_right, table.only_a, table.only_b, table.both_wrong) == (
        int((right_a & right_b).sum()),
        int((right_a & ~right_b).sum()),
        int((~right_a & right_b).sum()),
        int((~right_a & ~right_b).sum()),
    )
    assert table.items == right_a.size == table.both_right + table.only_a + table.only_b + table.both_wrong
    expected = binomtest(table.only_a, table.only_a + table.only_b, 0.5).pvalue
    assert table.mcnemar_p == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("only_a", "only_b"),
    [(0, 0), (3, 3), (0, 7), (12, 3), (40, 61), (499, 560), (5000, 5210), (120000, 119000), (1_200_000, 1_196_000)],
)
def test_mcnemar_exact_p_equals_scipys_two_sided_binomial_test(only_a: int, only_b: int) -> None:
    expected = binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
    assert paired.mcnemar_exact_p(only_a, only_b) == pytest.approx(expected, rel=1e-9, abs=1e-300)


async def test_swapping_a_and_b_negates_the_difference_and_mirrors_the_shares(
    registry: Registry, run_ids: dict[str, str]
) -> None:
    a, b = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"], run_ids[f"{GPT_OSS.slug}@clinicalqa@0"]
    ab = await compare(registry, CompareQuery(task="clinicalqa@0", a=a, b=b))
    ba = await compare(registry, CompareQuery(task="clinicalqa@0", a=b, b=a))
    assert ba.difference.value == pytest.approx(-ab.difference.value)
    assert ba.difference.ci_low == pytest.approx(-(ab.difference.ci_high or 0))
    assert ab.p_a_better is not None and ba.p_a_better is not None and ab.p_tie is not None
    assert ab.p_a_better + ba.p_a_better + ab.p_tie == pytest.approx(1.0)
    assert ab.agreement and ba.agreement and ab.agreement.only_a == ba.agreement.only_b


async def test_auroc_tasks_compare_without_an_agreement_table(registry: Registry, tmp_path: Path) -> None:
    runs = []
    for model, quality in ((LAST_MAP, 1.2), (FakeModel("acme/ts", "TS", type="timeseries"), 0.4)):
        bundle = write_bundle(
            tmp_path / model.slug.replace("/", "_"), task="vitaldb-ioh@0", model=model, quality=quality
        )
        runs.append((await import_result(registry, bundle)).run_id)
    found = await compare(registry, CompareQuery(task="vitaldb-ioh@0", a=runs[0], b=runs[1]))
    assert found.primary_metric == "auroc" and found.agreement is None
    assert found.difference.value > 0 and found.p_a_better is not None and found.p_a_better > 0.5


async def test_unknown_foreign_and_unpublished_runs_get_their_stable_codes(
    registry: Registry, run_ids: dict[str, str]
) -> None:
    good = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    cases = [
        ("clinicalqa@0", "000000000000", RunNotFound),
        ("clinicalqa@0", run_ids[f"{LAST_MAP.slug}@vitaldb-ioh@0"], RunNotOnTask),
        ("clinicalqa@0", run_ids[f"{PENDING.slug}@clinicalqa@0"], RunNotPublished),
        ("nope@0", run_ids[f"{HARI.slug}@clinicalqa@0"], TaskNotFound),
    ]
    for task, other, error in cases:
        with pytest.raises(error):
            await compare(registry, CompareQuery(task=task, a=good, b=other))


async def test_results_on_different_instance_sets_are_not_comparable(registry: Registry, tmp_path: Path) -> None:
    runs = []
    for model, n in ((LAST_MAP, 300), (FakeModel("acme/ts", "TS", type="timeseries"), 280)):
        directory = tmp_path / model.slug.replace("/", "_")
        bundle = write_bundle(directory, task="vitaldb-ioh@0", model=model, quality=1.0, n=n)
        runs.append((await import_result(registry, bundle)).run_id)
    with pytest.raises(NotComparable):
        await compare(registry, CompareQuery(task="vitaldb-ioh@0", a=runs[0], b=runs[1]))


async def test_v1_compare_answers_json_and_errors_with_codes(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    a, b = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"], run_ids[f"{HARI.slug}@clinicalqa@0"]
    body = (await data_client.get(f"/v1/compare?task=clinicalqa@0&a={a}&b={b}")).json()
    assert set(body["difference"]) == {"value", "ci_low", "ci_high"}
    assert 0.0 <= body["p_a_better"] <= 1.0 and body["agreement"]["items"] == 1045
    assert body["a"]["rank"] == 1 and body["b"]["rank"] == 2
    pending = run_ids[f"{PENDING.slug}@clinicalqa@0"]
    for url, status, code in [
        ("/v1/compare?task=clinicalqa@0&a=" + a, 400, "bad_request"),
        (f"/v1/compare?task=clinicalqa@0&a={a}&b={a}", 400, "bad_request"),
        (f"/v1/compare?task=clinicalqa@0&a={a}&b=000000000000", 404, "run_not_found"),
        (f"/v1/compare?task=vitaldb-ioh@0&a={a}&b={b}", 400, "run_not_on_task"),
        (f"/v1/compare?task=clinicalqa@0&a={a}&b={pending}", 409, "run_not_published"),
    ]:
        response = await data_client.get(url)
        assert (response.status_code, response.json()["error"]) == (status, code), url
