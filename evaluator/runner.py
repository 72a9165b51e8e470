"""Run a model over a task's instances and score it: per-item outputs in, predictions and metrics out.

The runner knows tasks and models, not the store: completed items arrive from a cache and leave through a
`save` callback (the caller persists them before the next item counts as done), so a killed run resumes
without querying a completed item again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evaluator import stats
from evaluator.adapters import AdapterError, ItemOutput
from evaluator.clinicalqa import Instance, score_output
from evaluator.predictions import instance_set_hash
from evaluator.specs import TaskSpec

Save = Callable[[str, ItemOutput], Awaitable[None]]
Progress = Callable[[int, int], None]
Ask = Callable[[Instance], Awaitable[ItemOutput]]


@dataclass(frozen=True)
class Computation:
    """A scored run: the predictions columns (under the kind's schema) and everything a result reports."""

    columns: dict[str, list[Any]]
    metrics: list[stats.Estimate]
    n: int
    n_units: int
    parse_rate: float | None
    prompt_tokens: int
    completion_tokens: int
    instance_set_hash: str


def no_progress(done: int, total: int) -> None:
    """The default progress callback: report nothing."""


async def answer_each(
    instances: Sequence[Instance], ask: Ask, cache: dict[str, ItemOutput], save: Save, progress: Progress
) -> dict[str, ItemOutput]:
    """Ask every instance not in the cache (concurrency is the adapter's); stop at the first failure."""
    outputs = {i.instance_id: cache[i.instance_id] for i in instances if i.instance_id in cache}
    total = len(instances)
    progress(len(outputs), total)

    async def one(instance: Instance) -> None:
        output = await ask(instance)
        await save(instance.instance_id, output)
        outputs[instance.instance_id] = output
        progress(len(outputs), total)

    try:
        async with asyncio.TaskGroup() as group:
            for instance in instances:
                if instance.instance_id not in outputs:
                    group.create_task(one(instance))
    except* AdapterError as failures:
        raise failures.exceptions[0] from None
    return outputs


def bootstrap(spec: TaskSpec, run_key: str, unit_ids: list[str], **data: np.ndarray) -> list[stats.Estimate]:
    """Every metric of the spec with its cluster-bootstrap CI, seeded from the run key."""
    names = [m["name"] for m in spec.metrics]
    return stats.bootstrap_metrics(
        names,
        units=stats.factorize_units(np.asarray(unit_ids)),
        replicates=int(spec.bootstrap["replicates"]),
        rng=stats.rng_from_key(run_key),
        level=float(spec.bootstrap.get("level", 0.95)),
        **data,
    )


def score_mcq(
    instances: Sequence[Instance], outputs: dict[str, ItemOutput], spec: TaskSpec, run_key: str
) -> Computation:
    """Parse each output with the spec's parser and score it; unparsable answers count as wrong."""
    columns: dict[str, list[Any]] = {
        name: []
        for name in (
            "instance_id",
            "unit_id",
            "label",
            "prediction",
            "correct",
            "parsed",
            "raw_output",
            "prompt_tokens",
            "completion_tokens",
            "latency_ms",
        )
    }
    for instance in instances:
        output = outputs[instance.instance_id]
        text = output.raw_output if output.raw_output is not None else output.answer
        scored = score_output(text, instance)
        for name, value in (
            ("instance_id", instance.instance_id),
            ("unit_id", instance.unit_id),
            ("label", instance.label),
            ("prediction", scored.prediction),
            ("correct", scored.correct),
            ("parsed", scored.parsed),
            ("raw_output", output.raw_output),
            ("prompt_tokens", output.prompt_tokens),
            ("completion_tokens", output.completion_tokens),
            ("latency_ms", output.latency_ms),
        ):
            columns[name].append(value)
    correct = np.array(columns["correct"], dtype=bool)
    return Computation(
        columns=columns,
        metrics=bootstrap(spec, run_key, columns["unit_id"], correct=correct),
        n=len(instances),
        n_units=len(set(columns["unit_id"])),
        parse_rate=float(np.mean(columns["parsed"])) if instances else None,
        prompt_tokens=sum(t or 0 for t in columns["prompt_tokens"]),
        completion_tokens=sum(t or 0 for t in columns["completion_tokens"]),
        instance_set_hash=instance_set_hash(columns["instance_id"]),
    )


def score_binary(columns: dict[str, list[Any]], spec: TaskSpec, run_key: str) -> Computation:
    """AUROC and AUPRC with patient-level intervals, plus prevalence (no interval) over the scored windows."""
    labels = np.asarray(columns["label"], dtype=np.int8)
    scores = np.asarray(columns["score"], dtype=np.float64)
    if labels.size == 0 or labels.min() == labels.max():
        raise AdapterError("the scored windows hold only one class: AUROC and AUPRC are undefined")
    metrics = bootstrap(spec, run_key, columns["unit_id"], labels=labels, scores=scores)
    n_units = len(set(columns["unit_id"]))
    prevalence = stats.Estimate("prevalence", float(labels.mean()), None, None, int(labels.size), n_units, 0, 0)
    return Computation(
        columns=columns,
        metrics=[*metrics, prevalence],
        n=int(labels.size),
        n_units=n_units,
        parse_rate=None,
        prompt_tokens=0,
        completion_tokens=0,
        instance_set_hash=instance_set_hash(columns["instance_id"]),
    )
