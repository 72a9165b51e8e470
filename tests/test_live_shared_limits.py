"""Two `benchtoward serve` processes on one database file enforce one rate limit between them: the windows live
in the store, not in each process (with `--workers N` a limit was N times itself)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest

from server.settings import Settings
from tests.conftest import free_port
from tests.review_support import poll_sync, query
from tools.ratelimit import LOGIN_FAILURES

pytestmark = pytest.mark.anyio


def answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def serving(db: Path, log: Path) -> Iterator[str]:
    """One `benchtoward serve` process on `db` and a free port; its URL."""
    port = free_port()
    command = [sys.executable, "-m", "server.cli", "serve", "--db", str(db), "--port", str(port)]
    with log.open("wb") as output:
        server = subprocess.Popen([*command, "--log-level", "warning"], stdout=output, stderr=output)
    url = f"http://127.0.0.1:{port}"
    try:
        poll_sync(lambda: True if answers(url) else None, timeout=90)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=60)


async def test_failed_logins_spread_over_two_processes_meet_one_limit(
    settings: Settings, run_ids: dict[str, str], tmp_path: Path
) -> None:
    with ExitStack() as stack:
        urls = [stack.enter_context(serving(settings.db, tmp_path / f"server{i}.log")) for i in range(2)]
        statuses = []
        async with httpx.AsyncClient(timeout=30) as http:
            for attempt in range(LOGIN_FAILURES.per_visitor + 2):  # alternately to each process
                answer = await http.get(
                    f"{urls[attempt % 2]}/v1/review/queue", headers={"authorization": f"Bearer wrong-{attempt}"}
                )
                statuses.append(answer.status_code)
    allowed = LOGIN_FAILURES.per_visitor
    assert statuses == [401] * allowed + [429, 429]  # each process saw half: separate windows would allow 2x
    counted = query(settings.db, "SELECT COUNT(*) FROM rate_events WHERE limiter = 'login_failures'")
    assert counted[0][0] == allowed  # refused attempts take no place in the window
