"""What the maintainers' capabilities (/v1/review/*, Authorization: Bearer TOKEN) and the public
POST /v1/withdrawals need beyond their table entries (server/review_capabilities.py): their path models, the
adapters that call their functions, and the bearer check the /v1 route runs before it reads anything.

Bearer tokens only: these routes never read the session cookie, so a browser cannot be tricked into calling
them (no ambient credential, no CSRF). A wrong token counts towards the login rate limit; while a caller is
over it, every token it sends is refused unread with `rate_limited`.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, Field
from starlette.datastructures import UploadFile
from starlette.requests import Request

from server.operation import Adapter, Call, Capability
from server.runtime import Runtime
from tools import reading
from tools.errors import BadRequest, Unauthorized
from tools.maintainers import Actor, actor_of, authenticate_token
from tools.refs import TASK_VERSION_SCHEMA
from tools.results import RUN_ID_PATTERN
from tools.schemas import Shape
from web.bodies import read_upload, read_upload_form


class RunIdPath(Shape):
    run_id: str = Field(pattern=RUN_ID_PATTERN, description="The result's 12-hex-character run id.")


class TaskPath(Shape):
    task: str = Field(
        max_length=80, description="slug@version, e.g. clinicalqa@1.", json_schema_extra=TASK_VERSION_SCHEMA
    )


class PaperUpload(Shape):
    """multipart/form-data with the field `file` (PDF, HTML, Markdown, CSV or text, at most 20 MB); to have the
    server fetch a document instead, send JSON {"url": ...}."""

    file: bytes = Field(description="The document.")


def bearer_token(request: Request) -> str | None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


async def authenticate(runtime: Runtime, request: Request) -> Actor:
    """The maintainer of a valid bearer token, or unauthorized. The token is checked first: a valid one always
    gets in, a wrong one counts towards the failed-login limits (and is answered `rate_limited` past them)."""
    token = bearer_token(request)
    if token is None:
        raise Unauthorized("a maintainer token is required (Authorization: Bearer TOKEN)")
    try:
        return actor_of(authenticate_token(runtime.registry, runtime.keys, token))
    except Unauthorized:
        await runtime.limiters.login_failed(runtime.visitor(request).hash, token)
        raise


def is_upload(request: Request) -> bool:
    return request.headers.get("content-type", "").startswith("multipart/form-data")


async def uploaded_document(request: Request) -> tuple[bytes, str]:
    """The multipart field `file`: its bytes and name."""
    form = await read_upload_form(request)
    try:
        upload = form.get("file")
        if isinstance(upload, UploadFile):
            return await read_upload(upload)
    finally:
        await form.close()  # spooled upload files are closed (and deleted) at once
    raise BadRequest('give the document as the multipart field `file`, or send JSON {"url": ...}')


async def read_paper(function: Capability, call: Call) -> BaseModel:
    """The uploaded document, or the document at the given URL (fetched only when online), read and proposed."""
    if call.body is None:
        content, name = await uploaded_document(call.request)
    else:
        content, name = await reading.fetch_paper(call.body.url, offline=call.runtime.offline)
    runtime = call.runtime
    return await function(runtime.registry, call.actor, content, name, llm=runtime.paper_llm, data=runtime.data)


def decision(*fields: str, then: Callable[[Runtime], None] | None = None) -> Adapter:
    """An adapter for a maintainer's `function(registry, actor, *path values, body)`; `then` runs once it has
    succeeded (an approval wakes the evaluator worker)."""

    async def adapt(function: Capability, call: Call) -> BaseModel:
        values = [getattr(call.query, name) for name in fields]
        result = await function(call.runtime.registry, call.actor, *values, call.body)
        if then is not None:
            then(call.runtime)
        return result

    return adapt


async def request_withdrawal(function: Capability, call: Call) -> BaseModel:
    return await function(call.runtime.registry, call.body, call.runtime.limiters, call.visitor.hash)


def wake_worker(runtime: Runtime) -> None:
    runtime.wake_worker()
