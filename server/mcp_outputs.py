"""The MCP tools' output schemas, written for an agent to read within tools/list's budget (issue 11: at most
20,000 characters for all 16 tools, every output description kept).

Each answer is one description listing its fields (`name: what it is; …`), the same words as a properties map at
a third of its size. tools/list says each thing once, in table order:

- a shape several fields hold (`ModelRef`, `MetricValue`, `LeaderboardRow` and the rows sharing its base) is
  spelt out in the `$defs` of the first tool that returns it; fields name it (`model (ModelRef)`, `rows
  (LeaderboardRow[])`), and an agent finds it by that name further up the list;
- a shape only one field holds is described in place: `predictions {url: …; rows: …}`, `columns [{name; type}]`;
- a field's description is given the first time tools/list meets that field with that description; later the
  field is only named;
- a shape built on a shared base (`ResultRow`, `ModelSummary`) whose fields an earlier shape already listed
  names that shape instead of listing them again (`run_id … status as in LeaderboardRow`);
- a plain field no model describes (`title`, `slug`, `doi`) is left to the answer itself, which names it, unless
  its shape has nothing else to say.

The schemas keep what an agent reads (types of the nested shapes, every description) and drop what only repeats
or restricts it: pydantic's titles, properties maps, required lists, defaults. Structured output still validates
against them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, get_args

import orjson
from pydantic import BaseModel

OUTPUT_NOISE = ("title", "required", "additionalProperties", "default")
SHARED_RUN = 3  # a base shape's fields are named by reference from this many on; fewer are listed


def lean(schema: Any, names: bool = False) -> Any:
    """A schema without titles, required lists, additionalProperties and defaults; `anyOf [X, null]` becomes
    `type: [X, null]`; descriptions on one line."""
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


def used_defs(schema: dict[str, Any]) -> list[str]:
    """The definitions a schema reaches from its top level, sorted by name."""
    text = orjson.dumps({key: value for key, value in schema.items() if key != "$defs"}).decode()
    found: set[str] = set()
    pending = [name for name in schema.get("$defs", {}) if f'"#/$defs/{name}"' in text]
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            inner = orjson.dumps(schema["$defs"][name]).decode()
            pending += [other for other in schema["$defs"] if f'"#/$defs/{other}"' in inner]
    return sorted(found)


def annotation_types(annotation: Any) -> Iterator[Any]:
    yield annotation
    for argument in get_args(annotation):
        yield from annotation_types(argument)


def shape_classes(model: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """Every model an answer nests, by the name its schema's `$defs` gives it (the class name)."""
    found: dict[str, type[BaseModel]] = {}
    pending = [model]
    while pending:
        current = pending.pop()
        if found.setdefault(current.__name__, current) is not current:
            continue
        for info in current.model_fields.values():
            pending += [
                kind
                for kind in annotation_types(info.annotation)
                if isinstance(kind, type) and issubclass(kind, BaseModel) and kind.__name__ not in found
            ]
    return found


def field_bases(shape: type[BaseModel]) -> list[type[BaseModel]]:
    """The shape itself and every base that declares fields, most derived first."""
    return [
        base
        for base in shape.__mro__
        if isinstance(base, type) and issubclass(base, BaseModel) and base is not BaseModel and base.model_fields
    ]


def reference(prop: dict[str, Any]) -> tuple[str, bool]:
    """The definition a property holds (its name, and whether it is a list of them), or ("", False)."""
    ref = prop.get("$ref") or next((a.get("$ref") for a in prop.get("anyOf", []) if "$ref" in a), None)
    if ref:
        return str(ref).rsplit("/", 1)[1], False
    items = prop.get("items", {})
    if isinstance(items, dict) and "$ref" in items:
        return str(items["$ref"]).rsplit("/", 1)[1], True
    return "", False


def shared_shapes(responses: list[type[BaseModel]]) -> set[type[BaseModel]]:
    """The shapes tools/list names more than once: held by two fields (in one answer or two), an answer that is
    also held by a field, or sharing a base with such a shape. The others are described where they appear."""
    uses: Counter[type[BaseModel]] = Counter(responses)
    every = {shape for response in responses for shape in shape_classes(response).values()}
    for shape in every:  # each field once, however many answers nest its shape
        for info in shape.model_fields.values():
            uses.update(
                kind
                for kind in annotation_types(info.annotation)
                if isinstance(kind, type) and issubclass(kind, BaseModel)
            )
    families: Counter[type[BaseModel]] = Counter()
    for shape, count in uses.items():
        for base in field_bases(shape):
            families[base] += count
    return {shape for shape in uses if any(families[base] > 1 for base in field_bases(shape))}


