"""Plain ASGI middleware (no BaseHTTPMiddleware: it costs a task per request): security headers on every
response, an access log that never records the client's address, and a ceiling on request bodies."""

from __future__ import annotations

import logging
import time
import urllib.parse

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tools.errors import BadRequest, PayloadTooLarge

access_log = logging.getLogger("benchtoward.access")

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


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class AccessLog:
    """One line per request: method, path, status, milliseconds. No address, no query string."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, record_status)
        finally:
            if access_log.isEnabledFor(logging.INFO):
                elapsed = (time.perf_counter() - started) * 1000
                access_log.info("%s %s %d %.1fms", scope["method"], scope["path"], status, elapsed)


MAX_BODY_BYTES = 1024 * 1024  # the ceiling of every route but those given a larger one; routes check their own


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


class BodyLimit:
    """Refuses a URL that is not UTF-8 once percent-decoded (400 `bad_request`), and a request body over
    `limit` bytes with 413 `payload_too_large` JSON: by its Content-Length before anything is read, and, for a
    body without one (chunked), as soon as the app has received more than `limit` bytes; the app's own answer
    to that request is then replaced. Nothing over the limit is buffered."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES, larger: dict[str, int] | None = None) -> None:
        self.app = app
        self.default = limit
        self.larger = larger or {}  # exact paths (uploads) allowed a larger body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope["path"], self.default)
        if not utf8_url(scope):
            await self.refuse(send, BadRequest("the path or query string is not UTF-8 once percent-decoded"))
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and not declared.isdigit():
            await self.refuse(send, BadRequest("Content-Length must be a number of bytes"))
            return
        if declared is not None and int(declared) > limit:
            await self.refuse(send, too_large(limit))
            return
        received = 0
        over = False
        started = False

        async def counted() -> Message:
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    over = True
                    raise too_large(limit)
            return message

        async def guarded(message: Message) -> None:
            nonlocal started
            if over:
                return  # the app's answer to a body it was not allowed to finish reading
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, guarded)
        except PayloadTooLarge:
            if not over:
                raise
        if over and not started:
            await self.refuse(send, too_large(limit))

    @staticmethod
    async def refuse(send: Send, error: BadRequest | PayloadTooLarge) -> None:
        body = orjson.dumps(error.json_body())
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": error.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
