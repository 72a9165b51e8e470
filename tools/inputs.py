"""The one parse-and-validate path for caller input: /v1 query strings, MCP tool arguments, page parameters, JSON
bodies and catalog entries all become a model here, and every refusal is the same `bad_request` message.

Rules, for every transport alike: an empty value (`?tier=`) or null counts as absent; an unknown name is refused
naming the names the input takes (a misspelt filter must not silently widen an answer); surrounding spaces are
dropped; enumerated values are matched in any case (`LLM` is `llm`) and a wrong one lists the allowed ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

from tools.errors import BadRequest

M = TypeVar("M", bound=BaseModel)
MAX_MESSAGE = 500
MAX_SHOWN = 5


def folded(value: object) -> object:
    """An enumerated value as meant: `LLM`, ` Baseline ` → `llm`, `baseline` (other types are left to validation)."""
    return value.strip().lower() if isinstance(value, str) else value


Folded = BeforeValidator(folded)  # Annotated[Literal[...], Folded]: an enum matched in any case


class Query(BaseModel):
    """Base of every capability's input: unknown names refused, strings stripped of surrounding spaces."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


def problems(error: ValidationError, where: str = "input") -> str:
    """The problems of a validation error as one line: `loc: message; …`, at most MAX_SHOWN of them."""
    issues = error.errors(include_url=False)
    shown = []
    for issue in issues[:MAX_SHOWN]:
        loc = ".".join(str(part) for part in issue["loc"]) or where
        message = issue["msg"].removeprefix("Value error, ")  # a rule of ours says it all
        if issue["type"] == "extra_forbidden":
            message = "unknown name"
        shown.append(f"{loc}: {message}")
    more = f" (and {len(issues) - MAX_SHOWN} more)" if len(issues) > MAX_SHOWN else ""
    return ("; ".join(shown) + more)[:MAX_MESSAGE]


def unknown_names(model: type[BaseModel], names: Iterable[str], noun: str) -> None:
    """Refuse a name the model does not take, listing the ones it does."""
    unknown = sorted(name for name in names if name not in model.model_fields)
    if unknown:
        allowed = ", ".join(model.model_fields) or "none"
        shown = ", ".join(repr(name[:40]) for name in unknown[:MAX_SHOWN])
        raise BadRequest(f"unknown {noun} {shown}; this takes: {allowed}")


def parse(model: type[M], values: Mapping[str, Any], *, noun: str = "parameter", strict: bool = True) -> M:
    """Caller input (query parameters or tool arguments) validated into `model`. Empty values and nulls count as
    absent; with `strict`, an unknown name is refused (pages pass strict=False: a link may carry tracking tags)."""
    if strict:
        unknown_names(model, values, noun)
    known = {}
    for name, value in values.items():
        value = value.strip() if isinstance(value, str) else value
        if name in model.model_fields and value not in ("", None):
            known[name] = value
    return validate(model, known)


def validate(model: type[M], value: Any, where: str = "input") -> M:
    """A whole document (a JSON body, a catalog entry) validated into `model`; its problems become bad_request."""
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise BadRequest(problems(error, where)) from None


def single_values(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Query-string pairs as a dict, refusing a name given twice (`?model=a&model=b`: which one was meant?)."""
    values: dict[str, str] = {}
    for name, value in items:
        if name in values:
            raise BadRequest(f"parameter {name[:40]!r} is given more than once; give it once")
        values[name] = value
    return values
