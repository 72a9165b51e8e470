"""The MCP presenter: one tool per capability of the table, and task specs as resources.

Each tool's input schema is the table's declaration of the capability's inputs (the same constraints as the
OpenAPI parameters), its output schema the capability's response model. Arguments are parsed by the same path
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

# Hints beyond their defaults only (read-only implies not destructive and idempotent): tools/list stays small.
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
# A request changes nothing an agent reads until a maintainer acts; asking twice answers the first request.
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
Handler = Callable[[dict[str, Any], Context[Any, Any]], Awaitable[CallToolResult]]


OUTPUT_NOISE = ("title", "required", "additionalProperties", "default")


def lean(schema: Any, names: bool = False) -> Any:
    """An output schema with what an agent reads (types, structure, every description) and without what only
    repeats or restricts it: titles, required lists, additionalProperties, defaults; `anyOf [X, null]` becomes
    `type: [X, null]`. Structured output still validates against it; tools/list shrinks by more than half."""
    if isinstance(schema, list):
        return [lean(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if names:  # a map of property or definition names: every name stays
        return {key: lean(value) for key, value in schema.items()}
    out = {
        key: lean(value, names=key in ("properties", "$defs"))
        for key, value in schema.items()
        if key not in OUTPUT_NOISE
    }
    alternatives = out.get("anyOf")
    if isinstance(alternatives, list) and {"type": "null"} in alternatives and len(alternatives) == 2:
        other = next(alt for alt in alternatives if alt != {"type": "null"})
        if set(other) == {"type"} and isinstance(other["type"], str):
            del out["anyOf"]
            out["type"] = [other["type"], "null"]
    if isinstance(out.get("description"), str):
        out["description"] = " ".join(out["description"].split())
    return out


def output_schema(entry: Operation) -> dict[str, Any]:
    return lean(entry.response.model_json_schema(mode="serialization"))  # type: ignore[no-any-return]


def used_defs(schema: dict[str, Any]) -> set[str]:
    """The definitions a schema reaches from its top level."""
    text = orjson.dumps({key: value for key, value in schema.items() if key != "$defs"}).decode()
    found: set[str] = set()
    pending = [name for name in schema.get("$defs", {}) if f'"#/$defs/{name}"' in text]
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            inner = orjson.dumps(schema["$defs"][name]).decode()
            pending += [other for other in schema["$defs"] if f'"#/$defs/{other}"' in inner]
    return found


def output_schemas(entries: list[Operation]) -> dict[str, dict[str, Any]]:
    """Every tool's output schema, written for an agent to read within tools/list's budget: each answer and each
    nested shape is one description listing its fields (`name (Shape): what it is; …`); a shape is spelt out by
    the first tool (in table order) that returns it, and a field's description is given the first time tools/list
    meets that field with it. A tool's whole answer is always described by that tool."""
    owners = {entry.response.__name__: entry.name for entry in entries}
    described: set[tuple[str, str]] = set()
    schemas = {}
    for entry in entries:
        schema = output_schema(entry)
        definitions = schema.get("$defs", {})
        for name in definitions:
            owner = owners.setdefault(name, entry.name)
            if owner != entry.name:
                definitions[name] = {"type": "object", "description": f"Fields: see `{owner}`'s output."}
        kept = used_defs(schema)
        once_per_list(schema, described)
        out = prose({**schema, "description": ""})
        if kept:
            out["$defs"] = {
                name: prose(definitions[name]) if "properties" in definitions[name] else definitions[name]
                for name in sorted(kept)
            }
        schemas[entry.name] = out
    return schemas


def once_per_list(schema: Any, described: set[tuple[str, str]]) -> None:
    """Drop a field's description where tools/list already gave the same field the same one."""
    if isinstance(schema, list):
        for item in schema:
            once_per_list(item, described)
    if not isinstance(schema, dict):
        return
    for name, prop in schema.get("properties", {}).items():
        text = prop.get("description") if isinstance(prop, dict) else None
        if text is not None and (name, text) in described:
            del prop["description"]
        elif text is not None:
            described.add((name, text))
    for key, value in schema.items():
        if key != "description":
            once_per_list(value, described)


def kind(prop: dict[str, Any]) -> str:
    """A property's type in a word or two: a definition's name, `list of X`, or nothing for plain values."""
    ref = prop.get("$ref") or next((a.get("$ref") for a in prop.get("anyOf", []) if "$ref" in a), None)
    if ref:
        return str(ref).rsplit("/", 1)[1]
    items = prop.get("items", {})
    if isinstance(items, dict) and "$ref" in items:
        return "list of " + str(items["$ref"]).rsplit("/", 1)[1]
    return ""


def prose(definition: dict[str, Any]) -> dict[str, Any]:
    """A nested definition as one description listing its fields (`name (Type): what it is; …`): the same words
    as a properties map at a third of its size. Only the top level of an answer keeps a properties map."""
    parts = []
    for name, prop in definition.get("properties", {}).items():
        word = kind(prop)
        text = f"{name} ({word})" if word else name
        parts.append(f"{text}: {prop['description'].rstrip('.')}" if prop.get("description") else text)
    head = definition.get("description", "").rstrip(".")
    return {"type": "object", "description": (f"{head}. " if head else "") + "Fields: " + "; ".join(parts) + "."}


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
    outputs = output_schemas(tools)
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
