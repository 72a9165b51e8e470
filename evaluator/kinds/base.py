"""What a task kind is: one interface the harness core calls, so a new kind touches one module and its spec files.

A kind reads and checks a task's data (`open`, `check`), lists the scored instances (`Source.instance_ids`),
builds what each kind of model is given (`baseline_outputs`, `command_inputs`, `chat_prompts`), scores the
outputs into a `Computation` (predictions columns under `schema`, metrics with their bootstrap over the spec's
unit), recomputes point metrics from a stored predictions table, lines up the columns that paired statistics
compare, and says what a result page shows (`Display`). The core in `tools/` only looks a kind up, claims the
run key, asks the model, and stores what the kind computed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, Literal, Protocol

import numpy as np
import pyarrow as pa

from evaluator.adapters import ItemOutput
from evaluator.runner import Computation, Prompt
from evaluator.specs import TaskSpec

Section = Literal["items", "categories", "roc"]


class DataProblem(ValueError):
    """The data cannot be read, or differs from the spec without --allow-partial: the message says which."""


class Source(Protocol):
    """A kind's view of the data at one location, checked: whether it is the spec's whole declared set, and the
    scored instances (listed on demand: listing may take seconds, and the core needs the ids only for a partial
    run's key or once the run is claimed)."""

    @property
    def complete(self) -> bool: ...

    def instance_ids(self) -> list[str]: ...


@dataclass(frozen=True)
class DataReport:
    """What `benchtoward data check` prints for a task: agreement with the spec, differences, notes."""

    ok: bool
    differences: list[str]
    notes: list[str]


@dataclass(frozen=True)
class ItemText:
    """An item's text as a page or an export shows it (only for data that ships with BenchToward)."""

    question: str
    exam: str
    options: tuple[str, ...]
    category: str | None


@dataclass(frozen=True)
class Display:
    """What a result page of this kind shows: the kind's name for people and which insight sections apply
    (`items`: the paged item table; `categories`: accuracy per item category; `roc`: ROC curve and operating
    points). Web renders it; the kind never imports web."""

    label: str
    sections: frozenset[Section] = frozenset()


class TaskKind(ABC):
    """One task kind. Subclasses are stateless: every method takes what it needs."""

    name: ClassVar[str]
    display: ClassVar[Display]
    schema: ClassVar[pa.Schema]  # the predictions file's Arrow schema
    output_field: ClassVar[Literal["answer", "score"]]  # what a --command writes per instance
    compared_column: ClassVar[str]  # the predictions column paired statistics (ranks, comparisons) line up
    model_type: ClassVar[str]  # the model type (tools/models.MODEL_TYPES) a claim on such a task implies
    baselines: ClassVar[Mapping[str, str]] = MappingProxyType({})  # baseline slug → its name, for this kind's tasks

    @property
    def answers_chat(self) -> bool:
        """Whether a chat endpoint can answer this kind's instances."""
        return False

    def default_data(self, spec: TaskSpec) -> Path | None:
        """Where the task's data ships with BenchToward (demo data), or None."""
        return None

    def item_texts(self, spec: TaskSpec, category_field: str | None) -> dict[str, ItemText]:
        """The texts of the items that ship with BenchToward for `spec`, by instance id (empty when none ship);
        `category_field`: the source field naming an item's category (the task file's `meta.item_category`)."""
        return {}

    @abstractmethod
    def open(self, data: Path, spec: TaskSpec, *, limit: int | None, allow_partial: bool) -> Source:
        """Read and check the data (generating demo data first if the spec says so); raise DataProblem."""

    @abstractmethod
    def check(self, data: Path, spec: TaskSpec, *, deep: bool) -> DataReport:
        """Compare the data with the spec's declared instance set; never raises for bad data."""

    def baseline_outputs(self, slug: str, source: Source, spec: TaskSpec, run_key: str) -> dict[str, ItemOutput]:
        """The outputs of one of `baselines` (CPU work: called off the event loop)."""
        raise DataProblem(f"{slug} is not a baseline of {self.name} tasks")

    @abstractmethod
    def command_inputs(self, source: Source, spec: TaskSpec, wanted: set[str]) -> list[dict[str, Any]]:
        """What a --command reads for each wanted instance (one JSON object each, with `instance_id`)."""

    def chat_prompts(self, source: Source) -> Sequence[Prompt]:
        """The chat messages of every instance, for kinds that `answers_chat`."""
        raise DataProblem(f"{self.name} tasks cannot be answered by a chat endpoint")

    @abstractmethod
    def score(self, source: Source, outputs: Mapping[str, ItemOutput], spec: TaskSpec, run_key: str) -> Computation:
        """Score every instance's output: predictions columns and the spec's metrics with bootstrap intervals."""

    @abstractmethod
    def point_metrics(self, table: pa.Table) -> dict[str, float | None]:
        """The kind's metrics recomputed from a predictions table (to check what an imported result claims)."""

    @abstractmethod
    def paired_arrays(self, labels: pa.ChunkedArray, values: np.ndarray) -> dict[str, np.ndarray]:
        """Keyword arrays for `ranks.rank_ranges` / `paired.paired_difference`: `values` is (models x items) of
        `compared_column`, `labels` the shared label column, both in instance-id order."""
