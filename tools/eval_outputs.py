"""Asking the model for a task's outputs — a baseline, a command or a chat endpoint — and making the result
bundle of what the task's kind computed from them. Nothing here knows a task kind by name."""

from __future__ import annotations

import asyncio
import platform
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from evaluator import runner
from evaluator.adapters import ChatEndpoint, ItemOutput, run_command
from evaluator.kinds import DataProblem, Source, TaskKind
from evaluator.predictions import write_predictions
from evaluator.specs import TaskSpec
from evaluator.timing import Timings
from evaluator.version import HARNESS_VERSION
from store import runs as run_store
from store.models import Model
from tools.bundles import BundleModel, BundlePredictions, ResultBundle
from tools.errors import BadRequest
from tools.eval_plan import Plan
from tools.registry import Registry
from tools.run_claims import ItemSaver, cached
from tools.schemas import Bootstrap, MetricValue

PACKAGES = ("numpy", "pyarrow", "scikit-learn", "openai", "vitaldb")
T = TypeVar("T")
Outputs = tuple[dict[str, ItemOutput], int]  # every instance's output, and how many the model was asked now


async def off_loop(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` in a thread; a DataProblem (unreadable data) becomes BadRequest, never a traceback."""
    try:
        return await asyncio.to_thread(function, *args)
    except DataProblem as problem:
        raise BadRequest(str(problem)) from None


@dataclass(frozen=True)
class Job:
    """What asking a model for a task's outputs needs: where to cache items, the plan, the task's kind and data."""

    registry: Registry
    plan: Plan
    kind: TaskKind
    source: Source
    spec: TaskSpec
    key: str
    progress: runner.Progress
    timings: Timings


async def command_outputs(job: Job) -> Outputs:
    """Run the command on the instances not yet cached; cache what it wrote."""
    cache = cached(job.registry, job.key)
    todo = set(await off_loop(job.source.instance_ids)) - set(cache)
    fresh: dict[str, ItemOutput] = {}
    if todo:
        inputs = await off_loop(job.kind.command_inputs, job.source, job.spec, todo)
        fresh = await run_command(str(job.plan.config["command"]), inputs, job.kind.output_field)
        await run_store.save_items(job.registry.store, job.key, [(k, v.to_json()) for k, v in fresh.items()])
    return {**cache, **fresh}, len(fresh)


async def chat_outputs(job: Job) -> Outputs:
    """Ask the chat endpoint every instance not yet cached (completed items are saved in batches as they come)."""
    assert job.plan.endpoint is not None
    prompts = job.kind.chat_prompts(job.source)
    generation = (job.spec.model_extra or {}).get("generation", {})
    endpoint = ChatEndpoint(
        job.plan.endpoint,
        max_tokens=generation.get("max_tokens"),
        temperature=float(generation.get("temperature", 0)),
        timings=job.timings,
    )
    counter = {"calls": 0}

    async def ask(prompt: runner.Prompt) -> ItemOutput:
        counter["calls"] += 1
        return await endpoint.complete(prompt.messages)

    try:
        async with ItemSaver(job.registry, job.key) as saver:
            outputs = await runner.answer_each(prompts, ask, cached(job.registry, job.key), saver.save, job.progress)
            job.timings.lap("requests")
    finally:
        await endpoint.close()
    job.timings.lap("item cache and close")
    return outputs, counter["calls"]


async def compute(job: Job) -> tuple[runner.Computation, int]:
    """The model's outputs (cached items are not asked again), scored by the kind; and the count of new calls."""
    if job.plan.adapter == "python":
        outputs, calls = (
            await off_loop(job.kind.baseline_outputs, job.plan.model.slug, job.source, job.spec, job.key),
            0,
        )
        job.timings.lap("model outputs")
    elif job.plan.adapter == "command":
        outputs, calls = await command_outputs(job)
        job.timings.lap("model outputs")
    else:
        outputs, calls = await chat_outputs(job)
    computation = await off_loop(job.kind.score, job.source, outputs, job.spec, job.key)
    job.timings.lap("parse, score, bootstrap CIs")
    return computation, calls


class PredictionsNotWritten(Exception):
    """The predictions file could not be written (a full disk, a read-only folder): the run fails with the reason,
    its items stay cached, and `--resume` finishes it once the cause is gone."""


async def write_predictions_file(path: Path, kind: TaskKind, columns: dict[str, list[Any]]) -> str:
    try:
        return await asyncio.to_thread(write_predictions, path, kind.schema, columns)
    except OSError as error:  # the temporary file is removed by write_predictions; nothing is in place
        raise PredictionsNotWritten(f"could not write {path}: {error.strerror or error}") from None


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def cost_of(model: Model, plan: Plan, computation: runner.Computation) -> float | None:
    """Tokens × the model's configured price; baselines cost nothing; unknown without a price."""
    if plan.adapter == "python":
        return 0.0
    if plan.adapter != "openai-chat" or model.price_input_per_mtok is None or model.price_output_per_mtok is None:
        return None
    return round(
        (
            computation.prompt_tokens * model.price_input_per_mtok
            + computation.completion_tokens * model.price_output_per_mtok
        )
        / 1_000_000,
        6,
    )


def bundle_for(
    plan: Plan,
    spec: TaskSpec,
    inputs: dict[str, Any],
    key: str,
    computation: runner.Computation,
    sha256: str,
    publish: bool,
) -> ResultBundle:
    model = plan.model
    return ResultBundle(
        key=inputs,
        run_key=key,
        model=BundleModel.of(model),
        tier=plan.tier,  # type: ignore[arg-type]
        status="published" if publish else "in_review",
        eval_date=datetime.now(UTC).date().isoformat(),
        primary_metric=spec.primary_metric,
        metrics=[
            MetricValue(name=e.name, value=e.value, ci_low=e.ci_low, ci_high=e.ci_high) for e in computation.metrics
        ],
        bootstrap=Bootstrap(
            unit=str(spec.bootstrap["unit"]),
            n_units=computation.n_units,
            replicates=int(spec.bootstrap["replicates"]),
            level=float(spec.bootstrap.get("level", 0.95)),
            degenerate_replicates=max(e.degenerate_replicates for e in computation.metrics),
        ),
        n=computation.n,
        parse_rate=computation.parse_rate,
        cost_usd=cost_of(model, plan, computation),
        versions={
            "harness": HARNESS_VERSION,
            "spec_hash": inputs["task"]["spec_hash"],
            "packages": package_versions(),
            "tokens": {"prompt": computation.prompt_tokens, "completion": computation.completion_tokens},
        },
        instance_set_hash=computation.instance_set_hash,
        predictions=BundlePredictions(sha256=sha256, rows=computation.n),
    )
