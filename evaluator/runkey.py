"""Run keys: the identity of a computation. The same key is never stored, or computed, twice.

run_key = sha256 of the canonical JSON of {model: {slug, version}, task: {slug, version, spec_hash},
harness, config}; run_id = its first 12 hex characters.
"""

from __future__ import annotations

from typing import Any

from evaluator.canonical import canonical_hash
from evaluator.version import HARNESS_VERSION

RUN_ID_LENGTH = 12


def run_key_inputs(
    *,
    model_slug: str,
    model_version: str,
    task_slug: str,
    task_version: int,
    spec_hash: str,
    config: dict[str, Any],
    harness: str = HARNESS_VERSION,
) -> dict[str, Any]:
    return {
        "model": {"slug": model_slug, "version": model_version},
        "task": {"slug": task_slug, "version": task_version, "spec_hash": spec_hash},
        "harness": harness,
        "config": config,
    }


def run_key(inputs: dict[str, Any]) -> str:
    return canonical_hash(inputs)


def run_id(key: str) -> str:
    return key[:RUN_ID_LENGTH]
