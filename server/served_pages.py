"""Which pages were sent to which visitor today: a beacon counts as a visit only for one of them.

A beacon is a small POST any script can send, so on its own it would let a script count visits for pages no
one opened. This middleware notes each public page the server sends (a GET answered 200 with HTML) under the
visitor's daily hash, in the usage buffer; the visit of a beacon is stored only when its visitor was sent that
page that day. A page that a shared cache (a CDN, a proxy) answers in the server's stead is not sent by the
server, so its beacon does not count: pages are meant to be cached by the browser only.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.runtime import Runtime

NOT_PAGES = ("/v1/", "/review", "/static/", "/artifacts/", "/mcp", "/llms.txt", "/healthz")


class ServedPages:
    def __init__(self, app: ASGIApp, runtime: Runtime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"].startswith(NOT_PAGES):
            await self.app(scope, receive, send)
            return

        async def note_page(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200 and html(message):
                visitor = self.runtime.visitor(HTTPConnection(scope))
                self.runtime.registry.usage.count_served(visitor, scope["path"])
            await send(message)

        await self.app(scope, receive, note_page)


def html(message: Message) -> bool:
    return any(name == b"content-type" and value.startswith(b"text/html") for name, value in message["headers"])
