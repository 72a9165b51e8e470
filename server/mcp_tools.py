"""The MCP presenter: one tool per capability of the table, and task specs as resources.

Each tool's input schema is the table's declaration of the capability's inputs (the same constraints as the
OpenAPI parameters), its output schema the capability's response model as server/mcp_outputs.py writes it for an
agent (every field description once per tools/list). Arguments are parsed by the same path
as /v1 (tools/inputs.py), not by the SDK, so a bad argument is `bad_request: …` on both transports. Every
failure is an error result whose text starts with its code and whose structured content is {"error","message"};
hints name tools, not routes. A call over HTTP counts reuse with the caller's daily visitor hash, as /v1 does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import orjson
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.tools import Tool
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field
from starlette.requests import Request

from evaluator.version import HARNESS_VERSION
from server.capabilities import OPERATIONS, Operation, operation, tool_hints
from server.mcp_outputs import output_schemas
from server.runtime import Runtime
from tools import tasks
from tools.errors import AppError
from tools.usage import Visitor

INSTRUCTIONS = """BenchToward publishes medical-AI evaluation results computed once per model and task version
under a fixed, hashed specification: scores with 95% bootstrap intervals, rank ranges, per-item predictions,
exact versions, cost and BibTeX. Rule one: call `lookup` before you run an evaluation yourself; if the result
exists, cite it and download its predictions instead of recomputing it; if it is `not_evaluated`,
`request_evaluation` asks for the run. Lists page with `cursor` = the last `next`. Errors start with a stable code
(e.g. `task_not_found: ...`)."""

# Hints beyond their defaults only (read-only implies not destructive and idempotent), within tools/list's
# budget: read-only is the hint clients act on (auto-approval); the closed-world hint of the reads is left out.
READ_ONLY = ToolAnnotations(read_only_hint=True)
# A request changes nothing an agent reads until a maintainer acts; asking twice answers the first request.
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
Handler = Callable[[dict[str, Any], Context[Any, Any]], Awaitable[CallToolResult]]


def compact(value: dict[str, Any]) -> str:
    return orjson.dumps(value).decode()


def error_result(error: AppError) -> CallToolResult:
    """An error result: text `code: message` (hints naming tools) and the same {"error","message"} as /v1."""
    body = {**error.json_body(), "message": tool_hints(error.message)}
    return CallToolResult(
        is_error=True,
        content=[TextContent(type="text", text=f"{body['error']}: {body['message']}")],
        structured_content=body,
    )


def answer(result: BaseModel) -> CallToolResult:
    body = result.model_dump(mode="json")
    return CallToolResult(content=[TextContent(type="text", text=compact(body))], structured_content=body)


class TableTool(Tool):
    """An MCP tool that hands its raw arguments to the capability table (the SDK's own argument model, which
    would answer pydantic's text for a bad argument and ignore an unknown one, is not used)."""

    handler: Handler = Field(exclude=True)
    declared_output: dict[str, Any] = Field(exclude=True)

    @property
    def output_schema(self) -> dict[str, Any] | None:
        return self.declared_output

    async def run(self, arguments: dict[str, Any], context: Context[Any, Any], convert_result: bool = False) -> Any:
        return await self.handler(arguments, context)


async def no_arguments() -> None:
    """Stands in for the SDK's function signature; TableTool.run never calls it."""


def caller(runtime: Runtime, context: Context[Any, Any]) -> Visitor:
    """The visitor a call counts as: over HTTP the caller's daily hash and bot rule, exactly as /v1; over stdio
    the session's one local visitor."""
    request = context.request_context.request if context.request_context is not None else None
    if isinstance(request, Request):
        return runtime.visitor(request)
    return runtime.local_visitor()


def handler(entry: Operation, runtime: Runtime) -> Handler:
    async def handle(arguments: dict[str, Any], context: Context[Any, Any]) -> CallToolResult:
        try:
            query = entry.parse(arguments)
            return answer(await entry.call(runtime.registry, query, caller(runtime, context)))
        except AppError as error:
            return error_result(error)

    return handle


def make_tool(entry: Operation, runtime: Runtime, output: dict[str, Any]) -> Tool:
    base = Tool.from_function(
        no_arguments,
        name=entry.name,
        description=entry.description,  # the summary (OpenAPI's) would only repeat its first line
        annotations=READ_ONLY if entry.method == "GET" else WRITES,
    )
    return TableTool(
        **{name: getattr(base, name) for name in Tool.model_fields},
        handler=handler(entry, runtime),
        declared_output=output,
    ).model_copy(update={"parameters": entry.input_schema()})


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
    tools = [entry for entry in OPERATIONS if entry.mcp]
    outputs = output_schemas([(entry.name, entry.response) for entry in tools])
    server: MCPServer = MCPServer(
        "benchtoward",
        instructions=INSTRUCTIONS,
        version=HARNESS_VERSION,
        log_level="WARNING",
        website_url=runtime.settings.base_url,
        tools=[make_tool(entry, runtime, outputs[entry.name]) for entry in tools],
    )

    @server.resource(
        "benchtoward://tasks/{slug}@{version}",
        name="task_spec",
        mime_type="application/json",
        description="A task version's full specification with its spec_hash (the JSON of get_task).",
    )
    async def task_spec(slug: str, version: str) -> str:
        try:
            query = operation("get_task").parse({"slug": slug, "version": version})
            detail = await tasks.get_task(runtime.registry, query)  # type: ignore[arg-type]
        except AppError as error:
            raise ResourceError(f"{error.code}: {tool_hints(error.message)}") from None
        return orjson.dumps(detail.model_dump(mode="json")).decode()

    return server
