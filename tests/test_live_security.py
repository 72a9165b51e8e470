"""Security on a real server: the security headers on every route and every kind of answer (pages, JSON, files,
MCP, errors from the app, refusals from the HTTP layer, an internal error); CSRF on every state-changing form;
the maintainers' API takes no cookie; brute force on the login is limited whatever X-Forwarded-For says; and
privacy: after traffic from known addresses, neither the logs nor any file of the store holds an address or a
maintainer's token."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.routing import Route

from server.app import build_app
from server.settings import Settings
from tests.conftest import LiveServer, free_port, running
from tests.populate import HARI, MEDGEMMA
from tests.review_support import bearer, make_maintainer, poll_sync, query
from tests.snapshots import database_rows
from tests.test_review_auth import log_in, propose_hari

pytestmark = pytest.mark.anyio
PARAMETER = re.compile(r"{(\w+)(?::\w+)?}")


def security_headers_present(headers: httpx.Headers | dict[str, str], where: str) -> None:
    assert "frame-ancestors 'none'" in headers.get("content-security-policy", ""), where
    assert "default-src 'self'" in headers.get("content-security-policy", ""), where
    assert headers.get("x-content-type-options") == "nosniff", where
    assert headers.get("referrer-policy") == "no-referrer", where


@pytest.fixture
async def token(settings: Settings, run_ids: dict[str, str]) -> str:
    await propose_hari(settings)
    return await make_maintainer(settings)


def route_values(run_id: str) -> dict[str, str]:
    return {
        "run_id": run_id,
        "slug": "clinicalqa",
        "id": "medbench",
        "item_id": "1",
        "reading_id": "1",
        "request_id": "1",
        "task": "clinicalqa@0",
        "model": MEDGEMMA.slug.replace("/", "%2F"),
        "path": "x",
    }


def concrete(path: str, values: dict[str, str]) -> str:
    return PARAMETER.sub(lambda match: values.get(match.group(1), "x"), path)


def raw(port: int, request: bytes) -> dict[str, str]:
    with socket.create_connection(("127.0.0.1", port), timeout=20) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    return dict(line.lower().split(": ", 1) for line in head[1:] if ": " in line) | {"status": head[0].split()[1]}


async def test_every_route_and_every_kind_of_answer_carries_the_security_headers(
    settings: Settings, run_ids: dict[str, str], token: str
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"]
    values = route_values(run_id)
    routes = [route for route in build_app(settings).routes if isinstance(route, Route)]
    with LiveServer(settings) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            checked = set()
            for route in routes:
                for method in sorted((route.methods or {"GET"}) - {"HEAD"}):
                    url = concrete(route.path, values)
                    response = await http.request(method, url, headers=bearer(token) if "/review/" in url else {})
                    security_headers_present(response.headers, f"{method} {url} -> {response.status_code}")
                    checked.add(response.status_code)
            extra = [
                ("GET", "/static/site.css" if Path("web/static/site.css").exists() else "/static/none.css"),
                ("GET", "/no/such/page"),
                ("GET", "/v1/no-such-route"),
                ("DELETE", "/v1/tasks"),
                ("HEAD", "/"),
                ("GET", f"/artifacts/{run_id}/predictions.parquet"),
                ("GET", "/v1/lookup?model=%ff&task=x"),
            ]
            for method, url in extra:
                response = await http.request(method, url)
                security_headers_present(response.headers, f"{method} {url} -> {response.status_code}")
                checked.add(response.status_code)
            mcp = await http.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}},
                headers={"accept": "application/json, text/event-stream"},
            )
            security_headers_present(mcp.headers, "POST /mcp")
            path = settings.artifacts_dir / f"{run_id}/predictions.parquet"
            path.write_bytes(b"not parquet any more")  # a damaged file: a real internal error
            broken = await http.get(f"/v1/predictions/{run_id}?limit=1")
            assert broken.status_code == 500 and broken.json()["error"] == "internal"
            security_headers_present(broken.headers, "an internal error")
            checked.add(broken.status_code)
        for request in (
            b"GET /v1/stats HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n",
            b"GET /v1/lookup?model=" + b"a" * 20_000 + b" HTTP/1.1\r\n\r\n",
            b"GET /\xff HTTP/1.1\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999\r\n\r\n",
        ):
            headers = raw(server.port, request)
            security_headers_present(headers, f"{request[:30]!r} -> {headers['status']}")
            checked.add(int(headers["status"]))
    assert {200, 400, 401, 404, 405, 413, 414, 431, 500} <= checked, checked


@pytest.fixture
async def signed_in(settings: Settings, token: str) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    async with running(settings) as http:
        yield http, await log_in(http, token)


async def test_every_state_changing_form_refuses_a_post_without_its_csrf_token_and_changes_nothing(
    signed_in: tuple[httpx.AsyncClient, str], settings: Settings, run_ids: dict[str, str]
) -> None:
    http, csrf = signed_in
    values = route_values(run_ids[f"{HARI.slug}@clinicalqa@0"])
    forms = [
        route
        for route in build_app(settings).routes
        if isinstance(route, Route)
        and "POST" in (route.methods or set())
        and not route.path.startswith(("/v1/", "/mcp"))
    ]
    assert {"/review/login", "/review/logout", "/withdraw", "/review/papers"} <= {r.path for r in forms}
    before = database_rows(settings.db, skip=("events",))
    for route in forms:
        url = concrete(route.path, values)
        fields = {
            "why": "x",
            "reason": "x",
            "run_id": values["run_id"],
            "status": "building",
            "token": "x",
            "endpoint": "http://127.0.0.1:9/v1",
        }
        for data in (fields, {**fields, "csrf": "0" * len(csrf), "form_token": "1.forged"}):
            response = await http.post(url, data=data)
            assert response.status_code in {400, 401, 403}, (url, response.status_code, response.text[:200])
        foreign = await http.post(
            url,
            data={**fields, "csrf": csrf},
            headers={"origin": "https://evil.example", "sec-fetch-site": "cross-site"},
        )
        assert foreign.status_code in {400, 401, 403}, (url, foreign.status_code)
    assert database_rows(settings.db, skip=("events",)) == before


async def test_the_maintainers_api_takes_a_bearer_token_and_never_the_session_cookie(
    signed_in: tuple[httpx.AsyncClient, str], token: str
) -> None:
    http, csrf = signed_in
    assert http.cookies, "the login set a session cookie"
    with_cookie = await http.post("/v1/review/items/1/reject", json={"why": "no"}, headers={"x-csrf": csrf})
    assert with_cookie.status_code == 401 and with_cookie.json()["error"] == "unauthorized"
    queue = await http.get("/v1/review/queue")
    assert queue.status_code == 401
    assert (await http.get("/v1/review/queue", headers=bearer(token))).status_code == 200


def serve(settings: Settings, port: int, log: Path, *flags: str) -> subprocess.Popen[bytes]:
    """`benchtoward serve` as deployed (its own proxy-header settings), at the most verbose log level."""
    command = [
        sys.executable,
        "-m",
        "server.cli",
        "serve",
        "--db",
        str(settings.db),
        "--port",
        str(port),
        "--log-level",
        "debug",
        *flags,
    ]
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env={**os.environ})
    poll_sync(lambda: True if _answers(port) else None, timeout=60)
    return process


def _answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def client_from(address: str, port: int) -> httpx.AsyncClient:
    """A client whose connections leave from `address` (127.0.0.0/8 is all loopback on Linux)."""
    return httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", timeout=30, transport=httpx.AsyncHTTPTransport(local_address=address)
    )


async def test_brute_force_on_the_login_is_limited_whatever_x_forwarded_for_claims(
    settings: Settings, token: str, tmp_path: Path
) -> None:
    port = free_port()
    server = serve(settings, port, tmp_path / "server.log")
    try:
        statuses = []
        async with client_from("127.0.0.2", port) as http:
            for attempt in range(14):
                form = (await http.get("/review/login")).text
                form_token = form.split('name="form_token" value="', 1)[1].split('"', 1)[0]
                response = await http.post(
                    "/review/login",
                    data={"token": f"btm_wrong_{attempt}", "form_token": form_token},
                    headers={"x-forwarded-for": f"198.51.100.{attempt}"},
                )
                statuses.append(response.status_code)
        assert statuses[:10] == [401] * 10 and set(statuses[10:]) == {429}, statuses
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


ADDRESSES = ["127.0.0.2", "127.0.0.3", "203.0.113.7", "198.51.100.23"]


async def test_traffic_from_known_addresses_leaves_no_address_or_token_in_logs_or_files(
    settings: Settings, run_ids: dict[str, str], token: str, tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    server = serve(settings, port, log)
    run_id = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    try:
        for address in ADDRESSES[:2]:
            async with client_from(address, port) as http:
                for url in (
                    "/",
                    f"/r/{run_id}",
                    "/tasks/clinicalqa",
                    "/v1/lookup?model=medgemma-27b&task=clinicalqa@0",
                    f"/artifacts/{run_id}/predictions.parquet",
                    "/v1/leaderboard.csv?task=clinicalqa@0",
                    "/no/such/page",
                    "/v1/lookup?model=%ff&task=x",
                    "/review",
                ):
                    await http.get(url, headers={"x-forwarded-for": "203.0.113.7"})  # not trusted from here
                await http.post(
                    "/mcp",
                    json={
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "tools/call",
                        "params": {"name": "lookup", "arguments": {"model": "medgemma-27b", "task": "clinicalqa@0"}},
                    },
                    headers={"accept": "application/json, text/event-stream"},
                )
                await http.get("/v1/review/queue", headers=bearer(token))
                await http.get("/v1/review/queue", headers=bearer(token[:-4] + "zzzz"))
                await http.post("/review/login", data={"token": token[:-2] + "xx", "form_token": "1.x"})
                await http.post("/v1/withdrawals", json={"run_id": run_id, "reason": "a test of privacy"})
        async with client_from("127.0.0.1", port) as http:  # uvicorn trusts X-Forwarded-For from 127.0.0.1 only
            for forwarded in ADDRESSES[2:]:
                await http.get(
                    "/v1/lookup?model=medgemma-27b&task=clinicalqa@0", headers={"x-forwarded-for": forwarded}
                )
                await http.get(f"/artifacts/{run_id}/predictions.parquet", headers={"x-forwarded-for": forwarded})
    finally:
        server.send_signal(signal.SIGTERM)  # a clean stop writes the buffered reuse events
        server.wait(timeout=60)
    visitors = {row[0] for row in query(settings.db, "SELECT visitor FROM events WHERE visitor IS NOT NULL")}
    assert len(visitors) >= 3  # the traffic was counted, by daily hash
    secret_part = token.split("_", 2)[2]  # the whole secret: it may itself hold "_", so never its last piece
    files = [log, *[p for p in tmp_path.rglob("*") if p.is_file()]]
    assert settings.db.exists() and any(str(p).endswith("-wal") or p == settings.db for p in files)
    for path in files:
        content = path.read_bytes()
        for needle in [*ADDRESSES, token, secret_part]:
            assert needle.encode() not in content, f"{needle} found in {path}"
