"""Counting without tracking: the daily visitor hash, the bot list, and what counts as a reuse or a visit."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import httpx
import pytest

from tests.populate import HARI
from tools.registry import Registry
from tools.stats import StatsQuery, stats
from tools.usage import Visitor, is_bot, korea_day, visitor_for

SECRET = b"s" * 32
BROWSER = {"user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/156.0 Safari/537.36"}


def test_the_visitor_hash_changes_at_midnight_korea_time_not_utc() -> None:
    before = datetime(2026, 11, 1, 14, 59, 59, tzinfo=UTC)  # 23:59:59 in Seoul
    after = datetime(2026, 11, 1, 15, 0, 0, tzinfo=UTC)  # 00:00:00 the next day in Seoul
    same_day = datetime(2026, 11, 1, 0, 0, 0, tzinfo=UTC)
    assert korea_day(before) == "2026-11-01" and korea_day(after) == "2026-11-02"
    first = visitor_for(SECRET, "203.0.113.7", None, before)
    assert visitor_for(SECRET, "203.0.113.7", None, same_day).hash == first.hash
    assert visitor_for(SECRET, "203.0.113.7", None, after).hash != first.hash
    assert visitor_for(SECRET, "203.0.113.8", None, before).hash != first.hash
    assert visitor_for(b"t" * 32, "203.0.113.7", None, before).hash != first.hash  # the secret matters
    assert first.hash is not None and "203.0.113.7" not in first.hash and len(first.hash) == 64


@pytest.mark.parametrize(
    ("agent", "bot"),
    [
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", True),
        ("Mozilla/5.0 (compatible; bingbot/2.0)", True),
        ("GPTBot/1.1", True),
        ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/156.0 Safari/537.36", True),
        (BROWSER["user-agent"], False),
        ("curl/8.5.0", False),  # a person's tool, or an agent acting for one
        ("python-httpx/0.28", False),
        (None, False),
    ],
)
def test_known_crawlers_are_bots_and_people_s_tools_are_not(agent: str | None, bot: bool) -> None:
    assert is_bot(agent) is bot


async def flush_and_read(client: httpx.AsyncClient) -> dict[str, int]:
    runtime = client._transport.app.state.runtime  # type: ignore[attr-defined]
    await runtime.registry.usage.flush(runtime.registry.store)
    body = (await client.get("/v1/stats")).json()
    return {**body["reuses"], "visits": body["visits"]}


@pytest.mark.anyio
async def test_reading_pages_counts_no_reuse_but_their_download_links_do(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    for path in ("/", "/tasks/clinicalqa", f"/r/{run_id}", f"/models/{HARI.slug}"):
        assert (await data_client.get(path, headers=BROWSER)).status_code == 200
    assert await flush_and_read(data_client) == {"total": 0, "lookups": 0, "downloads": 0, "visits": 0}
    await data_client.get("/v1/leaderboard.csv?task=clinicalqa@0", headers=BROWSER)  # the task page's CSV link
    await data_client.get(f"/v1/results/{run_id}", headers=BROWSER)  # the result page's JSON link
    await data_client.get(f"/artifacts/{run_id}/predictions.parquet", headers=BROWSER)  # its predictions link
    await data_client.get("/v1/leaderboard?task=clinicalqa@0", headers=BROWSER)  # leaderboard JSON: not a download
    assert await flush_and_read(data_client) == {"total": 3, "lookups": 0, "downloads": 3, "visits": 0}


@pytest.mark.anyio
async def test_lookups_by_crawlers_are_not_counted(data_client: httpx.AsyncClient) -> None:
    params = {"model": HARI.slug, "task": "clinicalqa@0"}
    await data_client.get("/v1/lookup", params=params, headers={"user-agent": "Mozilla/5.0 (compatible; bingbot/2.0)"})
    await data_client.get("/v1/lookup", params=params, headers=BROWSER)
    counts = await flush_and_read(data_client)
    assert counts["lookups"] == 1 and counts["total"] == 1


@pytest.mark.anyio
async def test_a_flush_that_fails_keeps_its_events_for_the_next_one(registry: Registry) -> None:
    """A write refused by SQLite (here a trigger another connection installed) rolls back; the events and visits
    it held go back to the buffer, and the next flush stores each of them once."""
    usage = registry.usage
    visitor = Visitor(hash="h" * 64, day="2026-11-30")
    usage.count_lookup(visitor, "a" * 12)
    usage.count_download(visitor, "/artifacts/x/predictions.parquet", "a" * 12)
    usage.count_served(visitor, "/tasks/clinicalqa")
    usage.count_visit(visitor, "/tasks/clinicalqa")
    other = sqlite3.connect(registry.store.path, isolation_level=None)
    try:
        other.execute("CREATE TRIGGER refuse BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'refused'); END")
        with pytest.raises(sqlite3.IntegrityError):
            await usage.flush(registry.store)
        assert (len(usage.pending), len(usage.pending_visits)) == (2, 1)
        other.execute("DROP TRIGGER refuse")
    finally:
        other.close()
    assert await usage.flush(registry.store) == 3
    assert (usage.pending, usage.pending_visits) == ([], [])
    assert [tuple(row) for row in registry.store.read("SELECT kind FROM events ORDER BY kind")] == [
        ("download",),
        ("lookup",),
    ]
    assert [tuple(row) for row in registry.store.read("SELECT path FROM visits")] == [("/tasks/clinicalqa",)]


@pytest.mark.anyio
async def test_lookups_repeated_between_flushes_are_one_row_that_counts_each_and_downloads_count_once(
    registry: Registry,
) -> None:
    """An agent calling lookup in a loop costs one write per flush, and /v1/stats still counts every call."""
    usage = registry.usage
    one, other = Visitor(hash="a" * 64, day="2026-11-30"), Visitor(hash="b" * 64, day="2026-11-30")
    for _ in range(250):
        usage.count_lookup(one, "c" * 12)
    usage.count_lookup(other, "c" * 12)
    usage.count_lookup(Visitor(hash="a" * 64, day="2026-12-01"), "c" * 12)  # a new day is a new visitor
    for _ in range(3):
        usage.count_download(one, "/artifacts/c/predictions.parquet", "c" * 12)
    usage.count_lookup(Visitor(hash=None, day="2026-11-30"), "c" * 12)  # no hash (stdio before its key): kept apart
    usage.count_lookup(Visitor(hash=None, day="2026-11-30"), "c" * 12)
    assert await usage.flush(registry.store) == 6
    for _ in range(4):  # the next flush's repeats add their own row
        usage.count_lookup(one, "c" * 12)
    await usage.flush(registry.store)
    rows = registry.store.read("SELECT kind, visitor, day, n FROM events ORDER BY kind, day, visitor, n")
    assert [(row["kind"], (row["visitor"] or "-")[:1], row["day"], row["n"]) for row in rows] == [
        ("download", "a", "2026-11-30", 1),
        ("lookup", "-", "2026-11-30", 1),
        ("lookup", "-", "2026-11-30", 1),
        ("lookup", "a", "2026-11-30", 4),
        ("lookup", "a", "2026-11-30", 250),
        ("lookup", "b", "2026-11-30", 1),
        ("lookup", "a", "2026-12-01", 1),
    ]
    reuses = (await stats(registry, StatsQuery())).reuses
    assert (reuses.lookups, reuses.downloads) == (250 + 1 + 1 + 2 + 4, 1)
