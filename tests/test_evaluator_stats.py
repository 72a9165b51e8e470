"""Cluster-bootstrap intervals: agreement with scikit-learn and scipy, exactness, seeds, one-class rule."""

from __future__ import annotations

import dataclasses
import hashlib
import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from evaluator import stats


def tied_binary_data(seed: int, n_items: int, n_units: int) -> dict[str, np.ndarray]:
    """Labels, heavily tied scores (one decimal) and units for `n_items` items."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n_items) < 0.3
    labels[:2] = [True, False]
    scores = np.round(rng.normal(size=n_items) + labels, 1)
    return {"units": rng.integers(0, n_units, n_items), "labels": labels, "scores": scores}


def test_rng_from_key_seeds_with_the_first_128_bits_of_the_sha256_of_the_key() -> None:
    seed = int(hashlib.sha256(b"clinicalqa@0/run-1").hexdigest()[:32], 16)
    expected = np.random.default_rng(seed).random(5)
    assert np.array_equal(stats.rng_from_key("clinicalqa@0/run-1").random(5), expected)
    assert not np.array_equal(stats.rng_from_key("clinicalqa@0/run-2").random(5), expected)


def test_factorize_units_numbers_units_in_order_of_first_appearance() -> None:
    codes = stats.factorize_units(["p9", "p2", "p9", "p5", "p2"])
    assert codes.dtype == np.int32
    assert codes.tolist() == [0, 1, 0, 2, 1]
    assert stats.factorize_units(np.array([30, 10, 30])).tolist() == [0, 1, 0]
    assert stats.factorize_units([]).size == 0


def test_accuracy_is_the_share_of_correct_items() -> None:
    assert stats.accuracy(np.array([True, False, True, True])) == 0.75
    assert stats.accuracy(np.array([1, 0, 0, 0])) == 0.25


@settings(max_examples=150, deadline=None)
@given(
    labels=st.lists(st.booleans(), min_size=2, max_size=40),
    scores=st.lists(st.integers(-3, 3), min_size=40, max_size=40),
)
def test_auroc_and_auprc_equal_scikit_learn_with_ties(labels: list[bool], scores: list[int]) -> None:
    truth = np.array(labels)
    if truth.all() or not truth.any():
        return
    values = np.array(scores[: truth.size], dtype=np.float64) / 2.0  # few distinct values: many ties
    assert abs(stats.auroc(truth, values) - roc_auc_score(truth, values)) <= 1e-12
    assert abs(stats.auprc(truth, values) - average_precision_score(truth, values)) <= 1e-12


def test_auroc_equals_scikit_learn_on_a_large_tied_sample() -> None:
    data = tied_binary_data(seed=1, n_items=50_000, n_units=50_000)
    assert abs(stats.auroc(data["labels"], data["scores"]) - roc_auc_score(data["labels"], data["scores"])) <= 1e-12
    assert (
        abs(stats.auprc(data["labels"], data["scores"]) - average_precision_score(data["labels"], data["scores"]))
        <= 1e-12
    )


def test_every_replicate_equals_scikit_learn_weighted_by_how_often_each_unit_was_drawn() -> None:
    data = tied_binary_data(seed=2, n_items=600, n_units=40)
    correct = np.random.default_rng(3).random(600) < 0.6
    codes, n_units = stats.unit_codes(data["units"])
    counts = np.concatenate(list(stats.resample_unit_counts(stats.rng_from_key("w"), 25, n_units, rows=7)))
    plans = [stats.build_plan(name, codes, n_units, correct, data["labels"], data["scores"]) for name in stats.METRICS]
    (accuracy, _), (auroc, auroc_valid), (auprc, _) = (plan.values(counts) for plan in plans)
    assert auroc_valid.all()
    for replicate, unit_counts in enumerate(counts):
        weights = unit_counts[codes]
        assert accuracy[replicate] == pytest.approx(np.average(correct, weights=weights), abs=1e-12)
        assert abs(auroc[replicate] - roc_auc_score(data["labels"], data["scores"], sample_weight=weights)) <= 1e-12
        expected = average_precision_score(data["labels"], data["scores"], sample_weight=weights)
        assert abs(auprc[replicate] - expected) <= 1e-12


def test_unit_counts_of_each_replicate_sum_to_the_number_of_units_and_match_a_single_draw() -> None:
    blocks = list(stats.resample_unit_counts(stats.rng_from_key("c"), 10, 13, rows=3))
    assert [block.shape for block in blocks] == [(3, 13), (3, 13), (3, 13), (1, 13)]
    counts = np.concatenate(blocks)
    assert (counts.sum(axis=1) == 13).all()
    picks = stats.rng_from_key("c").integers(0, 13, size=(10, 13), dtype=np.int64)
    assert np.array_equal(counts, np.stack([np.bincount(row, minlength=13) for row in picks]))


def test_float32_working_arrays_give_bit_identical_replicates_to_float64() -> None:
    data = tied_binary_data(seed=4, n_items=3000, n_units=150)
    codes, n_units = stats.unit_codes(data["units"])
    counts = next(stats.resample_unit_counts(stats.rng_from_key("f"), 64, n_units, rows=64))
    for metric in ("auroc", "auprc"):
        plan = stats.build_plan(metric, codes, n_units, None, data["labels"], data["scores"])
        assert plan.work_dtype is np.float32  # type: ignore[attr-defined]
        wide = dataclasses.replace(plan, work_dtype=np.float64)  # type: ignore[type-var]
        assert np.array_equal(plan.values(counts)[0], wide.values(counts)[0])
    correct = np.random.default_rng(4).random((7, 3000)) < 0.5
    accuracy = stats.AccuracyPlan.build(correct, codes, n_units)
    assert accuracy.unit_sums.dtype == np.float32
    wide_accuracy = dataclasses.replace(accuracy, unit_sums=accuracy.unit_sums.astype(np.float64))
    assert np.array_equal(accuracy.values(counts)[0], wide_accuracy.values(counts)[0])
    assert np.array_equal(accuracy.values(stats.full_data_counts(n_units))[0][0], correct.mean(axis=1))


def test_large_units_switch_the_working_arrays_to_float64() -> None:
    assert stats.work_dtype(1000, np.array([16_000.0])) is np.float32
    assert stats.work_dtype(1000, np.array([17_000.0])) is np.float64


def test_same_seed_gives_bit_identical_estimates_whatever_the_block_size() -> None:
    data = tied_binary_data(seed=5, n_items=2000, n_units=120)
    correct = data["scores"] > 0
    codes, n_units = stats.unit_codes(data["units"])
    plans = [stats.build_plan(name, codes, n_units, correct, data["labels"], data["scores"]) for name in stats.METRICS]
    small = stats.replicate_values(plans, n_units, 2000, 300, stats.rng_from_key("b"), chunk_elements=5_000)
    large = stats.replicate_values(plans, n_units, 2000, 300, stats.rng_from_key("b"), chunk_elements=10**7)
    for (small_values, _), (large_values, _) in zip(small, large, strict=True):
        assert np.array_equal(small_values, large_values)
    first, second = (
        stats.bootstrap_metrics(
            list(stats.METRICS),
            units=data["units"],
            replicates=300,
            rng=stats.rng_from_key("b"),
            correct=correct,
            labels=data["labels"],
            scores=data["scores"],
        )
        for _ in range(2)
    )
    assert first == second


def test_metrics_of_one_result_share_one_draw() -> None:
    data = tied_binary_data(seed=6, n_items=1500, n_units=90)
    joint = stats.bootstrap_metrics(
        ["auroc", "auprc"],
        units=data["units"],
        replicates=400,
        rng=stats.rng_from_key("s"),
        labels=data["labels"],
        scores=data["scores"],
    )
    alone = [
        stats.bootstrap_metric(
            name,
            units=data["units"],
            replicates=400,
            rng=stats.rng_from_key("s"),  # type: ignore[arg-type]
            labels=data["labels"],
            scores=data["scores"],
        )
        for name in ("auroc", "auprc")
    ]
    assert joint == alone


def test_point_estimate_is_the_metric_on_the_full_data_and_the_interval_its_replicate_percentiles() -> None:
    data = tied_binary_data(seed=7, n_items=800, n_units=60)
    estimate = stats.bootstrap_metric(
        "auroc",
        units=data["units"],
        replicates=500,
        rng=stats.rng_from_key("p"),
        labels=data["labels"],
        scores=data["scores"],
        level=0.9,
    )
    assert estimate.value == stats.auroc(data["labels"], data["scores"])
    codes, n_units = stats.unit_codes(data["units"])
    plan = stats.build_plan("auroc", codes, n_units, None, data["labels"], data["scores"])
    [(values, _)] = stats.replicate_values([plan], n_units, codes.size, 500, stats.rng_from_key("p"))
    assert values.mean() != estimate.value
    assert (estimate.ci_low, estimate.ci_high) == tuple(np.percentile(values, [5.0, 95.0], method="linear"))
    assert (estimate.n_items, estimate.n_units, estimate.replicates, estimate.degenerate_replicates) == (
        800,
        60,
        500,
        0,
    )


def test_accuracy_interval_matches_scipy_percentile_bootstrap_on_unclustered_data() -> None:
    rng = np.random.default_rng(8)
    n_items, replicates = 500, 20_000
    correct = rng.random(n_items) < 0.7
    ours = stats.bootstrap_metric(
        "accuracy",
        units=np.arange(n_items),
        replicates=replicates,
        rng=stats.rng_from_key("scipy"),
        correct=correct,
    )
    theirs = scipy.stats.bootstrap(
        (correct.astype(np.float64),),
        np.mean,
        n_resamples=replicates,
        method="percentile",
        rng=np.random.default_rng(9),
    ).confidence_interval
    # An endpoint is a 2.5% quantile of R replicates: Monte Carlo SE = sigma * sqrt(q(1-q)/R) / phi(z_q).
    sigma = math.sqrt(correct.mean() * (1 - correct.mean()) / n_items)
    quantile_se = sigma * math.sqrt(0.025 * 0.975 / replicates) / scipy.stats.norm.pdf(1.96)
    tolerance = 4 * math.sqrt(2) * quantile_se + 1 / n_items  # + one step of the accuracy grid
    assert ours.ci_low is not None and ours.ci_high is not None
    assert abs(ours.ci_low - theirs.low) <= tolerance
    assert abs(ours.ci_high - theirs.high) <= tolerance
    assert tolerance < 0.15 * (ours.ci_high - ours.ci_low)  # the check is tighter than the interval itself


def test_cluster_interval_is_wider_than_item_interval_when_units_share_their_outcome() -> None:
    rng = np.random.default_rng(10)
    units = np.repeat(np.arange(80), 10)
    correct = (rng.random(80) < 0.6)[units]  # every item of a unit has the same outcome
    cluster, naive = (
        stats.bootstrap_metric("accuracy", units=u, replicates=1000, rng=stats.rng_from_key("w"), correct=correct)
        for u in (units, np.arange(units.size))
    )
    assert cluster.ci_low is not None and cluster.ci_high is not None
    assert naive.ci_low is not None and naive.ci_high is not None
    assert (cluster.ci_high - cluster.ci_low) > 2.5 * (naive.ci_high - naive.ci_low)


def test_replicates_missing_a_class_are_dropped_from_the_interval_and_counted() -> None:
    # Unit 0 holds the only positives: a replicate that does not draw it has no positive.
    units = np.repeat(np.arange(6), 5)
    labels = units == 0
    scores = np.arange(30, dtype=np.float64) % 7
    estimate = stats.bootstrap_metric(
        "auroc", units=units, replicates=1000, rng=stats.rng_from_key("d"), labels=labels, scores=scores
    )
    codes, n_units = stats.unit_codes(units)
    counts = np.concatenate(list(stats.resample_unit_counts(stats.rng_from_key("d"), 1000, n_units, 1000)))
    missing = counts[:, 0] == 0
    assert estimate.degenerate_replicates == int(missing.sum())
    assert 0.25 < missing.mean() < 0.42  # (5/6)**6 = 0.33 of replicates
    plan = stats.build_plan("auroc", codes, n_units, None, labels, scores)
    values, valid = plan.values(counts)
    assert np.array_equal(valid, ~missing)
    assert (estimate.ci_low, estimate.ci_high) == stats.percentile_interval(values[valid], 0.95)
    assert np.isfinite(values).all()


@pytest.mark.parametrize("key", [f"one-class-{index}" for index in range(12)])
def test_interval_is_none_exactly_when_more_than_half_of_replicates_miss_a_class(key: str) -> None:
    # Two units, one per class: a replicate is degenerate when it draws the same unit twice (probability 1/2).
    units = np.array([0, 0, 1, 1])
    labels = np.array([1, 1, 0, 0])
    scores = np.array([0.9, 0.4, 0.5, 0.1])
    estimate = stats.bootstrap_metric(
        "auprc", units=units, replicates=9, rng=stats.rng_from_key(key), labels=labels, scores=scores
    )
    counts = np.concatenate(list(stats.resample_unit_counts(stats.rng_from_key(key), 9, 2, 9)))
    degenerate = int((counts.min(axis=1) == 0).sum())
    assert estimate.degenerate_replicates == degenerate
    assert (estimate.ci_low is None) == (degenerate > 4)
    assert (estimate.ci_high is None) == (degenerate > 4)
    assert estimate.value == pytest.approx(average_precision_score(labels, scores))


def test_both_sides_of_the_more_than_half_rule_occur_among_the_keys_above() -> None:
    outcomes = {
        stats.bootstrap_metric(
            "auroc",
            units=np.array([0, 1]),
            replicates=9,
            rng=stats.rng_from_key(f"one-class-{index}"),
            labels=np.array([1, 0]),
            scores=np.array([0.7, 0.2]),
        ).ci_low
        is None
        for index in range(12)
    }
    assert outcomes == {True, False}


def test_string_unit_ids_give_the_same_estimate_as_their_integer_codes() -> None:
    data = tied_binary_data(seed=11, n_items=400, n_units=30)
    names = np.array([f"patient-{unit}" for unit in data["units"]])
    by_name, by_code = (
        stats.bootstrap_metric(
            "auroc",
            units=units,
            replicates=200,
            rng=stats.rng_from_key("names"),
            labels=data["labels"],
            scores=data["scores"],
        )
        for units in (names, stats.factorize_units(names))
    )
    assert by_name == by_code
    assert by_name.n_units == len(set(names.tolist()))


def test_zero_replicates_give_the_point_estimate_without_an_interval() -> None:
    estimate = stats.bootstrap_metric(
        "accuracy",
        units=np.arange(4),
        replicates=0,
        rng=stats.rng_from_key("z"),
        correct=np.array([1, 1, 0, 1]),
    )
    assert (estimate.value, estimate.ci_low, estimate.ci_high, estimate.replicates) == (0.75, None, None, 0)


@pytest.mark.parametrize(
    ("metric", "inputs", "message"),
    [
        ("accuracy", {}, "needs `correct`"),
        ("auroc", {"labels": np.array([0, 1, 1])}, "needs `labels` and `scores`"),
        ("auroc", {"labels": np.array([1, 1, 1]), "scores": np.array([0.1, 0.2, 0.3])}, "single class"),
        ("auprc", {"labels": np.array([0, 2, 1]), "scores": np.array([0.1, 0.2, 0.3])}, "boolean or 0/1"),
        ("auroc", {"labels": np.array([0, 1, 1]), "scores": np.array([0.1, np.nan, 0.3])}, "finite"),
        ("auroc", {"labels": np.array([0, 1]), "scores": np.array([0.1, 0.2])}, "shape"),
        ("brier", {"correct": np.array([1, 0, 1])}, "unknown metric"),
    ],
)
def test_missing_or_malformed_inputs_raise_value_error(
    metric: str, inputs: dict[str, np.ndarray], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        stats.bootstrap_metrics(
            [metric], units=np.array(["a", "b", "a"]), replicates=10, rng=stats.rng_from_key("x"), **inputs
        )
