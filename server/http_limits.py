"""The HTTP protocol `benchtoward serve` runs: uvicorn's httptools protocol with limits on the request head,
and JSON for the requests it refuses before the app sees them.

httptools buffers a request line and headers of any size: a client could stream gigabytes of header before
any application code runs. This protocol counts the bytes of each request head as they are parsed and as
they arrive, and answers 414 `uri_too_long` or 431 `headers_too_large` as soon as a limit is passed; a
request httptools cannot parse (raw bytes that are not HTTP, invalid UTF-8 in the request line) gets 400
`bad_request`. All three are `{"error", "message"}` JSON with the security headers, and close the connection.
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import Any

import httptools
import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.middleware import SECURITY_HEADERS
from tools.errors import AppError, BadRequest, HeadersTooLarge, UriTooLong

# uvicorn's `http` setting: an import string survives the trip to worker processes.
HTTP_PROTOCOL = "server.http_limits:BoundedHttpToolsProtocol"
MAX_URL_BYTES = 16 * 1024
MAX_HEADER_BYTES = 64 * 1024  # names and values of all headers of one request
MAX_UNPARSED_HEAD_BYTES = 1024 * 1024  # bytes received while one request head is still incomplete
LINGER_SECONDS = 2.0  # after a refusal, what the client still sends is read and dropped, then the socket closes


class HeadTooLarge(Exception):
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

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = LingeringTransport(transport, self)  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return  # a refused request's remaining bytes are dropped unread
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as error:
            cause = error.__context__
            self.refuse(cause.error if isinstance(cause, HeadTooLarge) else BadRequest("invalid HTTP request"))
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
            raise HeadTooLarge(UriTooLong(f"the request line is over {MAX_URL_BYTES} bytes"))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.header_bytes += len(name) + len(value)
        if self.header_bytes > MAX_HEADER_BYTES:
            raise HeadTooLarge(HeadersTooLarge(f"the request headers are over {MAX_HEADER_BYTES} bytes"))
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self.reading_head = False
        self.unparsed_head_bytes = 0
        super().on_headers_complete()

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
