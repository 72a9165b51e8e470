"""The registry of task kinds: an immutable mapping from a spec's `kind` to the module that implements it.

`BUILTIN_KINDS` holds the kinds BenchToward ships (`mcq`, `binary_timeseries`). A registry with more kinds is
built explicitly with `with_kinds(...)` and handed to the harness (tools.registry.Registry(kinds=...),
server.app.build_app(settings, kinds=...)); nothing is discovered or registered at import time, so a kind that
only tests define can never reach production by accident.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from evaluator.kinds.base import DataProblem, DataReport, Display, ItemText, Section, Source, TaskKind
from evaluator.kinds.binary_timeseries import BinaryTimeseries
from evaluator.kinds.mcq import MultipleChoice

Kinds = Mapping[str, TaskKind]

BUILTIN_KINDS: Kinds = MappingProxyType({kind.name: kind for kind in (MultipleChoice(), BinaryTimeseries())})


class UnknownKind(LookupError):
    """A task names a kind this registry does not hold."""


def with_kinds(*extra: TaskKind, base: Kinds = BUILTIN_KINDS) -> Kinds:
    """A new immutable registry: `base` plus `extra` (a name already taken is refused)."""
    taken = [kind.name for kind in extra if kind.name in base]
    if taken or len({kind.name for kind in extra}) != len(extra):
        raise ValueError(f"task kind names must be unique: {taken or [k.name for k in extra]}")
    return MappingProxyType({**base, **{kind.name: kind for kind in extra}})


def kind_of(kinds: Kinds, name: str) -> TaskKind:
    """The kind called `name`, or UnknownKind naming the kinds there are."""
    try:
        return kinds[name]
    except KeyError:
        raise UnknownKind(f"unknown task kind {name!r}; this server knows {', '.join(sorted(kinds))}") from None


def baseline_kind(kinds: Kinds, slug: str) -> TaskKind | None:
    """The kind whose baselines include `slug`, or None."""
    return next((kind for kind in kinds.values() if slug in kind.baselines), None)


__all__ = [
    "BUILTIN_KINDS",
    "DataProblem",
    "DataReport",
    "Display",
    "ItemText",
    "Kinds",
    "Section",
    "Source",
    "TaskKind",
    "UnknownKind",
    "baseline_kind",
    "kind_of",
    "with_kinds",
]
