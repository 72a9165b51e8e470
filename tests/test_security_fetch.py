"""One resolution per fetch (issue 15, finding 4 of the security review): the private-address check resolved the
host, then the HTTP client resolved it again to connect, so a name answering a public address first and 127.0.0.1
second (DNS rebinding) reached loopback. The resolver is replaced at the boundary, the system's getaddrinfo,
exactly as a rebinding DNS server would answer; the documents are served by a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from tools.errors import FetchFailed
from tools.reading import fetch_document

pytestmark = pytest.mark.anyio
SECRET_BODY = b"# BenchToward: guide for AI agents (loopback only)\n"


class Files(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str]]] = []  # (path, Host header) of every request to the test's server

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("host", "")))
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", f"http://other.test:{self.server.server_address[1]}/doc.md")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/markdown")
        self.send_header("Content-Length", str(len(SECRET_BODY)))
        self.end_headers()
        self.wfile.write(SECRET_BODY)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def files() -> Iterator[ThreadingHTTPServer]:
    Files.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Files)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    thread.join(timeout=10)
    server.server_close()


def fake_dns(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> list[str]:
    """getaddrinfo answering each name in `answers` with its next address (the last one repeats); every other
    host (an address literal) resolves as usual. Returns the names looked up, in order."""
    real = socket.getaddrinfo
    lookups: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name not in answers:
            return real(host, port, *args, **kwargs)
        lookups.append(name)
        queue = answers[name]
        address = queue.pop(0) if len(queue) > 1 else queue[0]
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port or 0)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return lookups


async def test_a_name_that_rebinds_to_loopback_after_the_check_never_reaches_loopback(
    files: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 4: public first, 127.0.0.1 second. The fetch connects to the address it checked (the public one,
    unreachable or not ours), resolves once, and the loopback server hears nothing."""
    port = files.server_address[1]
    lookups = fake_dns(monkeypatch, {"rebind.attacker.test": ["93.184.216.34", "127.0.0.1"]})
    content = b""
    with contextlib.suppress(FetchFailed):
        content, _ = await fetch_document(f"http://rebind.attacker.test:{port}/llms.txt", timeout=2)
    assert Files.seen == [] and SECRET_BODY not in content
    assert lookups == ["rebind.attacker.test"]


async def test_the_fetch_connects_to_the_checked_address_with_the_original_host_on_every_hop(
    files: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 4 (a guard that held before too): each hop, the redirect included, is resolved once and sent to
    that address with its own name in the Host header, so pinning the address keeps virtual hosts working."""
    port = files.server_address[1]
    lookups = fake_dns(monkeypatch, {"papers.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    content, name = await fetch_document(f"http://papers.test:{port}/moved", allow_private=True)
    assert content == SECRET_BODY and name == "doc.md"
    assert Files.seen == [("/moved", f"papers.test:{port}"), ("/doc.md", f"other.test:{port}")]
    assert lookups == ["papers.test", "other.test"]


async def test_a_name_with_any_private_address_is_refused_before_connecting(
    files: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 4 (a guard that held before too): a name resolving to loopback is refused before connecting."""
    port = files.server_address[1]
    fake_dns(monkeypatch, {"mixed.test": ["127.0.0.1"]})
    with pytest.raises(Exception) as refused:
        await fetch_document(f"http://mixed.test:{port}/doc.md")
    assert getattr(refused.value, "code", "") == "bad_request" and Files.seen == []
