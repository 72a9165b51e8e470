"""The HTTP protocol `benchtoward serve` runs: uvicorn's httptools protocol with limits on the request head,
and JSON for the requests it refuses before the app sees them.

httptools buffers a request line and headers of any size: a client could stream gigabytes of header before
any application code runs. This protocol counts the bytes of each request head as they are parsed and as
they arrive, and answers 414 `uri_too_long` or 431 `headers_too_large` as soon as a limit is passed; a
request httptools cannot parse (raw bytes that are not HTTP, invalid UTF-8 in the request line) gets 400
`bad_request`. All three are `{"error", "message"}` JSON with the security headers, and close the connection.

Connections are bounded too, so slow or silent clients cannot hold the server (slowloris): a request head must
arrive in full within HEAD_TIMEOUT_SECONDS of the connection opening (or of the previous answer), else 408
`request_timeout` (or, when not a byte of it came, a plain close); an idle keep-alive connection is closed
after uvicorn's `timeout_keep_alive`; and past `--limit-concurrency` open connections a new one is answered 503
`unavailable` at once and closed. `uvicorn_options` is how `benchtoward serve` (and the tests) run uvicorn.
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import Any

import httptools
import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.logs import log_config
from server.middleware import SECURITY_HEADERS
from server.settings import Settings
from tools.errors import AppError, BadRequest, HeadersTooLarge, RequestTimeout, Unavailable, UriTooLong

# uvicorn's `http` setting: an import string survives the trip to worker processes.
HTTP_PROTOCOL = "server.http_limits:BoundedHttpToolsProtocol"
MAX_URL_BYTES = 16 * 1024
MAX_HEADER_BYTES = 64 * 1024  # names and values of all headers of one request
MAX_UNPARSED_HEAD_BYTES = 1024 * 1024  # bytes received while one request head is still incomplete
LINGER_SECONDS = 2.0  # after a refusal, what the client still sends is read and dropped, then the socket closes
HEAD_TIMEOUT_SECONDS = 5.0  # to send a whole request head; a person's browser takes milliseconds
IDLE_TIMEOUT_SECONDS = 5  # an idle keep-alive connection between requests (uvicorn's timeout_keep_alive)


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments for uvicorn that bound connections and decide whose forwarded address is believed.
    uvicorn's own default believes X-Forwarded-For from 127.0.0.1, so any local client could pick its visitor
    hash: here proxy headers are read only from the proxies the operator names."""
    return {
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level,
        "log_config": log_config(settings.log_level),  # one escaped line per event, in every worker process
        "access_log": False,
        "lifespan": "on",
        "http": HTTP_PROTOCOL,  # httptools with limits on the request head and its time
        "proxy_headers": bool(settings.forwarded_allow_ips),
        "forwarded_allow_ips": settings.forwarded_allow_ips or "",
        "limit_concurrency": settings.limit_concurrency,
        "timeout_keep_alive": IDLE_TIMEOUT_SECONDS,
    }


class HeadRefused(Exception):
    def __init__(self, error: AppError) -> None:
        super().__init__(error.message)
        self.error = error


