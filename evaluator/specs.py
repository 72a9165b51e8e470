"""Versioned task specifications and dataset records, loaded from the JSON files under `evaluator/specs/`.

A task file has two parts. `spec` is the definition of the task: everything that can change a number
(data reference, instance selection, prompt and parser, windowing and labels, metrics, bootstrap). Its
`spec_hash` is the sha256 of its canonical JSON; changing any of it means a new version. `meta` is what
may change without changing the task: title, summary, preview flag, lifecycle status and change note.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from evaluator.canonical import canonical_hash

SPEC_DIR = Path(__file__).parent / "specs"
TASK_REF = re.compile(r"^(?P<slug>[a-z0-9][a-z0-9-]{0,63})@(?P<version>[0-9]{1,6})$")

KIND_NAME = r"^[a-z][a-z0-9_]{0,39}$"  # a task kind (evaluator/kinds: mcq, binary_timeseries, ...)
TaskStatus = Literal["building", "in_review", "published"]


class TaskMeta(BaseModel):
    """What describes a task version without defining it (not part of the spec hash)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str
    summary: str
    status: TaskStatus = "building"
    preview: bool = True
    demo: bool = False
    change_note: str = ""
    contamination_note: str = ""
    catalog_id: str | None = None
    items_public: bool = False
    """The dataset's licence allows showing the items' texts on the result pages (question, options, answer)."""
    item_category: str | None = None
    """The field of an item's source record that names its category (e.g. a specialty), for per-category scores."""


class TaskSpec(BaseModel):
    """The hashed definition. Only the fields the harness routes on are typed; the rest is kept as written."""

    model_config = ConfigDict(extra="allow", frozen=True)

    task: str = Field(pattern=TASK_REF.pattern)
    kind: str = Field(pattern=KIND_NAME)
    dataset: dict[str, Any]
    metrics: list[dict[str, Any]]
    primary_metric: str
    bootstrap: dict[str, Any]

    @property
    def slug(self) -> str:
        return self.task.split("@", 1)[0]

    @property
    def version(self) -> int:
        return int(self.task.split("@", 1)[1])

    @property
    def higher_is_better(self) -> bool:
        for metric in self.metrics:
            if metric["name"] == self.primary_metric:
                return bool(metric.get("higher_is_better", True))
        raise ValueError(f"primary metric {self.primary_metric!r} is not among the spec's metrics")

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @cached_property
    def spec_hash(self) -> str:
        return canonical_hash(self.as_dict())


class TaskFile(BaseModel):
    """One `specs/tasks/<slug>@<version>.json` file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    meta: TaskMeta
    spec: TaskSpec


class DatasetRecord(BaseModel):
    """A dataset with its credit: licence, licence URL, citation, DOI and notes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")
    name: str
    license: str
    license_url: str
    citation: str
    doi: str | None = None
    source: str
    notes: str = ""
    demo: bool = False


def load_task_files(directory: Path = SPEC_DIR / "tasks") -> list[TaskFile]:
    """Every task file, checked: the file name must equal the spec's `slug@version`."""
    files = []
    for path in sorted(directory.glob("*.json")):
        task_file = TaskFile.model_validate(orjson.loads(path.read_bytes()))
        if path.stem != task_file.spec.task:
            raise ValueError(f"{path.name}: file name does not match spec task {task_file.spec.task!r}")
        files.append(task_file)
    return files


def load_dataset_records(directory: Path = SPEC_DIR / "datasets") -> list[DatasetRecord]:
    return [DatasetRecord.model_validate(orjson.loads(p.read_bytes())) for p in sorted(directory.glob("*.json"))]
