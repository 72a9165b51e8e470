"""Result bundles for tests, computed the way the harness computes them (never typed-in numbers).

Predictions are synthetic (a seeded model that is right with a given probability, or scores windows
with a given separation); metrics and intervals are computed from them by evaluator.stats, and the
bundle goes through the same import path as any result.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from evaluator import stats
from evaluator.canonical import file_sha256
from evaluator.kinds import BUILTIN_KINDS
from evaluator.predictions import FILE_NAME, instance_set_hash, write_predictions
from evaluator.runkey import run_key, run_key_inputs
from evaluator.specs import TaskFile, TaskSpec, load_task_files
from evaluator.version import HARNESS_VERSION

REPLICATES = 200
LETTERS = np.array(list("ABCDE"))


def task_file(ref: str) -> TaskFile:
    return next(f for f in load_task_files() if f.spec.task == ref)


@dataclass(frozen=True)
class FakeModel:
    slug: str
    name: str
    type: str = "llm"
    provider_model_id: str | None = None
    version: str = "2026-01"

    @property
    def provider(self) -> str:
        return self.slug.split("/", 1)[0]


def mcq_columns(rng: np.random.Generator, n: int, quality: float) -> dict[str, list[Any]]:
    ids = [f"q{i:05d}" for i in range(n)]
    gold = LETTERS[np.random.default_rng(n).integers(0, 5, size=n)]  # the task's answers, the same for every model
    right = rng.random(n) < quality
    wrong = LETTERS[(np.searchsorted(LETTERS, gold) + rng.integers(1, 5, size=n)) % 5]
    parsed = rng.random(n) < 0.98
    prediction = np.where(right, gold, wrong)
    return {
        "instance_id": ids,
        "unit_id": ids,
        "label": gold.tolist(),
        "prediction": [p if ok else None for p, ok in zip(prediction.tolist(), parsed, strict=True)],
        "correct": (right & parsed).tolist(),
        "parsed": parsed.tolist(),
        "raw_output": [f"정답: {p}" if ok else "모르겠습니다" for p, ok in zip(prediction, parsed, strict=True)],
        "prompt_tokens": [300] * n,
        "completion_tokens": [5] * n,
        "latency_ms": [100.0] * n,
    }


def binary_columns(rng: np.random.Generator, n: int, quality: float) -> dict[str, list[Any]]:
    """Windows and labels are the task's (the same for every model: seeded by n only); scores are the model's."""
    truth = np.random.default_rng(n)
    patients = np.sort(truth.integers(0, max(n // 20, 2), size=n))
    labels = (truth.random(n) < 0.15).astype(np.int8)
    scores = labels * quality * 2 + rng.normal(size=n)
    return {
        "instance_id": [f"{p}:{i * 30}" for i, p in enumerate(patients)],
        "unit_id": [str(p) for p in patients],
        "label": labels.tolist(),
        "score": scores.tolist(),
    }


def write_bundle(
    directory: Path,
    *,
    task: str,
    model: FakeModel,
    quality: float,
    tier: str = "standard",
    status: str = "published",
    n: int | None = None,
    config: dict[str, Any] | None = None,
    eval_date: str = "2026-11-01",
    spec: TaskSpec | None = None,
) -> Path:
    """A bundle directory for `model` on `task`, its metrics computed from its predictions. `spec` is the
    task version's spec when it is not a shipped file (a version added to the store by a benchmark)."""
    spec = spec or task_file(task).spec
    n = n or spec.dataset.get("expected_items") or 400
    config = config or {"adapter": "test-fixture", "temperature": 0}
    inputs = run_key_inputs(
        model_slug=model.slug,
        model_version=model.version,
        task_slug=spec.slug,
        task_version=spec.version,
        spec_hash=spec.spec_hash,
        config=config,
    )
    key = run_key(inputs)
    rng = stats.rng_from_key(key)
    columns = mcq_columns(rng, n, quality) if spec.kind == "mcq" else binary_columns(rng, n, quality)
    directory.mkdir(parents=True, exist_ok=True)
    sha256 = write_predictions(directory / FILE_NAME, BUILTIN_KINDS[spec.kind].schema, columns)
    units = stats.factorize_units(np.array(columns["unit_id"]))
    names = [m["name"] for m in spec.metrics]
    if spec.kind == "mcq":
        estimates = stats.bootstrap_metrics(
            names, units=units, replicates=REPLICATES, rng=rng, correct=np.array(columns["correct"])
        )
    else:
        estimates = stats.bootstrap_metrics(
            names,
            units=units,
            replicates=REPLICATES,
            rng=rng,
            labels=np.array(columns["label"]),
            scores=np.array(columns["score"]),
        )
    parsed = columns.get("parsed")
    result = {
        "key": inputs,
        "run_key": key,
        "model": {
            "slug": model.slug,
            "name": model.name,
            "type": model.type,
            "provider": model.provider,
            "provider_model_id": model.provider_model_id,
            "version": model.version,
        },
        "tier": tier,
        "status": status,
        "eval_date": eval_date,
        "primary_metric": spec.primary_metric,
        "metrics": [{"name": e.name, "value": e.value, "ci_low": e.ci_low, "ci_high": e.ci_high} for e in estimates],
        "bootstrap": {
            "unit": spec.bootstrap["unit"],
            "n_units": estimates[0].n_units,
            "replicates": REPLICATES,
            "level": 0.95,
            "degenerate_replicates": max(e.degenerate_replicates for e in estimates),
        },
        "n": n,
        "parse_rate": (sum(parsed) / n) if parsed else None,
        "cost_usd": 0.0 if tier == "baseline" else round(n * 0.0002, 6),
        "versions": {"harness": HARNESS_VERSION, "spec_hash": spec.spec_hash},
        "instance_set_hash": instance_set_hash(columns["instance_id"]),
        "predictions": {"file": FILE_NAME, "sha256": sha256, "rows": n},
    }
    (directory / "result.json").write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2))
    assert file_sha256(directory / FILE_NAME) == sha256
    return directory