class LingeringTransport:
    """The connection's transport, closed gently while the client may still be sending: closing a socket
    with unread bytes resets the connection and the client loses the answer already sent (a 413 for a body
    too large, a refusal above). Our side is shut for writing, what arrives is dropped, and the socket closes
    after LINGER_SECONDS (or at once when the request was read to its end)."""

    def __init__(self, transport: asyncio.Transport, protocol: BoundedHttpToolsProtocol) -> None:
        self.transport = transport
        self.protocol = protocol
        self.lingering = False

    def close(self) -> None:
        if self.lingering or self.transport.is_closing():
            return
        if not self.protocol.mid_request or not self.transport.can_write_eof():
            self.transport.close()
            return
        self.lingering = True
        self.protocol.refused = True  # drop what still arrives
        self.transport.write_eof()
        self.protocol.loop.call_later(LINGER_SECONDS, self.transport.close)

    def is_closing(self) -> bool:
        return self.lingering or self.transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_bytes = 0
        self.unparsed_head_bytes = 0
        self.reading_head = True
        self.mid_request = False  # a request began and its body has not been read to the end
        self.refused = False
        self.head_timer: asyncio.TimerHandle | None = None
        # The cap is ours to apply (JSON answers, and a connection past it refused at once); uvicorn's own check
        # would answer requests on connections already taken with plain text.
        self.cap, self.limit_concurrency = self.limit_concurrency, None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = LingeringTransport(transport, self)  # type: ignore[assignment]
        if self.cap is not None and len(self.connections) > self.cap:
            self.refuse(Unavailable("the server is at its limit of open connections; try again shortly"))
            return
        self.start_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_head_timer()
        super().connection_lost(exc)

    def start_head_timer(self) -> None:
        self.stop_head_timer()
        self.head_timer = self.loop.call_later(HEAD_TIMEOUT_SECONDS, self.head_timed_out)

    def stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def head_timed_out(self) -> None:
        """The head did not arrive in time: a client that began one is told so, a silent one is just closed."""
        self.head_timer = None
        answering = self.cycle is not None and not self.cycle.response_complete  # a pipelined request
        if self.transport.is_closing() or answering:
            return
        if self.mid_request or self.unparsed_head_bytes:
            self.refuse(RequestTimeout(f"the request head did not arrive within {HEAD_TIMEOUT_SECONDS:g} s"))
        else:
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return  # a refused request's remaining bytes are dropped unread
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as error:
            cause = error.__context__
            self.refuse(cause.error if isinstance(cause, HeadRefused) else BadRequest("invalid HTTP request"))
            return
        except httptools.HttpParserError:
            self.refuse(BadRequest("invalid HTTP request"))
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        if self.reading_head:  # httptools holds a header in pieces until it ends: count what waits
            self.unparsed_head_bytes += len(data)
            if self.unparsed_head_bytes > MAX_UNPARSED_HEAD_BYTES:
                self.refuse(HeadersTooLarge(f"the request head is over {MAX_UNPARSED_HEAD_BYTES} bytes"))

    def on_message_begin(self) -> None:
        self.header_bytes = 0
        self.reading_head = True
        self.mid_request = True
        super().on_message_begin()

    def on_message_complete(self) -> None:
        self.mid_request = False
        super().on_message_complete()

    def on_url(self, url: bytes) -> None:
        if len(self.url) + len(url) > MAX_URL_BYTES:
            raise HeadRefused(UriTooLong(f"the request line is over {MAX_URL_BYTES} bytes"))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.header_bytes += len(name) + len(value)
        if self.header_bytes > MAX_HEADER_BYTES:
            raise HeadRefused(HeadersTooLarge(f"the request headers are over {MAX_HEADER_BYTES} bytes"))
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self.reading_head = False
        self.unparsed_head_bytes = 0
        self.stop_head_timer()
        if self.cap is not None and len(self.tasks) >= self.cap:
            raise HeadRefused(Unavailable("the server is at its limit of requests in progress; try again shortly"))
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self.start_head_timer()  # the next request's head, on this kept-alive connection

    def send_400_response(self, msg: str) -> None:  # uvicorn's own refusals (e.g. a bad upgrade)
        self.refuse(BadRequest(msg))

    def refuse(self, error: AppError) -> None:
        """Answer `error` as JSON and close (lingering): nothing of this request reaches the app."""
        body = orjson.dumps(error.json_body())
        head = [f"HTTP/1.1 {error.status} {HTTPStatus(error.status).phrase}\r\n".encode()]
        for name, value in [*self.server_state.default_headers, *SECURITY_HEADERS]:
            head.append(name + b": " + value + b"\r\n")
        head.append(b"content-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(body))
        self.transport.write(b"".join(head) + body)
        self.mid_request = True  # whatever the client still sends is not read
        self.transport.close()
