"""Capability: evaluate a model on a task once — look up first, claim the run key, compute, store.

The run key is computed before anything runs. A stored result for it is returned as it is (nothing is
queried); a live claim by another process is reported (the loser never computes); a stale or failed claim
is reported and resumed only when asked. Items are cached as they complete, so a resumed run never
queries a completed item again; the result row appears only after its predictions file is durable.
What is specific to a task's kind (data, instances, inputs, scoring, predictions schema) is the kind's
(evaluator/kinds), looked up in the registry: this core never names a kind.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

from evaluator import runner
from evaluator.adapters import AdapterError
from evaluator.kinds import Source, TaskKind
from evaluator.predictions import FILE_NAME
from evaluator.runkey import run_id as run_id_of
from evaluator.runkey import run_key as run_key_of
from evaluator.runkey import run_key_inputs
from evaluator.specs import TaskSpec
from evaluator.timing import Timings
from store import results as result_store
from store import runs as run_store
from store.tasks import Task
from tools.bundles import store_result
from tools.eval_outputs import Job, PredictionsNotWritten, bundle_for, compute, off_loop, write_predictions_file
from tools.eval_plan import (
    EvalOutcome,
    EvalRequest,
    Plan,
    data_location,
    partial_config,
    plan_model,
    spec_of,
)
from tools.refs import resolve_task
from tools.registry import Registry
from tools.results import detail
from tools.run_claims import (
    Heartbeat,
    claim,
    owner_id,
)


def existing_outcome(registry: Registry, key: str) -> EvalOutcome | None:
    stored = result_store.get_result_by_key(registry.store, key)
    if stored is None:
        return None
    return EvalOutcome(
        "existing",
        stored.run_id,
        key,
        f"already evaluated: {stored.run_id} ({stored.status})",
        detail(registry, stored),
    )


async def open_source(kind: TaskKind, request: EvalRequest, spec: TaskSpec, registry: Registry) -> Source:
    """The kind's checked view of the data (off the loop); an unreadable or differing folder is a BadRequest."""
    data = data_location(registry, request, spec)
    return await off_loop(partial(kind.open, data, spec, limit=request.limit, allow_partial=request.allow_partial))


async def run_key_for(request: EvalRequest, plan: Plan, task: Task, source: Source) -> tuple[dict[str, Any], str]:
    """The run-key inputs and the key. Listing instances may take seconds (windowing a cohort): only a partial
    run, whose key names its instance set, lists them before the claim."""
    is_partial = not source.complete or request.limit is not None
    ids = await off_loop(source.instance_ids) if is_partial else []
    inputs = run_key_inputs(
        model_slug=plan.model.slug,
        model_version=plan.model.version,
        task_slug=task.slug,
        task_version=task.version,
        spec_hash=task.spec_hash,
        config=partial_config(request, plan.config, ids, source.complete),
    )
    return inputs, run_key_of(inputs)


async def evaluate(
    registry: Registry,
    request: EvalRequest,
    progress: runner.Progress = runner.no_progress,
    timings: Timings | None = None,
) -> EvalOutcome:
    """Evaluate `request.model` on `request.task` unless that exact computation exists or is running; the time
    of each phase goes to `timings` when given."""
    clock = timings if timings is not None else Timings()
    clock.restart()
    task = resolve_task(registry.store, request.task)
    spec = spec_of(task)
    kind = registry.kind(spec.kind)
    plan = await plan_model(registry, request, task)
    clock.lap("start-up")
    source = await open_source(kind, request, spec, registry)
    clock.lap("data load")
    inputs, key = await run_key_for(request, plan, task, source)
    found = existing_outcome(registry, key)
    if found is not None:
        return found
    refusal = await claim(registry, key, inputs, plan, task, request.resume)
    if refusal is not None:
        return existing_outcome(registry, key) or refusal
    run_id = run_id_of(key)
    clock.lap("run key and claim")
    try:
        async with Heartbeat(registry, key) as beat:

            def report(done: int, total: int) -> None:
                beat.update(done, total)
                progress(done, total)

            computation, calls = await compute(Job(registry, plan, kind, source, spec, key, report, clock))
            path = registry.predictions_path(f"{run_id}/{FILE_NAME}")
            sha256 = await write_predictions_file(path, kind, computation.columns)
            clock.lap("predictions write")
            bundle = bundle_for(plan, spec, inputs, key, computation, sha256, request.publish)
            stored = await store_result(registry, bundle, path)
        await run_store.finish_run(registry.store, key, owner_id(), "done")
        clock.lap("store commit")
    except (AdapterError, PredictionsNotWritten) as error:
        await run_store.finish_run(registry.store, key, owner_id(), "failed", str(error))
        return EvalOutcome("failed", run_id, key, f"run {run_id} stopped: {error}; rerun with --resume to finish it")
    except BaseException as error:
        await asyncio.shield(run_store.finish_run(registry.store, key, owner_id(), "failed", repr(error)[:500]))
        raise
    result = result_store.get_result(registry.store, stored.run_id)
    assert result is not None
    outcome = EvalOutcome("computed", stored.run_id, key, f"computed {stored.run_id}", detail(registry, result), calls)
    clock.lap("result read")
    return outcome
