"""Run a model over a task's instances: per-item outputs in; what a scored run reports out (scoring is the kind's).

The runner knows tasks and models, not the store: completed items arrive from a cache and leave through a
`save` callback (the caller persists them before the next item counts as done), so a killed run resumes
without querying a completed item again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from evaluator import stats
from evaluator.adapters import AdapterError, ItemOutput
from evaluator.specs import TaskSpec


class Prompt(Protocol):
    """One instance as a chat model is asked it."""

    @property
    def instance_id(self) -> str: ...

    @property
    def messages(self) -> list[dict[str, str]]: ...


Save = Callable[[str, ItemOutput], Awaitable[None]]
Progress = Callable[[int, int], None]
Ask = Callable[[Prompt], Awaitable[ItemOutput]]


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
    instances: Sequence[Prompt], ask: Ask, cache: dict[str, ItemOutput], save: Save, progress: Progress
) -> dict[str, ItemOutput]:
    """Ask every instance not in the cache (concurrency is the adapter's); stop at the first failure."""
    outputs = {i.instance_id: cache[i.instance_id] for i in instances if i.instance_id in cache}
    total = len(instances)
    progress(len(outputs), total)

    async def one(instance: Prompt) -> None:
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
