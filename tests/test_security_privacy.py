"""Privacy that expires (issue 15, finding 9 of the security review): stored visitor hashes were
sha256(permanent secret ‖ day ‖ address), so whoever held the secret file could recover every past visitor's
address (two recovered in 0.16 s). Now each Korea-time day has a random key, made the day before in the store so
every worker agrees, and deleted (overwritten) once the day is over: afterwards nothing on the machine
reproduces that day's hashes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.settings import Settings
from store import Store
from store import visitor_keys as key_store
from tests.review_support import query
from tests.test_security_limits import visitors
from tools.usage import korea_day, visitor_for
from tools.visitor_keys import DailyKeys

pytestmark = pytest.mark.anyio
ADDRESS = "203.0.113.77"


def candidate_keys(settings: Settings) -> list[bytes]:
    """Every key on the machine that could have keyed a visitor hash: the secret file and the stored day keys."""
    stored = [bytes(row[0]) for row in query(settings.db, "SELECT key FROM visitor_keys")]
    return [settings.secret_file.read_bytes(), *stored]


def disk_bytes(db: Path) -> bytes:
    return b"".join(path.read_bytes() for path in db.parent.glob(f"{db.name}*"))


async def test_after_its_day_a_visitor_hash_cannot_be_recomputed_from_anything_stored(settings: Settings) -> None:
    """Finding 9: a beacon's stored hash is reproducible with today's key while the day lasts, and by nothing
    once the day's key is deleted at the next Korea-time day (what the server's key keeper does after midnight)."""
    async with visitors(settings) as client:
        browser = client(ADDRESS)
        assert (await browser.get("/")).status_code == 200  # the page first, as a browser does
        response = await browser.post("/v1/beacon", content=b"/", headers={"content-type": "text/plain"})
        assert response.status_code == 204, response.text
    (stored_hash, day), *_ = query(settings.db, "SELECT visitor, day FROM visits")
    today = datetime.now(UTC)
    assert day == korea_day(today)
    assert any(visitor_for(key, ADDRESS, None, today).hash == stored_hash for key in candidate_keys(settings))
    day_key = key_store.key_of_day(store := await Store.open(settings.db), day)
    try:
        assert day_key is not None
        await DailyKeys().refresh(store, today + timedelta(days=1))  # the next day begins
        assert key_store.key_of_day(store, day) is None
    finally:
        await store.close()
    assert not any(visitor_for(key, ADDRESS, None, today).hash == stored_hash for key in candidate_keys(settings))
    assert day_key not in disk_bytes(settings.db)  # deleted and overwritten, not only unlinked from the table


async def test_workers_agree_on_the_day_key_and_hold_only_today_and_tomorrow(settings: Settings) -> None:
    """Finding 9 with several worker processes: two stores on one file make and read the same keys."""
    first, second = await Store.open(settings.db), await Store.open(settings.db)
    try:
        now = datetime(2026, 12, 1, 15, 30, tzinfo=UTC)  # 00:30 on 2 December in Korea
        one, two = DailyKeys(), DailyKeys()
        await one.refresh(first, now)
        await two.refresh(second, now)
        assert one.keys == two.keys and sorted(one.keys) == ["2026-12-02", "2026-12-03"]
        assert one.key(first, "2026-12-02") == two.key(second, "2026-12-02")
        assert one.key(first, "2026-12-03") == two.key(second, "2026-12-03")  # a day begins: its key was ready
        assert sorted(one.keys) == ["2026-12-03"]  # the day before is forgotten in memory too
    finally:
        await first.close()
        await second.close()
