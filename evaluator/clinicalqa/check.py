"""The data check: does local data match what the spec declares, and exactly what differs if not.

`check_data` never raises for a data problem: it returns a `DataCheckReport` whose `differences` say what
is wrong (file missing or with another sha256, unreadable, invalid items, duplicate ids, item counts, split
sizes, instance-set hash, and missing or unexpected ids when the caller knows the expected ids).

The instance-set hash is `sha256(canonical_json(sorted(ids)))` over the scored instance ids, sorted by code
point: the same ids give the same hash whatever the file format, order or sharding.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.canonical import file_sha256
from evaluator.clinicalqa.items import (
    DataError,
    Item,
    Problem,
    find_data_files,
    parse_items,
    read_records,
    select_records,
)
from evaluator.clinicalqa.rules import DataRules
from evaluator.predictions import instance_set_hash
from evaluator.specs import TaskSpec

_MAX_IDS_NAMED = 20
# Kinds after which the items could not be read at all, so counts and hashes would say nothing.
UNREADABLE_KINDS = frozenset({"no_data", "ambiguous_files", "missing_file", "unreadable", "filter_field"})
# Kinds even a partial run cannot get past: without readable data or unique ids there is nothing to score.
FATAL_KINDS = UNREADABLE_KINDS | {"duplicate_ids"}


@dataclass(frozen=True)
class Difference:
    """One way the data differs from the spec; `kind` is machine-readable, `message` is for people."""

    kind: str
    message: str


@dataclass(frozen=True)
class FileDigest:
    """A data file that was read, with its sha256."""

    path: str
    sha256: str


@dataclass(frozen=True)
class DataCheckReport:
    """The result of checking one data path against one spec."""

    task: str
    data_path: str
    ok: bool
    differences: tuple[Difference, ...]
    n_items: int
    expected_items: int | None
    instance_set_sha256: str | None
    files: tuple[FileDigest, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "data_path": self.data_path,
            "ok": self.ok,
            "differences": [{"kind": d.kind, "message": d.message} for d in self.differences],
            "n_items": self.n_items,
            "expected_items": self.expected_items,
            "instance_set_sha256": self.instance_set_sha256,
            "files": [{"path": f.path, "sha256": f.sha256} for f in self.files],
        }

    def describe(self) -> str:
        """A few lines for a terminal: the verdict, then one line per difference."""
        head = f"{self.task}: {self.n_items} items from {self.data_path}"
        if self.ok:
            return f"{head}: OK (instance set {self.instance_set_sha256})"
        return "\n".join([f"{head}: DIFFERS from the spec", *(f"  - {d.message}" for d in self.differences)])


@dataclass(frozen=True)
class TaskItems:
    """A task's items read from local data: the scored ones, the reference split (if any) and the report."""

    scored: tuple[Item, ...]
    reference: tuple[Item, ...]
    report: DataCheckReport


def _name(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_MAX_IDS_NAMED])
    return shown + (f" and {len(ids) - _MAX_IDS_NAMED} more" if len(ids) > _MAX_IDS_NAMED else "")


def _count(found: int, expected: int, what: str) -> str:
    gap = found - expected
    direction = "more" if gap > 0 else "fewer"
    return f"{what}: found {found:,}, the spec expects {expected:,} ({abs(gap):,} {direction})"


def _digests(path: Path, files: Sequence[Path], rules: DataRules) -> tuple[list[FileDigest], list[Difference]]:
    listed = rules.files
    if listed and path.is_file() and len(listed) != 1:
        message = f"the spec lists {len(listed)} files but {path.name} is a single file"
        return [], [Difference("missing_file", message)]
    digests: list[FileDigest] = []
    differences: list[Difference] = []
    for index, file in enumerate(files):
        pinned = listed[index] if listed else None
        label = pinned.path if pinned else (str(file.relative_to(path)) if path.is_dir() else file.name)
        if not file.is_file():
            differences.append(Difference("missing_file", f"{label}: listed in the spec, not found in {path}"))
            continue
        digest = file_sha256(file)
        digests.append(FileDigest(label, digest))
        if pinned and pinned.sha256 and digest != pinned.sha256:
            message = f"{label}: sha256 {digest}, the spec pins {pinned.sha256}"
            differences.append(Difference("file_sha256", message))
    return digests, differences


