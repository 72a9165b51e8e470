"""The documented deployment, run: nginx with deploy/nginx/benchtoward.conf (placeholders filled in) on loopback in
front of `benchtoward serve --workers 2 --forwarded-allow-ips 127.0.0.1`. nginx serves cache hits itself, the
real client address (not nginx's, not one a client claims) reaches the daily visitor hash, a rate limit holds once
across both workers, and when one worker is killed with SIGKILL the other answers."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil
import pytest

from server.settings import Settings
from tests.conftest import free_port
from tests.nginx_proxy import nginx_binary, nginx_in_front
from tests.review_support import poll_sync, query
from tools.ratelimit import LOGIN_FAILURES

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.timeout(240),
    pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed (make system-tools installs it)"),
]
LOOKUP = "/v1/lookup?model=medgemma-27b&task=clinicalqa@0"


def answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def two_workers(db: Path, port: int, log: Path) -> Iterator[psutil.Process]:
    """`benchtoward serve --workers 2` believing X-Forwarded-For from nginx (127.0.0.1) only; the master."""
    command = [sys.executable, "-m", "server.cli", "serve", "--db", str(db), "--port", str(port), "--workers", "2"]
    with log.open("wb") as output:
        server = subprocess.Popen(
            [*command, "--forwarded-allow-ips", "127.0.0.1", "--log-level", "warning"], stdout=output, stderr=output
        )
    try:
        poll_sync(lambda: True if answers(f"http://127.0.0.1:{port}") else None, timeout=90)
        master = psutil.Process(server.pid)
        poll_sync(lambda: True if len(master.children()) >= 2 else None, timeout=60)
        yield master
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:  # a loaded machine's graceful shutdown is not what this test is about
            server.kill()
            server.wait(timeout=30)


def dead(process: psutil.Process) -> bool:
    """Gone or a zombie. A worker is the master's child, not ours: only the master reaps it, on its own schedule
    (uvicorn pings each worker in turn, up to seconds each under load), so waiting for the reaping would time
    the master's supervision loop, not the kill."""
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def client(address: str, url: str) -> httpx.AsyncClient:
    """A client whose connections leave from `address` (all of 127.0.0.0/8 is loopback on Linux)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=url, timeout=30, transport=transport)


def workers_holding_connections(master: psutil.Process, port: int) -> list[psutil.Process]:
    """The workers with an open connection from nginx (its kept-alive upstream connections)."""
    return [
        worker
        for worker in master.children()
        if any(c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port for c in worker.net_connections("tcp"))
    ]


async def cache_hits_are_served_by_nginx(http: httpx.AsyncClient) -> None:
    first = await http.get(LOOKUP)
    assert first.status_code == 200 and first.headers["x-cache-status"] == "MISS"
    second = await http.get(LOOKUP)
    assert second.headers["x-cache-status"] == "HIT" and second.content == first.content
    assert second.headers["etag"] == first.headers["etag"]
    revalidated = await http.get(LOOKUP, headers={"if-none-match": first.headers["etag"]})
    assert revalidated.status_code == 304 and revalidated.headers["x-cache-status"] == "HIT"
    for path in ("/review/login", "/healthz", "/tasks"):  # private and no-store answers, pages: never from the cache
        for _ in range(2):
            assert (await http.get(path)).headers.get("x-cache-status", "") != "HIT", path


async def test_nginx_in_front_of_two_workers_caches_counts_real_visitors_limits_once_and_survives_a_kill(
    settings: Settings, run_ids: dict[str, str], tmp_path: Path
) -> None:
    upstream_port, nginx_port = free_port(), free_port()
    with (
        two_workers(settings.db, upstream_port, tmp_path / "server.log") as master,
        nginx_in_front(f"127.0.0.1:{upstream_port}", nginx_port, tmp_path / "nginx") as url,
    ):
        async with client("127.0.0.2", url) as first, client("127.0.0.3", url) as second:
            await cache_hits_are_served_by_nginx(first)
            forged = {"x-forwarded-for": "203.0.113.9"}  # both claim one address: nginx replaces the header
            for http, spelled in ((first, "MedGemma-27B"), (second, "MEDGEMMA-27B")):  # any case names the model
                answer = await http.get(LOOKUP.replace("medgemma-27b", spelled), headers=forged)  # a new URL: a worker
                assert answer.headers["x-cache-status"] == "MISS"
        visitors = "SELECT COUNT(DISTINCT visitor) FROM events WHERE kind = 'lookup'"
        poll_sync(lambda: True if query(settings.db, visitors)[0][0] == 2 else None, timeout=30)  # flushed in ~2 s

        allowed = LOGIN_FAILURES.per_visitor
        async with client("127.0.0.4", url) as attacker:
            bad = {"authorization": "Bearer not-a-valid-token"}
            before = [(await attacker.get("/v1/review/queue", headers=bad)).status_code for _ in range(allowed // 2)]
            serving = workers_holding_connections(master, upstream_port)
            assert serving, "nginx keeps its upstream connections open"
            killed = serving[0]
            killed.send_signal(signal.SIGKILL)
            poll_sync(lambda: True if dead(killed) else None, timeout=30)
            assert (await attacker.get("/healthz")).status_code == 200  # the other worker answers
            assert (await attacker.get(LOOKUP)).headers["x-cache-status"] == "HIT"
            after = [(await attacker.get("/v1/review/queue", headers=bad)) for _ in range(allowed - allowed // 2 + 2)]
    assert before == [401] * (allowed // 2)
    # The killed worker's count is not lost and the other's is not its own: the window is in the database.
    assert [a.status_code for a in after] == [401] * (allowed - allowed // 2) + [429, 429]
    assert after[-1].json()["error"] == "rate_limited" and int(after[-1].headers["retry-after"]) > 0
