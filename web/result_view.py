"""How a result's stored versions and configuration read for a person: token counts as figures, nested values
as rows of a table, never a Python or JSON dump."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LABELS = {
    "harness": "Harness",
    "python": "Python",
    "adapter": "Adapter",
    "model_id": "Model id",
    "temperature": "Temperature",
    "max_tokens": "Max tokens",
    "endpoint": "Endpoint",
}
SKIPPED = ("spec_hash", "tokens")  # shown elsewhere on the page


@dataclass(frozen=True)
class Tokens:
    prompt: int | None
    completion: int | None

    @property
    def total(self) -> int:
        return (self.prompt or 0) + (self.completion or 0)


@dataclass(frozen=True)
class Row:
    group: str
    name: str
    value: str


def token_figures(versions: Mapping[str, Any]) -> Tokens | None:
    tokens = versions.get("tokens")
    if not isinstance(tokens, Mapping):
        return None
    prompt, completion = tokens.get("prompt"), tokens.get("completion")
    if not isinstance(prompt, int) and not isinstance(completion, int):
        return None
    return Tokens(prompt if isinstance(prompt, int) else None, completion if isinstance(completion, int) else None)


def label(name: str) -> str:
    return LABELS.get(name, name.replace("_", " ").capitalize())


def human_versions(versions: Mapping[str, Any], config: Mapping[str, Any]) -> list[Row]:
    """Configuration and versions as (group, name, value) rows; a nested mapping becomes one row per key."""
    rows = []
    for group, values in (("Configuration", config), ("Versions", versions)):
        for name, value in values.items():
            if group == "Versions" and name in SKIPPED:
                continue
            if isinstance(value, Mapping):
                rows += [Row(label(name), str(key), scalar(item)) for key, item in sorted(value.items())]
            else:
                rows.append(Row(group, label(name), scalar(value)))
    return rows


def scalar(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list | tuple):
        return ", ".join(scalar(item) for item in value)
    if isinstance(value, Mapping):
        return "; ".join(f"{key}: {scalar(item)}" for key, item in sorted(value.items()))
    return str(value)


def signed(value: float | None, digits: int) -> str:
    """A difference with its sign, a typographic minus: "+1.5", "−0.021", "0.0"."""
    if value is None:
        return "—"
    text = f"{abs(value):.{digits}f}"
    if float(text) == 0.0:
        return text
    return ("+" if value > 0 else "\u2212") + text


def p_value(p: float) -> str:
    """A p-value as a reader expects it: "p < 0.0001" below that, else three significant figures."""
    return "p < 0.0001" if p < 0.0001 else f"p = {p:.3g}"
