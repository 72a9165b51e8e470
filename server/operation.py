"""One entry of the capability table (server/capabilities.py): a tools/ function with its input and output
models, /v1 method and route, MCP tool, who may call it, how it is cached and how its HTTP body is read. The
/v1 routes, the MCP tools and the OpenAPI document are generated from these entries, never written beside them.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from starlette.requests import Request

from server.runtime import Runtime
from tools import inputs
from tools.errors import AppError
from tools.maintainers import Actor
from tools.registry import Registry
from tools.usage import Visitor
from web.bodies import JSON_LIMIT

Capability = Callable[..., Awaitable[BaseModel]]
Caller = Literal["visitor", "maintainer"]
# How an answer is kept: "store" = in the read cache until the next write to the store (every public read);
# "none" = computed for each call (writes, counters, the maintainers' views).
CachePolicy = Literal["store", "none"]


class NoInput(inputs.Query):
    """The input of a capability that takes no path or query parameter (any one given is refused by name)."""


@dataclass(frozen=True)
class Call:
    """What an HTTP route hands an adapter: the parsed path and query parameters, the parsed JSON body (None for
    a multipart upload, which the adapter reads), the authenticated maintainer and the counted visitor."""

    runtime: Runtime
    request: Request
    actor: Actor | None
    query: Any
    body: Any
    visitor: Visitor


# How a route calls a function that takes more than (registry, query[, visitor]): a maintainer's action takes
# the actor, path values and body; a paper reading the uploaded document and the reader's settings.
Adapter = Callable[[Capability, Call], Awaitable[BaseModel]]


@dataclass(frozen=True)
class Operation:
    name: str  # the capability, the MCP tool and the OpenAPI operationId share it
    function: Capability
    query: type[BaseModel]  # path and query parameters; for a POST without `body`, the JSON body (= MCP input)
    response: type[BaseModel]
    path: str  # the /v1 route
    summary: str
    errors: tuple[type[AppError], ...] = ()
    mcp: bool = True  # also an MCP tool of the same name (never for a maintainer's: MCP here has no auth)
    method: Literal["GET", "POST"] = "GET"
    caller: Caller = "visitor"  # "maintainer": Authorization: Bearer TOKEN, checked before anything is read
    cache: CachePolicy = "store"
    takes_visitor: bool = False  # the function takes the caller's Visitor (to count reuse, or to rate-limit)
    body: type[BaseModel] | None = None  # a JSON body beside the path parameters (a maintainer's decision)
    upload: type[BaseModel] | None = None  # the multipart form a route also takes instead of the JSON `body`
    body_limit: int = JSON_LIMIT  # bytes of JSON body read at most (payload_too_large beyond)
    status: int = 200  # the answer's status (a POST without `body`: this when it created something, else 200)
    adapter: Adapter | None = None  # how the route calls `function`, when it takes more than its query

    def __post_init__(self) -> None:
        if self.caller == "maintainer" and (self.mcp or self.cache != "none"):
            raise ValueError(f"{self.name}: a maintainer's capability is no MCP tool and is never cached")
        if self.upload is not None and self.body is None:
            raise ValueError(f"{self.name}: an upload route also declares its JSON body")

    @property
    def description(self) -> str:
        """The function's docstring, paragraphs kept, lines joined."""
        text = inspect.cleandoc(self.function.__doc__ or self.summary)
        return "\n\n".join(" ".join(paragraph.split()) for paragraph in text.split("\n\n"))

    def input_schema(self) -> dict[str, Any]:
        """The capability's input as one JSON object: each parameter's constraints exactly as the OpenAPI
        parameters declare them (the MCP tool's input schema; a POST route's body)."""
        declared = parameters(self.query)
        properties = {
            p.name: {
                **p.schema,
                "description": p.description,
                **({"default": p.default} if p.default not in (None, "") else {}),
            }
            for p in declared
        }
        required = [p.name for p in declared if p.required]
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        return {**schema, "required": required} if required else schema

    def parse(self, values: Mapping[str, Any], noun: str = "parameter") -> BaseModel:
        """The caller's input as this capability's query: the one parse-and-validate path of every transport."""
        return inputs.parse(self.query, values, noun=noun)

    async def call(self, registry: Registry, query: BaseModel, visitor: Visitor) -> BaseModel:
        if self.takes_visitor:
            return await self.function(registry, query, visitor)
        return await self.function(registry, query)


@dataclass(frozen=True)
class Parameter:
    """One input of a capability as both OpenAPI and MCP declare it: `schema` carries every constraint (type,
    limits, pattern, enum) and no null alternative (absent is how a caller leaves a value out)."""

    name: str
    schema: dict[str, Any]
    description: str
    required: bool
    default: Any = None


def core_schema(prop: dict[str, Any]) -> dict[str, Any]:
    """A property's schema without its null alternative, description, title or default."""
    prop = {key: value for key, value in prop.items() if key not in ("description", "title", "default")}
    if "anyOf" not in prop:
        return prop
    shared = {key: value for key, value in prop.items() if key != "anyOf"}  # e.g. a pattern beside anyOf
    alternatives = [{**a, **shared} for a in prop["anyOf"] if a.get("type") != "null"]
    return alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}


def parameters(query: type[BaseModel]) -> list[Parameter]:
    """The inputs of a query model, in declaration order."""
    schema = query.model_json_schema()
    required = set(schema.get("required", []))
    out = []
    for name, prop in schema.get("properties", {}).items():
        core = core_schema(prop)
        if name in required and core.get("type") == "string":
            core.setdefault("minLength", 1)  # an empty value counts as absent, so a required one is missing
        out.append(Parameter(name, core, prop.get("description", ""), name in required, prop.get("default")))
    return out
