"""Paired-bootstrap rank ranges: competition ranking, separation, exchangeable models, invariants, seeds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from evaluator import ranks, stats


def test_competition_ranking_gives_tied_models_the_best_rank_of_their_group() -> None:
    assert ranks.competition_ranks(np.array([0.9, 0.7, 0.7, 0.5])).tolist() == [1, 2, 2, 4]
    assert ranks.competition_ranks(np.array([0.5, 0.7, 0.9, 0.7])).tolist() == [4, 2, 1, 2]
    assert ranks.competition_ranks(np.array([[3.0, 3.0], [1.0, 2.0]])).tolist() == [[1, 1], [2, 1]]


def test_lower_is_better_ranks_the_smallest_value_first() -> None:
    assert ranks.competition_ranks(np.array([0.2, 0.1, 0.2]), higher_is_better=False).tolist() == [2, 1, 2]


def test_models_whose_accuracies_differ_hugely_get_single_ranks() -> None:
    rng = np.random.default_rng(1)
    skill = np.array([0.35, 0.95, 0.65, 0.05])
    correct = rng.random((4, 1045)) < skill[:, None]
    result = ranks.rank_ranges(
        "accuracy", units=np.arange(1045), replicates=2000, rng=stats.rng_from_key("far"), correct=correct
    )
    assert result.point_ranks.tolist() == [3, 1, 2, 4]
    assert np.array_equal(result.best, result.point_ranks)
    assert np.array_equal(result.worst, result.point_ranks)


def test_equally_accurate_models_have_ranges_spanning_all_of_them() -> None:
    # Four models, each right on a different 60% of the items: tied on the full data, exchangeable under
    # resampling, so each one's rank ranges over 1..4.
    n_items = 500
    correct = np.stack([np.roll(np.arange(n_items) % 5 < 3, shift) for shift in (0, 1, 2, 3)])
    result = ranks.rank_ranges(
        "accuracy", units=np.arange(n_items), replicates=2000, rng=stats.rng_from_key("same"), correct=correct
    )
    assert result.point_ranks.tolist() == [1, 1, 1, 1]
    assert result.best.tolist() == [1, 1, 1, 1]
    assert result.worst.tolist() == [4, 4, 4, 4]


def test_lower_is_better_reverses_the_ranges() -> None:
    correct = np.random.default_rng(2).random((3, 800)) < np.array([[0.2], [0.5], [0.9]])
    result = ranks.rank_ranges(
        "accuracy",
        units=np.arange(800),
        replicates=500,
        rng=stats.rng_from_key("low"),
        correct=correct,
        higher_is_better=False,
    )
    assert result.point_ranks.tolist() == [1, 2, 3]
    assert result.worst.tolist() == [1, 2, 3]


def test_rank_ranges_equal_a_reference_loop_that_rescores_every_model_on_each_draw() -> None:
    rng = np.random.default_rng(3)
    units = rng.integers(0, 40, 300)
    correct = rng.random((6, 300)) < np.linspace(0.55, 0.65, 6)[:, None]
    result = ranks.rank_ranges("accuracy", units=units, replicates=400, rng=stats.rng_from_key("ref"), correct=correct)
    codes, n_units = stats.unit_codes(units)
    counts = np.concatenate(list(stats.resample_unit_counts(stats.rng_from_key("ref"), 400, n_units, 400)))
    replicate_ranks = []
    for unit_counts in counts:
        weights = unit_counts[codes]
        scores = [np.average(row, weights=weights) for row in correct]
        replicate_ranks.append([1 + sum(other > mine for other in scores) for mine in scores])
    low, high = np.percentile(np.array(replicate_ranks), [2.5, 97.5], axis=0, method="linear")
    point = ranks.competition_ranks(correct.mean(axis=1))
    assert np.array_equal(result.point_ranks, point)
    assert np.array_equal(result.best, np.minimum(np.floor(low), point))
    assert np.array_equal(result.worst, np.maximum(np.ceil(high), point))
    assert (result.best < result.worst).any()


def test_auroc_rank_ranges_separate_a_strong_model_from_a_random_one() -> None:
    rng = np.random.default_rng(4)
    units = np.repeat(np.arange(300), 10)
    labels = rng.random(3000) < 0.2
    scores = np.stack([labels * 3.0 + rng.normal(size=3000), rng.normal(size=3000), labels + rng.normal(size=3000)])
    result = ranks.rank_ranges(
        "auroc", units=units, replicates=500, rng=stats.rng_from_key("auc"), labels=labels, scores=scores
    )
    assert [roc_auc_score(labels, row) > 0.6 for row in scores] == [True, False, True]
    assert result.point_ranks.tolist() == [1, 3, 2]
    assert result.best.tolist() == [1, 3, 2]
    assert result.worst.tolist() == [1, 3, 2]
    assert result.degenerate_replicates == 0


def test_rank_ranges_fall_back_to_every_rank_when_most_replicates_miss_a_class() -> None:
    # Two units, one per class: a replicate that draws one unit twice (probability 1/2) is degenerate.
    def degenerate_draws(key: str) -> int:
        counts = np.concatenate(list(stats.resample_unit_counts(stats.rng_from_key(key), 9, 2, 9)))
        return int((counts.min(axis=1) == 0).sum())

    key = next(f"one-class-{index}" for index in range(50) if degenerate_draws(f"one-class-{index}") > 4)
    result = ranks.rank_ranges(
        "auroc",
        units=np.array([0, 0, 1, 1]),
        replicates=9,
        rng=stats.rng_from_key(key),
        labels=np.array([1, 1, 0, 0]),
        scores=np.array([[0.9, 0.8, 0.1, 0.2], [0.1, 0.9, 0.2, 0.8]]),
    )
    assert result.degenerate_replicates == degenerate_draws(key)
    assert result.point_ranks.tolist() == [1, 2]
    assert (result.best.tolist(), result.worst.tolist()) == ([1, 1], [2, 2])


def test_same_seed_gives_identical_rank_ranges() -> None:
    correct = np.random.default_rng(5).random((8, 200)) < 0.6
    first, second = (
        ranks.rank_ranges(
            "accuracy",
            units=np.arange(200) // 4,
            replicates=300,
            rng=stats.rng_from_key("seed"),
            correct=correct,
        )
        for _ in range(2)
    )
    for field in ("point_ranks", "best", "worst"):
        assert np.array_equal(getattr(first, field), getattr(second, field))
    assert first.replicates == second.replicates == 300


def test_rank_seed_key_depends_on_the_set_of_run_ids_not_their_order() -> None:
    key = ranks.rank_seed_key("spec-hash", ["run-b", "run-a", "run-b"])
    assert key == "spec-hash\nrun-a\nrun-b"
    assert key == ranks.rank_seed_key("spec-hash", ["run-a", "run-b"])
    assert key != ranks.rank_seed_key("spec-hash", ["run-a", "run-c"])
    assert key != ranks.rank_seed_key("other-spec", ["run-a", "run-b"])
    with pytest.raises(ValueError, match="newlines"):
        ranks.rank_seed_key("spec-hash", ["run-a\nrun-b"])


@pytest.mark.parametrize(
    ("metric", "inputs", "message"),
    [
        ("accuracy", {"correct": np.array([1, 0, 1])}, "expected \\(models, 3\\)"),
        ("accuracy", {}, "needs `correct`"),
        ("auroc", {"labels": np.array([0, 1, 1]), "scores": np.ones((2, 4))}, "expected \\(models, 3\\)"),
        ("auprc", {"labels": np.array([0, 1, 1])}, "needs `labels`"),
        ("brier", {"scores": np.ones((2, 3))}, "unknown metric"),
    ],
)
def test_missing_or_malformed_model_tables_raise_value_error(
    metric: str, inputs: dict[str, np.ndarray], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ranks.rank_ranges(metric, units=np.arange(3), replicates=5, rng=stats.rng_from_key("x"), **inputs)


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    n_models=st.integers(1, 6),
    n_items=st.integers(2, 30),
    metric=st.sampled_from(["accuracy", "auroc", "auprc"]),
    higher_is_better=st.booleans(),
)
def test_every_range_lies_within_one_to_m_and_contains_the_point_rank(
    data: st.DataObject, n_models: int, n_items: int, metric: str, higher_is_better: bool
) -> None:
    units = np.array(data.draw(st.lists(st.integers(0, 6), min_size=n_items, max_size=n_items)))
    cells = st.lists(st.integers(0, 4), min_size=n_models * n_items, max_size=n_models * n_items)
    table = np.array(data.draw(cells)).reshape(n_models, n_items)
    labels = np.array(data.draw(st.lists(st.booleans(), min_size=n_items, max_size=n_items)))
    if metric != "accuracy" and (labels.all() or not labels.any()):
        labels[0] = not labels[0]
    result = ranks.rank_ranges(
        metric,
        units=units,
        replicates=40,
        rng=stats.rng_from_key(f"{units.tolist()}"),
        higher_is_better=higher_is_better,
        correct=table >= 2,
        labels=labels,
        scores=table / 4.0,
    )
    for bound in (result.point_ranks, result.best, result.worst):
        assert bound.shape == (n_models,)
        assert np.issubdtype(bound.dtype, np.integer)
        assert ((bound >= 1) & (bound <= n_models)).all()
    assert (result.best <= result.point_ranks).all()
    assert (result.point_ranks <= result.worst).all()
    assert 0 <= result.degenerate_replicates <= result.replicates == 40
