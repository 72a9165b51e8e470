"""Bounded connections and honest logs, over real sockets to a real uvicorn on 127.0.0.1 (issue 15, findings 2,
7 and 8 of the security review): a silent client is closed and a slow one answered 408 once the head deadline
passes, an idle keep-alive connection is closed, connections past `--limit-concurrency` are answered 503 and
closed, X-Forwarded-For is believed only from the proxies named by `--forwarded-allow-ips`, and a path with CR,
LF or NUL is one escaped line in the server's log."""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
import time
from dataclasses import replace
from pathlib import Path

import httpx
import orjson
import pytest

from server.http_limits import HEAD_TIMEOUT_SECONDS, IDLE_TIMEOUT_SECONDS
from server.settings import Settings
from tests.conftest import LiveServer, free_port
from tests.review_support import bearer
from tests.test_live_security import serve

DEADLINE = HEAD_TIMEOUT_SECONDS + 5  # the most any wait below may take


def read_until_closed(connection: socket.socket, bound: float = DEADLINE) -> bytes:
    """Everything the server sends until it closes the connection (or the bound passes: then a timeout)."""
    connection.settimeout(bound)
    received = b""
    ends = time.monotonic() + bound
    while time.monotonic() < ends:
        chunk = connection.recv(65536)
        if not chunk:
            return received
        received += chunk
    raise TimeoutError(f"the server kept the connection open; received {received[:200]!r}")


def answer(raw: bytes) -> tuple[int, dict[str, object]]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), orjson.loads(body)


@pytest.mark.timeout(60)
def test_silent_and_slow_clients_are_closed_at_the_head_deadline_while_others_are_served(
    live_server: LiveServer,
) -> None:
    """Finding 2 (slowloris): connections that send nothing, or trickle a header line each second, used to stay
    open forever. Now the silent ones are closed and the slow ones answered 408 `request_timeout`."""
    port = live_server.port
    silent = [socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) for _ in range(5)]
    slow = [socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) for _ in range(5)]
    for connection in slow:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    stop = threading.Event()

    def trickle() -> None:
        for n in range(int(DEADLINE) + 5):
            if stop.wait(1.0):
                return
            for connection in slow:
                with contextlib.suppress(OSError):  # closed by the server: what this test expects
                    connection.sendall(b"X-Slow-%d: y\r\n" % n)

    sender = threading.Thread(target=trickle, daemon=True)
    sender.start()
    started = time.monotonic()
    try:
        assert httpx.get(f"{live_server.url}/healthz", timeout=5).status_code == 200  # others are served
        for connection in silent:
            assert read_until_closed(connection) == b""
        for connection in slow:
            status, body = answer(read_until_closed(connection))
            assert status == 408 and body["error"] == "request_timeout"
        assert HEAD_TIMEOUT_SECONDS - 0.5 <= time.monotonic() - started <= DEADLINE
    finally:
        stop.set()
        sender.join(timeout=5)
        for connection in silent + slow:
            connection.close()


@pytest.mark.timeout(60)
def test_an_idle_keep_alive_connection_is_closed(live_server: LiveServer) -> None:
    """Finding 2 (idle deadline): after its answer, a kept-alive connection that says nothing more is closed."""
    with socket.create_connection(("127.0.0.1", live_server.port), timeout=DEADLINE) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        started = time.monotonic()
        received = read_until_closed(connection, IDLE_TIMEOUT_SECONDS + 5)
        assert received.startswith(b"HTTP/1.1 200") and time.monotonic() - started >= IDLE_TIMEOUT_SECONDS - 0.5


@pytest.mark.timeout(60)
def test_connections_past_the_concurrency_limit_are_answered_503_and_closed(settings: Settings) -> None:
    """Finding 2 (connection cap): the 20,000 file descriptors allowed were the only bound. With
    `--limit-concurrency 4`, a connection beyond four open ones gets 503 `unavailable` at once and is closed;
    once the others are gone the server answers again."""
    with LiveServer(replace(settings, limit_concurrency=4)) as server:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE) for _ in range(4)]
        try:
            with socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE) as extra:
                status, body = answer(read_until_closed(extra, 5))
                assert status == 503 and body["error"] == "unavailable"
            held[0].sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert read_until_closed(held[0]).startswith(b"HTTP/1.1 200")  # the connections taken are served
        finally:
            for connection in held:
                connection.close()
        for _ in range(100):  # bounded: the server notices the closed connections
            if httpx.get(f"{server.url}/healthz", timeout=5).status_code == 200:
                break
            threading.Event().wait(0.05)
        assert httpx.get(f"{server.url}/healthz", timeout=5).status_code == 200


async def failed_login_statuses(url: str, count: int) -> list[int]:
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        return [
            (
                await http.get(
                    "/v1/review/queue", headers={**bearer("btm_wrong"), "x-forwarded-for": f"198.51.100.{n}"}
                )
            ).status_code
            for n in range(count)
        ]


@pytest.mark.anyio
async def test_x_forwarded_for_is_believed_only_from_the_proxies_the_operator_named(settings: Settings) -> None:
    """Finding 7: uvicorn believed X-Forwarded-For from 127.0.0.1 by default, so a local client could be any
    visitor. By default no proxy is believed (eleven failures from 127.0.0.1 are one visitor's); with
    `--forwarded-allow-ips 127.0.0.1` the header names the visitor."""
    with LiveServer(settings) as server:
        assert await failed_login_statuses(server.url, 11) == [401] * 10 + [429]
    with LiveServer(replace(settings, forwarded_allow_ips="127.0.0.1")) as server:
        assert await failed_login_statuses(server.url, 11) == [401] * 11


@pytest.mark.timeout(120)
def test_cr_lf_and_nul_in_a_path_are_one_escaped_line_in_the_server_log(settings: Settings, tmp_path: Path) -> None:
    """Finding 8: the access log wrote the percent-decoded path raw, so %0a forged log lines and %00 made the
    log binary. Against `benchtoward serve --workers 2` and its real log (each worker process logs through the
    same formatter): one request, one line, escapes visible."""
    port, log = free_port(), tmp_path / "server.log"
    server = serve(settings, port, log, "--log-level", "info", "--workers", "2")
    forged = "/x%0a2026-12-01%2013:45:00,000%20INFO%20benchtoward.access:%20POST%20/forged%20200%201.0ms%0d%00end"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            connection.sendall(f"GET {forged} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            assert read_until_closed(connection).startswith(b"HTTP/1.1 404")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    text = log.read_bytes()
    assert b"\x00" not in text and b"\r" not in text
    lines = [line for line in text.decode().splitlines() if "forged" in line]
    assert len(lines) == 1, lines
    assert "benchtoward.access: GET /x\\x0a2026-12-01 13:45:00,000 INFO" in lines[0]
    assert "/forged 200 1.0ms\\x0d\\x00end 404 " in lines[0]
