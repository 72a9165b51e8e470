"""Request bodies read within a size limit: refused by Content-Length before anything is read, and again while
reading (a chunked body has no length). Used by every route that accepts a body."""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from pydantic import BaseModel
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import Message

from tools import inputs
from tools.errors import BadRequest, PayloadTooLarge
from tools.reading import MAX_DOCUMENT_BYTES

M = TypeVar("M", bound=BaseModel)
FORM_LIMIT = 16 * 1024
JSON_LIMIT = 256 * 1024
UPLOAD_LIMIT = MAX_DOCUMENT_BYTES + 64 * 1024  # a paper upload: the document and the multipart envelope around it


def check_length(header: str | None, limit: int) -> None:
    if header is not None and (not header.isdigit() or int(header) > limit):
        raise PayloadTooLarge(f"the request body is over the limit of {limit} bytes")


def limited(request: Request, limit: int) -> Request:
    """The same request, whose body raises payload_too_large as soon as it passes `limit` bytes."""
    check_length(request.headers.get("content-length"), limit)
    received = 0
    upstream = request.receive

    async def receive() -> Message:
        nonlocal received
        message = await upstream()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise PayloadTooLarge(f"the request body is over the limit of {limit} bytes")
        return message

    return Request(request.scope, receive)


async def read_body(request: Request, limit: int) -> bytes:
    body = bytearray()
    async for chunk in limited(request, limit).stream():
        body += chunk
    return bytes(body)


async def read_form(request: Request, limit: int = FORM_LIMIT, max_files: int = 0) -> FormData:
    """A urlencoded or multipart form within `limit` bytes; malformed forms are bad_request."""
    try:
        return await limited(request, limit).form(max_files=max_files, max_fields=20, max_part_size=limit)
    except HTTPException as error:
        raise BadRequest(f"malformed form: {str(error.detail)[:200]}") from None


async def read_upload_form(request: Request) -> FormData:
    """A multipart form carrying one document (the review API's and the review page's paper uploads)."""
    try:
        return await limited(request, UPLOAD_LIMIT).form(max_files=1, max_fields=5, max_part_size=8192)
    except HTTPException as error:
        raise BadRequest(f"malformed multipart body: {str(error.detail)[:200]}") from None


async def read_upload(upload: UploadFile) -> tuple[bytes, str]:
    """An uploaded document and its name, refused past the document limit."""
    content = await upload.read(MAX_DOCUMENT_BYTES + 1)
    if len(content) > MAX_DOCUMENT_BYTES:
        raise PayloadTooLarge(f"the document is over the limit of {MAX_DOCUMENT_BYTES} bytes")
    return content, (upload.filename or "upload")[:200]


def parse_json(body: bytes) -> Any:
    try:
        return orjson.loads(body) if body.strip() else {}
    except orjson.JSONDecodeError as error:
        raise BadRequest(f"the body is not JSON: {error}") from None


def validate(model: type[M], value: Any) -> M:
    """Validate caller input into a model; its problems, not a traceback, become the bad_request message."""
    return inputs.validate(model, value, where="body")


async def json_body(request: Request, model: type[M], limit: int = JSON_LIMIT) -> M:
    return validate(model, parse_json(await read_body(request, limit)))
