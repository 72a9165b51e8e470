"""The ClinicalQA baselines, pure and deterministic: `baseline/majority` and `baseline/random`.

- majority: the most common gold letter of a reference split, never of the scored items (ties go to the
  earlier letter, A before E). The spec's `reference` block names that split: for
  `clinicalqa-upstream-demo@0` it is the demo's own hash-split reference part; ClinicalQA publishes no
  reference split, so `clinicalqa@0` names the same upstream reference split (SNUH-HARI's draft items).
  `majority_config` records which in the result's config.
- random: a uniform letter per instance, drawn with `np.random.default_rng(seed)` where seed is the sha256
  of the key passed in (the run key) read as a big-endian integer; the letters are drawn in one call, in
  ascending instance_id order, so the predictions depend only on the key and the set of ids.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.clinicalqa.check import DataCheckReport, read_task_items
from evaluator.clinicalqa.items import LETTERS, Item
from evaluator.clinicalqa.rules import default_data_path
from evaluator.clinicalqa.task import DataMismatch
from evaluator.specs import SPEC_DIR, TaskSpec, load_task_files

MAJORITY_SLUG = "baseline/majority"
RANDOM_SLUG = "baseline/random"


@dataclass(frozen=True)
class MajorityFit:
    """The majority letter, the letter counts it came from, and what the reference was."""

    letter: str
    counts: Mapping[str, int]
    reference: Mapping[str, Any]

    @property
    def n(self) -> int:
        return sum(self.counts.values())


def fit_majority(gold_letters: Iterable[str], reference: Mapping[str, Any] | None = None) -> MajorityFit:
    """The most common letter (ties: the earlier letter); raises ValueError on no letters or a non-letter."""
    counts = Counter(gold_letters)
    if not counts:
        raise ValueError("the reference split is empty: no letter to learn")
    strays = sorted(set(counts) - set(LETTERS))
    if strays:
        raise ValueError(f"reference letters must be A-E, got {strays}")
    letter = max(LETTERS, key=lambda candidate: (counts[candidate], -LETTERS.index(candidate)))
    return MajorityFit(letter, {name: counts[name] for name in LETTERS}, dict(reference or {}))


def _spec_by_ref(task: str, specs_dir: Path) -> TaskSpec:
    for task_file in load_task_files(specs_dir):
        if task_file.spec.task == task:
            return task_file.spec
    raise ValueError(f"reference task {task!r} has no spec in {specs_dir}")


def load_reference(
    spec: TaskSpec, data_dir: Path | None = None, *, specs_dir: Path = SPEC_DIR / "tasks"
) -> tuple[tuple[Item, ...], DataCheckReport]:
    """The reference items the spec's `reference` block names, checked against the referenced task's spec.

    `data_dir` defaults to where the referenced task's data ships in the repository (`repository_path`).
    """
    block: Mapping[str, Any] = (spec.model_extra or {}).get("reference") or {}
    if "task" not in block or block.get("split") != "reference":
        raise ValueError(f"{spec.task}: the spec names no reference split (a 'reference' block with task, split)")
    source = spec if block["task"] == spec.task else _spec_by_ref(str(block["task"]), specs_dir)
    data_dir = data_dir or default_data_path(source)
    if data_dir is None:
        raise ValueError(f"{source.task}: no data directory given and the spec names no repository_path")
    task_items = read_task_items(data_dir, source)
    if not task_items.report.ok:
        raise DataMismatch(task_items.report)
    return task_items.reference, task_items.report


def fit_majority_for(
    spec: TaskSpec, data_dir: Path | None = None, *, specs_dir: Path = SPEC_DIR / "tasks"
) -> MajorityFit:
    """Learn the majority letter from the reference split that `spec` names."""
    items, report = load_reference(spec, data_dir, specs_dir=specs_dir)
    block: Mapping[str, Any] = (spec.model_extra or {}).get("reference") or {}
    reference = {
        "task": block["task"],
        "split": block["split"],
        "n_items": len(items),
        "instance_set_sha256": report.instance_set_sha256,
        "files": [{"path": f.path, "sha256": f.sha256} for f in report.files],
    }
    return fit_majority((item.answer for item in items), reference)


def predict_majority(instance_ids: Iterable[str], fit: MajorityFit) -> dict[str, str]:
    """The majority letter for every instance."""
    return dict.fromkeys(instance_ids, fit.letter)


def majority_config(fit: MajorityFit) -> dict[str, Any]:
    """What a result's config records for `baseline/majority`."""
    return {
        "model": MAJORITY_SLUG,
        "letter": fit.letter,
        "counts": dict(fit.counts),
        "reference": dict(fit.reference),
    }


def seed_from_key(key: str) -> int:
    """The sha256 of the key as a big-endian integer (NumPy's SeedSequence takes all 256 bits)."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest(), "big")


def predict_random(instance_ids: Iterable[str], key: str) -> dict[str, str]:
    """A uniform letter per instance, reproducible from `key` and the set of ids alone."""
    ordered: Sequence[str] = sorted(set(instance_ids))
    draws = np.random.default_rng(seed_from_key(key)).integers(0, len(LETTERS), size=len(ordered))
    return {instance_id: LETTERS[int(draw)] for instance_id, draw in zip(ordered, draws, strict=True)}


def random_config(key: str) -> dict[str, Any]:
    """What a result's config records for `baseline/random`."""
    return {
        "model": RANDOM_SLUG,
        "rng": "numpy.random.default_rng(int.from_bytes(sha256(key), 'big'))",
        "key": key,
    }
