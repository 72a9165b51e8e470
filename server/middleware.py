"""`Front`, the one middleware around the app (plain ASGI: BaseHTTPMiddleware costs a task per request).

For every request: refuses a URL that is not UTF-8 and a body over its limit; answers CORS preflights under
/v1; then, on the answer, adds the security headers (byte pairs built once), the caching headers, ETag and
304 (server/http_cache.py), gzip when asked, CORS; turns an exception no handler took into the `internal`
answer; and logs one line without the client's address. Everything that does not depend on the request is
computed when the app is built.
"""

from __future__ import annotations

import logging
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server import http_cache
from server.errors import unexpected_error
from server.http_cache import Kind
from server.logs import printable
from tools.errors import BadRequest, PayloadTooLarge

access_log = logging.getLogger("benchtoward.access")
Handler = Callable[[Request, Exception], Awaitable[Response]]

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
PREFLIGHT_HEADERS = [*http_cache.PREFLIGHT_HEADERS, *SECURITY_HEADERS]
MAX_BODY_BYTES = 1024 * 1024  # the ceiling of every route but those given a larger one; routes check their own
VARY = (b"vary", b"Accept-Encoding")
# Headers a 304 keeps (RFC 9110 §15.4.5): the validators and what a cache needs to update its stored answer.
NOT_MODIFIED_KEEPS = frozenset({b"etag", b"cache-control", b"vary", b"expires", b"content-location", b"date"})


def utf8_url(scope: Scope) -> bool:
    """Whether the percent-decoded path and query are UTF-8 (uvicorn would turn %ff into U+FFFD silently)."""
    for raw in (scope.get("raw_path") or b"", scope.get("query_string", b"")):
        if b"%" in raw:
            try:
                urllib.parse.unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
            except UnicodeDecodeError:
                return False
    return True


def too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"the request body is over the limit of {limit} bytes")


async def refuse(send: Send, error: BadRequest | PayloadTooLarge) -> None:
    body = orjson.dumps(error.body().model_dump())
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        (b"cache-control", Kind.UNCACHED.value),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def not_modified(start: Message, gzipped: bool) -> Message:
    """The 304 for a start message: only the headers a cache updates its stored answer with."""
    kept = []
    for name, value in start["headers"]:
        if name in NOT_MODIFIED_KEEPS:
            kept.append((name, http_cache.gzip_tag(value) if name == b"etag" and gzipped else value))
    return {"type": "http.response.start", "status": 304, "headers": kept}


class Answer:
    """The answer to one request on its way out: headers added once at its start, 304 or gzip applied."""

    __slots__ = ("cors", "dropping", "etag", "gzip", "held", "kind", "over", "send", "started", "status", "wants")

    def __init__(self, send: Send, kind: Kind, etag: bytes | None, headers: dict[bytes, bytes], cors: bool) -> None:
        self.send = send
        self.kind = kind
        self.etag = etag  # the registry's tag for this answer, if it is one
        self.wants = headers.get(b"if-none-match")
        self.gzip = http_cache.accepts_gzip(headers.get(b"accept-encoding"))
        self.cors = cors
        self.status = 500
        self.started = False
        self.held: Message | None = None  # a start held until the body says whether to compress
        self.dropping = False  # a 304 was sent: the body is not
        self.over = False  # the request body went past its limit: the app's answer is replaced

    async def __call__(self, message: Message) -> None:
        if self.over:
            return
        if message["type"] == "http.response.start":
            await self.start(message)
        elif message["type"] == "http.response.body" and (self.held is not None or self.dropping):
            await self.body(message)
        elif self.held is not None or self.dropping:  # another kind of body (an ASGI extension): never compressed
            if self.held is not None:
                await self.body({"type": "http.response.body", "body": b"", "more_body": not self.dropping})
            if not self.dropping:
                await self.send(message)
        else:
            await self.send(message)

    async def start(self, message: Message) -> None:
        self.status, self.started = message["status"], True
        headers: list[tuple[bytes, bytes]] = list(message.get("headers", ()))
        headers += SECURITY_HEADERS
        if self.cors:
            headers += http_cache.CORS_HEADERS
        fields = dict(headers)
        cacheable = self.status == 200 and self.kind is not Kind.PRIVATE and self.kind is not Kind.UNCACHED
        if not cacheable:
            if b"cache-control" not in fields:
                headers.append((b"cache-control", Kind.PRIVATE.value if self.kind is Kind.PRIVATE else b"no-store"))
            message["headers"] = headers
            await self.send(message)
            return
        if b"cache-control" not in fields:
            headers.append((b"cache-control", self.kind.value))
        etag = fields.get(b"etag")
        if etag is None and self.etag is not None and http_cache.tagged(self.kind):
            etag = self.etag
            headers.append((b"etag", etag))
        compress = http_cache.compressible(fields.get(b"content-type")) and b"content-encoding" not in fields
        if compress:
            headers.append(VARY)
        message["headers"] = headers
        if etag is not None and http_cache.matches(self.wants, etag):
            self.dropping, self.status = True, 304  # sent with the body's first part: it says which tag applies
            self.held = message
            self.gzip = compress and self.gzip
            return
        if compress and self.gzip:
            self.held = message
            return
        await self.send(message)

    async def body(self, message: Message) -> None:
        start, self.held = self.held, None
        content, more = message.get("body", b""), message.get("more_body", False)
        whole = not more and start is not None and len(content) >= http_cache.GZIP_MIN_BYTES
        if self.dropping:
            if start is not None:
                await self.send(not_modified(start, gzipped=self.gzip and whole))
            if not more:
                await self.send({"type": "http.response.body", "body": b""})
            return
        assert start is not None
        if not whole:
            await self.send(start)  # a stream, or too small to gain: sent as it is
            await self.send(message)
            return
        packed = http_cache.gzipped(content)
        headers = []
        for name, value in start["headers"]:
            if name == b"content-length":
                value = str(len(packed)).encode()
            elif name == b"etag":
                value = http_cache.gzip_tag(value)
            headers.append((name, value))
        headers.append((b"content-encoding", b"gzip"))
        start["headers"] = headers
        await self.send(start)
        await self.send({"type": "http.response.body", "body": packed})


