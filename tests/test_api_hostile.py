"""Hostile input on every route: SQL metacharacters, very long strings, NUL bytes and odd numbers in every
parameter of every operation of the OpenAPI document; then, over a real socket where the path is not
normalised, path traversal in /artifacts, invalid UTF-8, huge request lines and headers, a 200 MB body and
deeply nested JSON. Each gets a 4xx JSON error (or, for a plain filter value, the same answer as a value that
matches nothing), never a 5xx, and nothing in the database or the artifacts folder changes."""

from __future__ import annotations

import select
import socket
import urllib.parse
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from asgi_lifespan import LifespanManager

from server.app import build_app
from server.http_limits import MAX_HEADER_BYTES, MAX_URL_BYTES
from server.middleware import MAX_BODY_BYTES
from server.openapi import openapi_document
from server.settings import Settings
from tests.conftest import PUBLIC_URL, LiveServer
from tests.populate import HARI, MEDGEMMA
from tests.snapshots import database_rows, file_hashes

pytestmark = pytest.mark.anyio

HOSTILE = [
    "' OR '1'='1",
    "'; DROP TABLE results; --",
    '" OR ""="',
    "%' OR 1=1 --",
    "') UNION SELECT sql, sql FROM sqlite_master --",
    "*",
    "%",
    "_",
    "\\",
    "NULL",
    "a\x00b",
    "../../../etc/passwd",
    "..%2F..%2Fbenchtoward.db",
    "/etc/passwd",
    "\u202eevil",
    "😀" * 64,
    "x" * 20_000,  # over the socket this is a 414 (tested below); here the app itself must refuse it
    "-1",
    "1e9",
    "0x10",
    "１２",
    "99999999999999999999999",
]
NOTHING = "zzzz-nothing"  # a plain value that matches nothing: a hostile value must not answer more than it
FREE_TEXT = {("list_benchmarks", "q")}  # words searched by FTS: 'OR' and '1' are words there, not SQL


def operations(run_id: str, other_run_id: str) -> list[tuple[str, str, dict[str, str], list[str]]]:
    """(operationId, path template, valid values of the required parameters, every parameter name)."""
    valid = {"slug": "clinicalqa", "task": "clinicalqa@0", "model": "medgemma-27b", "run_id": run_id, "id": "medbench"}
    valid |= {"a": run_id, "b": other_run_id}  # compare: two results of the task
    found = []
    for path, methods in openapi_document(PUBLIC_URL)["paths"].items():
        if "get" not in methods or path.startswith("/v1/review/"):  # bodies and maintainers' routes: tested apart
            continue
        operation = methods["get"]
        names = [p["name"] for p in operation["parameters"]] or ["unknown"]
        required = {p["name"]: valid[p["name"]] for p in operation["parameters"] if p["required"]}
        found.append((operation["operationId"], path, required, names))
    return found


def url_of(path: str, values: dict[str, str]) -> str:
    query = {}
    for name, value in values.items():
        if "{" + name + "}" in path:
            path = path.replace("{" + name + "}", urllib.parse.quote(value, safe=""))
        else:
            query[name] = value
    return path + ("?" + urllib.parse.urlencode(query) if query else "")


@pytest.fixture
async def app_and_client(settings: Settings, run_ids: dict[str, str]) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    application = build_app(settings)
    async with LifespanManager(application):
        transport = httpx.ASGITransport(app=application, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url=PUBLIC_URL) as http:
            yield application, http


def error_shape(response: httpx.Response) -> dict[str, Any]:
    assert response.headers["content-type"].startswith("application/json"), response.text[:200]
    body = orjson.loads(response.content)
    assert set(body) == {"error", "message"} and body["error"] and body["message"], body
    return body  # type: ignore[no-any-return]


async def test_hostile_values_in_every_parameter_get_a_json_error_or_nothing_more_and_change_nothing(
    app_and_client: tuple[Any, httpx.AsyncClient], run_ids: dict[str, str], settings: Settings
) -> None:
    application, http = app_and_client
    registry = application.state.runtime.registry
    await registry.usage.flush(registry.store)
    before = database_rows(settings.db, skip=("events",)), file_hashes(settings.artifacts_dir)
    checked = 0
    pair = run_ids[f"{HARI.slug}@clinicalqa@0"], run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    for name, path, required, parameters in operations(*pair):
        for parameter in parameters:
            baseline = await http.get(url_of(path, {**required, parameter: NOTHING}))
            for value in HOSTILE:
                counted = len(registry.usage.pending)
                response = await http.get(url_of(path, {**required, parameter: value}))
                where = f"{name} {parameter}={value[:40]!r}"
                assert response.status_code < 500, where
                if response.status_code >= 400:
                    error_shape(response)
                    assert len(registry.usage.pending) == counted, where  # a refused request counts nothing
                elif (name, parameter) not in FREE_TEXT:
                    assert response.status_code == baseline.status_code == 200, where
                    assert response.content == baseline.content, where  # no wider match than a plain miss
                checked += 1
    assert checked > 400
    # Only reuse counting writes on a read (a CSV answered like a plain miss counts as a download, as it should).
    assert (database_rows(settings.db, skip=("events",)), file_hashes(settings.artifacts_dir)) == before