@dataclass
class Listing:
    """What tools/list has said so far, in table order."""

    shared: set[type[BaseModel]]  # shapes spelt out once in a `$defs` and named elsewhere
    owners: dict[tuple[str, bytes], str] = field(default_factory=dict)  # (definition, its schema) → first tool
    described: set[tuple[str, str]] = field(default_factory=set)  # (field, description) already given
    spelt: dict[type[BaseModel], str] = field(default_factory=dict)  # a shape or base → where its fields were listed
    whole: dict[type[BaseModel], str] = field(default_factory=dict)  # a shape → the answer that is that shape
    definitions: dict[str, Any] = field(default_factory=dict)  # the current tool's `$defs`
    classes: dict[str, type[BaseModel]] = field(default_factory=dict)  # the current tool's shapes, by name
    tool: str = ""  # the tool being written

    def shared_fields(self, shape: type[BaseModel] | None) -> tuple[list[str], str]:
        """The leading fields of `shape` an earlier shape listed (its largest such base), and where."""
        for base in field_bases(shape) if shape is not None else []:
            if base in self.spelt and len(base.model_fields) >= SHARED_RUN:
                return list(base.model_fields), self.spelt[base]
        return [], ""

    def prose(self, definition: dict[str, Any], shape: type[BaseModel] | None, where: str) -> str:
        """A definition as one line listing its fields; records what it said."""
        inherited, source = self.shared_fields(shape)
        properties = {name: prop for name, prop in definition.get("properties", {}).items() if name not in inherited}
        parts = [f"{inherited[0]} … {inherited[-1]} as in {source}"] if inherited else []
        parts += [text for name, prop in properties.items() if (text := self.field_text(name, prop))]
        if not parts:  # nothing to say but the names: they are the description
            parts = list(properties)
        for base in field_bases(shape) if shape is not None else []:
            self.spelt.setdefault(base, where)
        head = definition.get("description", "").rstrip(".")
        return (f"{head}. " if head else "") + "; ".join(parts)

    def field_text(self, name: str, prop: dict[str, Any]) -> str:
        """`name (Shape): what it is`, or `name {its fields}` for a shape described only here (`[{…}]` for a
        list); only the name when tools/list described it before; nothing for a plain value nobody describes (its
        name says what it is, and every answer names it)."""
        target, many = reference(prop)
        label = name
        if target and self.classes.get(target) in self.shared:
            label = f"{name} ({target}{'[]' if many else ''})"
        elif target:
            inner = self.prose(self.definitions[target], self.classes.get(target), f"{name} of {self.tool}")
            label = f"{name} [{{{inner}}}]" if many else f"{name} {{{inner}}}"
        text = prop.get("description")
        if not text or (name, text) in self.described:
            return label if target or text else ""
        self.described.add((name, text))
        return f"{label}: {text.rstrip('.')}"

    def output(self, tool: str, response: type[BaseModel]) -> dict[str, Any]:
        """One tool's output schema: its answer's fields, and the shared shapes this tool is the first to return."""
        schema = lean(response.model_json_schema(mode="serialization"))
        self.tool, self.definitions, self.classes = tool, schema.get("$defs", {}), shape_classes(response)
        own = [
            name
            for name in used_defs(schema)
            if self.classes.get(name) in self.shared
            and self.owners.setdefault((name, orjson.dumps(self.definitions[name])), tool) == tool
        ]
        out: dict[str, Any] = {
            "type": "object",
            "description": self.prose({**schema, "description": ""}, response, f"{tool}'s output") + ".",
        }
        self.whole.setdefault(response, f"{tool}'s output")
        if own:
            out["$defs"] = {name: {"description": self.definition(name) + "."} for name in own}
        return out

    def definition(self, name: str) -> str:
        """A shared shape, or where it was listed whole (another tool's whole answer, e.g. lookup's result)."""
        shape = self.classes.get(name)
        if shape is not None and shape in self.whole:
            return self.whole[shape]
        return self.prose(self.definitions[name], shape, name)


def output_schemas(tools: list[tuple[str, type[BaseModel]]]) -> dict[str, dict[str, Any]]:
    """Every tool's output schema, by tool name; `tools` in the order tools/list gives them."""
    listing = Listing(shared=shared_shapes([response for _, response in tools]))
    return {name: listing.output(name, response) for name, response in tools}
