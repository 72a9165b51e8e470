"""The data rules a ClinicalQA-kind spec states, read once into typed values the code obeys.

`spec.dataset`: `split` (file split name, or null), `files` (`[{"path", "sha256"}]`: the files to read,
relative to the data directory; an empty list means the directory rule of `items.py`), `expected_items`
(how many instances are scored), `instance_set_sha256` (hash of the sorted scored ids, or null), and
optionally `records` (how many records the files hold), `selected_items` (how many pass `where`, before
any split) and `repository_path` (where the data ships inside the BenchToward repository, for demo data;
see `default_data_path`).

`spec.instances`: `id_fields`, `where` (field equalities a record must satisfy to be an item), and `split`
(null, or a hash split: an item is in the reference split when
`int(sha256(key.format(instance_id=id)).hexdigest(), 16) % modulus < reference_below`, else in the test split;
`scored` names the split that is scored, `expected` the size of each split).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from evaluator.clinicalqa.items import DEFAULT_ID_FIELDS
from evaluator.specs import TaskSpec

SplitName = Literal["reference", "test"]
# The repository checkout BenchToward runs from (`make run`); demo data ships inside it.
REPOSITORY_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ListedFile:
    """A data file the spec names, with its sha256 when pinned."""

    path: str
    sha256: str | None


@dataclass(frozen=True)
class HashSplit:
    """The deterministic reference/test split of `spec.instances.split` (rule `sha256-mod`)."""

    key: str
    modulus: int
    reference_below: int
    scored: SplitName
    expected: Mapping[str, int] = field(default_factory=dict)

    def split_of(self, instance_id: str) -> SplitName:
        digest = hashlib.sha256(self.key.format(instance_id=instance_id).encode("utf-8")).hexdigest()
        return "reference" if int(digest, 16) % self.modulus < self.reference_below else "test"


@dataclass(frozen=True)
class DataRules:
    """Everything the loader and the data check need from one spec."""

    task: str
    split: str | None
    files: tuple[ListedFile, ...]
    id_fields: tuple[str, ...]
    where: Mapping[str, Any]
    hash_split: HashSplit | None
    expected_items: int | None
    records: int | None
    selected_items: int | None
    instance_set_sha256: str | None
    repository_path: str | None = None

    @classmethod
    def from_spec(cls, spec: TaskSpec) -> DataRules:
        dataset = spec.dataset
        instances: Mapping[str, Any] = (spec.model_extra or {}).get("instances") or {}
        return cls(
            task=spec.task,
            split=dataset.get("split"),
            files=tuple(ListedFile(str(f["path"]), f.get("sha256")) for f in dataset.get("files") or ()),
            id_fields=tuple(instances.get("id_fields") or DEFAULT_ID_FIELDS),
            where=dict(instances.get("where") or {}),
            hash_split=_hash_split(instances.get("split")),
            expected_items=dataset.get("expected_items"),
            records=dataset.get("records"),
            selected_items=dataset.get("selected_items"),
            instance_set_sha256=dataset.get("instance_set_sha256"),
            repository_path=dataset.get("repository_path"),
        )


def default_data_path(spec: TaskSpec) -> Path | None:
    """Where the spec's data ships in the repository (demo data), or None when the user must supply it."""
    relative = DataRules.from_spec(spec).repository_path
    return REPOSITORY_ROOT / relative if relative else None


def _hash_split(value: Mapping[str, Any] | None) -> HashSplit | None:
    if value is None:
        return None
    if value.get("rule") != "sha256-mod":
        raise ValueError(f"unknown instance split rule {value.get('rule')!r} (this code knows 'sha256-mod')")
    scored = value["scored"]
    if scored not in ("reference", "test"):
        raise ValueError(f"scored split must be 'reference' or 'test', not {scored!r}")
    return HashSplit(
        key=str(value["key"]),
        modulus=int(value["modulus"]),
        reference_below=int(value["reference_below"]),
        scored=scored,
        expected=dict(value.get("expected") or {}),
    )