class Front:
    """The outermost middleware of the app (see the module's docstring)."""

    def __init__(
        self,
        app: ASGIApp,
        handlers: Mapping[Any, Handler],
        version: Callable[[], int],
        code: str,
        larger: dict[str, int] | None = None,
    ) -> None:
        self.app = app
        self.handlers: tuple[dict[Any, Handler], dict[int, Handler]] = (
            {key: value for key, value in handlers.items() if key is not Exception},
            {},
        )
        self.version = version  # the store generation answers are computed at (or after) from now on
        self.code = code  # the code's identity, part of every registry ETag
        self.larger = larger or {}  # exact paths (uploads) allowed a body over MAX_BODY_BYTES

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        answer = await self.answer(scope, receive, send)
        if answer is not None and access_log.isEnabledFor(logging.INFO):
            elapsed = (time.perf_counter() - started) * 1000
            path = printable(scope["path"])  # percent-decoded: %0a would be a line break
            access_log.info("%s %s %d %.1fms", scope["method"], path, answer.status, elapsed)

    async def answer(self, scope: Scope, receive: Receive, send: Send) -> Answer | None:
        method, path = scope["method"], scope["path"]
        headers = dict(scope["headers"])
        cors = http_cache.cors_path(path)
        if cors and method == "OPTIONS" and b"access-control-request-method" in headers:
            await send({"type": "http.response.start", "status": 204, "headers": PREFLIGHT_HEADERS})
            await send({"type": "http.response.body", "body": b""})
            return None
        kind = http_cache.kind_of(method, path)
        etag = http_cache.registry_etag(self.code, self.version()) if http_cache.tagged(kind) else None
        answer = Answer(send, kind, etag, headers, cors and method in ("GET", "HEAD"))
        limit = self.larger.get(path, MAX_BODY_BYTES)
        declared = headers.get(b"content-length")
        if not utf8_url(scope):
            await refuse(answer, BadRequest("the path or query string is not UTF-8 once percent-decoded"))
        elif declared is not None and not declared.isdigit():
            await refuse(answer, BadRequest("Content-Length must be a number of bytes"))
        elif declared is not None and int(declared) > limit:
            await refuse(answer, too_large(limit))
        elif declared in (None, b"0") and b"transfer-encoding" not in headers:
            await self.run(scope, receive, answer)  # no body: nothing to count
        else:
            await self.run(scope, self.counted(receive, answer, limit), answer)
            if answer.over and not answer.started:
                answer.over = False
                await refuse(answer, too_large(limit))
        return answer

    async def run(self, scope: Scope, receive: Receive, answer: Answer) -> None:
        """The app; an exception becomes its handler's answer (Starlette's ExceptionMiddleware, merged here), and
        one no handler takes the `internal` answer, inside this middleware: both carry the headers and are
        logged. Routes built from functions find the same handlers in the scope, as Starlette arranges."""
        scope["starlette.exception_handlers"] = self.handlers
        try:
            await self.app(scope, receive, answer)
        except Exception as exc:
            if answer.over and isinstance(exc, PayloadTooLarge):
                return  # the refusal is sent by `answer`'s caller
            if answer.started or answer.over:
                raise  # too late to answer: uvicorn logs it and closes the connection
            handler = next((self.handlers[0][c] for c in type(exc).__mro__ if c in self.handlers[0]), None)
            response = await (handler or unexpected_error)(Request(scope), exc)
            await response(scope, receive, answer)
            exc.__traceback__ = None  # reused exception instances would keep every traceback

    @staticmethod
    def counted(receive: Receive, answer: Answer, limit: int) -> Receive:
        """`receive`, refusing (and replacing the app's answer) once the body passes `limit` bytes."""
        received = 0

        async def receive_counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    answer.over = True
                    raise too_large(limit)
            return message

        return receive_counted