def _split(items: Sequence[Item], rules: DataRules) -> tuple[list[Item], list[Item], list[Difference]]:
    if rules.hash_split is None:
        return list(items), [], []
    rule = rules.hash_split
    parts: dict[str, list[Item]] = {"reference": [], "test": []}
    for item in items:
        parts[rule.split_of(item.instance_id)].append(item)
    differences = [
        Difference("split_count", _count(len(parts[name]), expected, f"{name} split"))
        for name, expected in sorted(rule.expected.items())
        if len(parts.get(name, [])) != expected
    ]
    return parts[rule.scored], parts["reference"], differences


def _id_differences(ids: Sequence[str], rules: DataRules, expected_ids: Collection[str] | None) -> list[Difference]:
    differences = []
    if rules.expected_items is not None and len(ids) != rules.expected_items:
        differences.append(Difference("count", _count(len(ids), rules.expected_items, "items")))
    digest = instance_set_hash(ids)
    if rules.instance_set_sha256 and digest != rules.instance_set_sha256:
        message = f"instance set sha256 {digest}, the spec pins {rules.instance_set_sha256}"
        differences.append(Difference("instance_set", message))
    if expected_ids is not None:
        present, wanted = set(ids), set(expected_ids)
        if missing := sorted(wanted - present):
            differences.append(Difference("missing_ids", f"{len(missing):,} id(s) missing: {_name(missing)}"))
        if unexpected := sorted(present - wanted):
            message = f"{len(unexpected):,} unexpected id(s): {_name(unexpected)}"
            differences.append(Difference("unexpected_ids", message))
    return differences


def _from_problems(problems: Iterable[Problem]) -> list[Difference]:
    return [Difference(problem.kind, problem.message) for problem in problems]


def read_task_items(data_path: Path, spec: TaskSpec, *, expected_ids: Collection[str] | None = None) -> TaskItems:
    """Read, validate, select and split a task's data, with the report of how it matches the spec."""
    rules = DataRules.from_spec(spec)
    differences: list[Difference] = []
    digests: list[FileDigest] = []
    scored: list[Item] = []
    reference: list[Item] = []
    try:
        files = find_data_files(data_path, rules.split, [listed.path for listed in rules.files])
        digests, file_differences = _digests(data_path, files, rules)
        differences += file_differences
        if not any(d.kind == "missing_file" for d in file_differences):
            records = read_records(files)
            if rules.records is not None and len(records) != rules.records:
                differences.append(Difference("record_count", _count(len(records), rules.records, "records")))
            selected = select_records(records, rules.where)
            if rules.selected_items is not None and len(selected) != rules.selected_items:
                message = _count(len(selected), rules.selected_items, "selected items")
                differences.append(Difference("selected_count", message))
            items, problems = parse_items(selected, rules.id_fields)
            differences += _from_problems(problems)
            scored, reference, split_differences = _split(items, rules)
            differences += split_differences
    except DataError as error:
        differences += _from_problems(error.problems)
    scored.sort(key=lambda item: item.instance_id)
    reference.sort(key=lambda item: item.instance_id)
    ids = [item.instance_id for item in scored]
    readable = bool(digests) and not any(d.kind in UNREADABLE_KINDS for d in differences)
    if readable:
        differences += _id_differences(ids, rules, expected_ids)
    report = DataCheckReport(
        task=spec.task,
        data_path=str(data_path),
        ok=not differences,
        differences=tuple(differences),
        n_items=len(scored),
        expected_items=rules.expected_items,
        instance_set_sha256=instance_set_hash(ids) if readable else None,
        files=tuple(digests),
    )
    return TaskItems(scored=tuple(scored), reference=tuple(reference), report=report)


def check_data(data_path: Path, spec: TaskSpec, *, expected_ids: Collection[str] | None = None) -> DataCheckReport:
    """Check local data against the spec; `expected_ids`, when known, also names missing and extra ids."""
    return read_task_items(data_path, spec, expected_ids=expected_ids).report
