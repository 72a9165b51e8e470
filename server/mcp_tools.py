"""The MCP presenter: one read-only tool per capability, and task specs as resources.

Each tool's parameters are generated from the capability's query model (types and descriptions), and its
output schema from the capability's response model, so /v1 and MCP cannot drift apart. Input is validated
by the same query model as /v1; an AppError comes back as an error result whose text starts with its code.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any
from urllib.parse import urlsplit

import orjson
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from evaluator.version import HARNESS_VERSION
from server.capabilities import OPERATIONS, Operation, parse_query
from server.runtime import Runtime
from tools import tasks
from tools.errors import AppError
from tools.usage import Visitor

INSTRUCTIONS = """BenchToward publishes medical-AI evaluation results computed once per model and task version
under a fixed, hashed specification: scores with 95% bootstrap intervals, rank ranges, per-item predictions,
exact versions, cost and BibTeX. Rule one: call `lookup` before you run an evaluation yourself; if the result
exists, cite it and download its predictions instead of recomputing it. Errors start with a stable code
(e.g. `task_not_found: ...`)."""

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# A request changes nothing an agent reads until a maintainer acts; asking twice answers the first request.
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True)


def tool_parameters(query: type[BaseModel]) -> list[inspect.Parameter]:
    """Keyword parameters mirroring the query model: its types and descriptions (limits are checked by the
    query model itself, so a bad value returns bad_request rather than a transport-level error)."""
    parameters = []
    for name, field in query.model_fields.items():
        annotation = Annotated[field.annotation, Field(description=field.description)]  # type: ignore[name-defined]
        default = inspect.Parameter.empty if field.is_required() else field.default
        parameters.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        )
    return parameters


def error_result(error: AppError) -> CallToolResult:
    return CallToolResult(is_error=True, content=[TextContent(type="text", text=f"{error.code}: {error.message}")])


def make_tool(operation: Operation, runtime: Runtime):  # type: ignore[no-untyped-def]
    async def tool(**arguments: Any) -> BaseModel | CallToolResult:
        try:
            query = parse_query(operation.query, arguments)
            return await operation.call(runtime.registry, query, Visitor.anonymous())
        except AppError as error:
            return error_result(error)

    tool.__name__ = operation.name
    tool.__doc__ = operation.description
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        tool_parameters(operation.query), return_annotation=operation.response
    )
    return tool


def transport_security(public_url: str) -> TransportSecuritySettings:
    """Allow loopback and the public host: DNS-rebinding protection follows --public-url."""
    parts = urlsplit(public_url)
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if parts.netloc:
        hosts += [parts.netloc, f"{parts.hostname}:*"]
        origins += [f"{parts.scheme}://{parts.netloc}"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(set(hosts)),
        allowed_origins=sorted(set(origins)),
    )


def build_mcp(runtime: Runtime) -> MCPServer:
    """A fresh MCP server (a session manager runs once per instance, so build one per app)."""
    server: MCPServer = MCPServer(
        "benchtoward",
        instructions=INSTRUCTIONS,
        version=HARNESS_VERSION,
        log_level="WARNING",
        website_url=runtime.settings.base_url,
    )
    for operation in OPERATIONS:
        if operation.mcp:
            server.add_tool(
                make_tool(operation, runtime),
                name=operation.name,
                title=operation.summary,
                description=operation.description,
                annotations=READ_ONLY if operation.method == "GET" else WRITES,
            )

    @server.resource(
        "benchtoward://tasks/{slug}@{version}",
        name="task_spec",
        mime_type="application/json",
        description="A task version's full specification with its spec_hash (the JSON of get_task).",
    )
    async def task_spec(slug: str, version: str) -> str:
        try:
            query = parse_query(tasks.GetTaskQuery, {"slug": slug, "version": version})
            detail = await tasks.get_task(runtime.registry, query)  # type: ignore[arg-type]
        except AppError as error:
            raise ResourceError(f"{error.code}: {error.message}") from None
        return orjson.dumps(detail.model_dump(mode="json")).decode()

    return server
