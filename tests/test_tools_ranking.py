"""Rank ranges on the leaderboard: computed when results are published, stored with the set they cover,
reproducible, and honest about results that cannot be ranked together."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from store import rank_ranges as range_store
from tests.factory import FakeModel, write_bundle
from tools import leaderboard
from tools.bundles import import_result
from tools.ranking import refresh_rank_ranges
from tools.registry import Registry

pytestmark = pytest.mark.anyio


async def test_leaderboard_rows_carry_rank_ranges_that_contain_their_rank(data_client: httpx.AsyncClient) -> None:
    board = (await data_client.get("/v1/leaderboard", params={"task": "clinicalqa@0"})).json()
    assert "paired bootstrap" in board["rank_range_note"]
    for row in board["rows"]:
        best, worst = row["rank_range"]
        assert 1 <= best <= row["rank"] <= worst <= len(board["rows"])
    # 0.72 vs 0.35 accuracy over 1,045 questions: the best and the baseline never swap places
    assert board["rows"][0]["rank_range"][0] == 1 and board["rows"][-1]["rank_range"] == [4, 4]


async def test_recomputing_the_same_set_gives_the_same_ranges(registry: Registry, tmp_path: Path) -> None:
    for index, quality in enumerate((0.70, 0.69, 0.68)):
        model = FakeModel(f"acme/close-{index}", f"Close {index}")
        await import_result(
            registry, write_bundle(tmp_path / str(index), task="clinicalqa@0", model=model, quality=quality)
        )
    first = range_store.get_rank_ranges(registry.store, "clinicalqa", 0)
    again = await refresh_rank_ranges(registry, "clinicalqa", 0)
    assert first is not None and again is not None and first.ranges == again.ranges
    assert len(first.ranges) == 3
    assert any(worst - best >= 1 for best, worst in first.ranges.values())  # close scores: ranks overlap


async def test_results_on_another_instance_set_are_not_ranked_together_and_the_api_says_why(
    registry: Registry, tmp_path: Path
) -> None:
    a, b, c = (FakeModel(f"acme/m{i}", f"M{i}") for i in range(3))
    await import_result(registry, write_bundle(tmp_path / "a", task="vitaldb-ioh@0", model=a, quality=1.0, n=400))
    await import_result(registry, write_bundle(tmp_path / "b", task="vitaldb-ioh@0", model=b, quality=0.5, n=400))
    await import_result(registry, write_bundle(tmp_path / "c", task="vitaldb-ioh@0", model=c, quality=0.8, n=300))
    board = await leaderboard.leaderboard(registry, leaderboard.LeaderboardQuery(task="vitaldb-ioh@0"))
    ranged = {row.model.slug: row.rank_range for row in board.rows}
    assert ranged[c.slug] is None and ranged[a.slug] is not None and ranged[b.slug] is not None
    assert "different instance set" in board.rank_range_note