def raw_request(server: LiveServer, head: bytes, body: bytes = b"", read_limit: int = 1 << 20) -> bytes:
    """Send bytes exactly as given (no client normalises the path) and read the answer until the server closes."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as connection:
        connection.sendall(head + body)
        answer = b""
        while len(answer) < read_limit:
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer


def parse_answer(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body


def get(target: bytes, extra: bytes = b"") -> bytes:
    return b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + b"Connection: close\r\n\r\n"


TRAVERSALS = [
    b"/artifacts/../benchtoward.db",
    b"/artifacts/%2e%2e/benchtoward.db",
    b"/artifacts/..%2fbenchtoward.db/predictions.parquet",
    b"/artifacts/..%2F..%2F..%2Fetc%2Fpasswd/predictions.parquet",
    b"/artifacts/%2fetc%2fpasswd/predictions.parquet",
    b"/artifacts//etc/passwd",
    b"/artifacts/..\\..\\benchtoward.db/predictions.parquet",
    b"/artifacts/RUN/../../benchtoward.db",
    b"/artifacts/RUN/..%2f..%2fbenchtoward.db",
    b"/artifacts/RUN%2f..%2f..%2fbenchtoward-secret/predictions.parquet",
    b"http://127.0.0.1/artifacts/%2e%2e%2fbenchtoward.db/predictions.parquet",
    b"/static/../../server/app.py",
    b"/static/%2e%2e/%2e%2e/server/app.py",
]


async def test_paths_that_climb_out_of_artifacts_are_refused_as_sent_on_the_socket(
    data_live_server: LiveServer, run_ids: dict[str, str], settings: Settings
) -> None:
    run_id = run_ids[f"{HARI.slug}@clinicalqa@0"].encode()
    secret = settings.secret_file.read_bytes()
    served = parse_answer(raw_request(data_live_server, get(b"/artifacts/" + run_id + b"/predictions.parquet")))
    assert served[0] == 200 and served[2].startswith(b"PAR1")  # the route works for a real run id
    for target in TRAVERSALS:
        status, headers, body = parse_answer(raw_request(data_live_server, get(target.replace(b"RUN", run_id))))
        assert 400 <= status < 500, target
        assert headers["content-type"].startswith(("application/json", "text/html")), target
        assert b"SQLite format" not in body and b"build_app" not in body and secret not in body, target
        assert b"root:" not in body, target


@pytest.mark.parametrize(
    "request_bytes",
    [
        get(b"/v1/tasks/\xff\xfe"),
        get(b"/v1/lookup?model=\xff&task=clinicalqa"),
        get(b"/v1/tasks/%ff%fe"),
        get(b"/artifacts/%ff/predictions.parquet"),
        get(b"/v1/lookup?model=%ff%fe&task=clinicalqa@0"),
        get(b"/v1/results?model=%c0%af"),
        get(b"/v1/stats", b"X-Bad: \xff\xfe\r\n"),
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64,  # a TLS hello on the plain port
        b"GET /v1/stats HTTP/9.9\r\n\r\n",
    ],
    ids=[
        "raw-path",
        "raw-query",
        "pct-path",
        "pct-artifacts",
        "pct-query",
        "overlong-utf8",
        "raw-header",
        "tls-hello",
        "bad-version",
    ],
)
async def test_invalid_utf8_and_malformed_requests_get_a_json_400(
    live_server: LiveServer, request_bytes: bytes
) -> None:
    status, headers, body = parse_answer(raw_request(live_server, request_bytes))
    if request_bytes.endswith(b"X-Bad: \xff\xfe\r\nConnection: close\r\n\r\n"):
        assert status == 200  # an unread header's bytes harm nothing; the request itself is fine
        return
    assert status == 400, body[:200]
    assert orjson.loads(body)["error"] == "bad_request"
    assert headers["x-content-type-options"] == "nosniff"


async def test_huge_request_lines_and_headers_are_refused_before_the_app_sees_them(
    live_server: LiveServer,
) -> None:
    cases = [
        (get(b"/v1/lookup?task=clinicalqa&model=" + b"a" * (MAX_URL_BYTES + 1)), 414, "uri_too_long"),
        (get(b"/v1/lookup?model=" + b"a" * 200_000), 414, "uri_too_long"),
        (get(b"/v1/stats", b"X-Big: " + b"a" * (MAX_HEADER_BYTES + 1) + b"\r\n"), 431, "headers_too_large"),
        (get(b"/v1/stats", b"X-Big: " + b"a" * 8_000_000 + b"\r\n"), 431, "headers_too_large"),
        (get(b"/v1/stats", b"".join(b"X-%d: a\r\n" % i for i in range(20_000))), 431, "headers_too_large"),
    ]
    for request_bytes, expected, code in cases:
        status, headers, body = parse_answer(raw_request(live_server, request_bytes))
        assert (status, orjson.loads(body)["error"]) == (expected, code)
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
    within = get(b"/v1/stats", b"X-Fine: " + b"a" * (MAX_HEADER_BYTES // 2) + b"\r\n")
    assert parse_answer(raw_request(live_server, within))[0] == 200


async def test_a_200_mb_body_is_refused_by_its_length_before_it_is_sent(live_server: LiveServer) -> None:
    head = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nContent-Length: 200000000\r\n\r\n"
    )
    status, _, body = parse_answer(raw_request(live_server, head))  # no body sent: the answer comes anyway
    assert status == 413 and orjson.loads(body)["error"] == "payload_too_large"


async def test_a_chunked_body_is_answered_413_at_the_limit_while_the_client_is_still_sending(
    live_server: LiveServer,
) -> None:
    head = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"10000\r\n" + b" " * 65536 + b"\r\n"
    sent = 0
    answer = b""
    with socket.create_connection(("127.0.0.1", live_server.port), timeout=20) as connection:
        connection.sendall(head)
        while sent < 200 * 1024 * 1024 and not answer:
            connection.sendall(chunk)
            sent += 65536
            readable, _, _ = select.select([connection], [], [], 0)
            if readable:
                answer = connection.recv(65536)
        while answer.count(b"}") < 1:  # the rest of the answer, if it came in pieces
            answer += connection.recv(65536)
    status, _, body = parse_answer(answer)
    assert status == 413 and orjson.loads(body)["error"] == "payload_too_large"
    assert MAX_BODY_BYTES < sent < 200 * 1024 * 1024  # answered near the limit, not after 200 MB


async def test_deeply_nested_json_gets_a_json_rpc_parse_error_and_the_server_goes_on(
    live_server: LiveServer,
) -> None:
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    nested_arguments = '{"model": ' + "[" * 50_000 + "]" * 50_000 + ', "task": "clinicalqa@0"}'
    bodies = [
        "[" * 200_000 + "]" * 200_000,
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lookup", "arguments": '
        + nested_arguments
        + "}}",
        '{"a":' * 100_000 + "1" + "}" * 100_000,
    ]
    async with httpx.AsyncClient(timeout=30) as http:
        for body in bodies:
            response = await http.post(f"{live_server.url}/mcp", content=body, headers=headers)
            assert response.status_code == 400, response.text[:200]
            assert response.json()["error"]["code"] == -32700  # JSON-RPC parse error
        assert (await http.get(f"{live_server.url}/healthz")).status_code == 200


async def test_hostile_mcp_tool_arguments_get_an_error_result_with_a_code(
    data_live_server: LiveServer,
) -> None:
    from mcp import Client

    async with Client(f"{data_live_server.url}/mcp") as mcp:
        for value in ["' OR '1'='1", "x" * 100_000, "a\x00b", "../../etc/passwd"]:
            result = await mcp.call_tool("lookup", {"model": value, "task": "clinicalqa@0"})
            assert result.is_error and result.content[0].text.startswith("bad_request: ")  # type: ignore[union-attr]
            result = await mcp.call_tool("get_result", {"run_id": value})
            assert result.is_error
            assert result.content[0].text.split(":")[0] in {"bad_request", "run_not_found"}  # type: ignore[union-attr]
        wrong_type = await mcp.call_tool("leaderboard", {"task": "clinicalqa@0", "limit": "' OR 1=1"})
        assert wrong_type.is_error
