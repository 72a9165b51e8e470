"""Capability: evaluate a model on a task once — look up first, claim the run key, compute, store.

The run key is computed before anything runs. A stored result for it is returned as it is (nothing is
queried); a live claim by another process is reported (the loser never computes); a stale or failed claim
is reported and resumed only when asked. Items are cached as they complete, so a resumed run never
queries a completed item again; the result row appears only after its predictions file is durable.
"""

from __future__ import annotations

import asyncio
import platform
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, Literal, Self

import orjson

from evaluator import clinicalqa, runner
from evaluator.adapters import AdapterError, ChatEndpoint, EndpointConfig, ItemOutput, run_command
from evaluator.canonical import canonical_json
from evaluator.predictions import FILE_NAME, write_predictions
from evaluator.runkey import run_id as run_id_of
from evaluator.runkey import run_key as run_key_of
from evaluator.runkey import run_key_inputs
from evaluator.specs import TaskSpec
from evaluator.version import HARNESS_VERSION
from evaluator.vitaldb import pipeline as vitaldb_pipeline
from evaluator.vitaldb.cases import CaseTableError
from evaluator.vitaldb.check import check_data_dir
from evaluator.vitaldb.signals import CaseFileError
from evaluator.vitaldb.synthetic import CohortConfig, write_synthetic_cohort
from store import leases
from store import results as result_store
from store import runs as run_store
from store.clock import utc_now
from store.models import Model
from store.runs import Run
from store.tasks import Task
from tools import models as model_tools
from tools.bundles import BundleModel, BundlePredictions, ResultBundle, store_result
from tools.errors import BadRequest
from tools.refs import resolve_model, resolve_task
from tools.registry import Registry
from tools.results import detail
from tools.schemas import Bootstrap, MetricValue, ResultDetail

SAVE_SECONDS = 0.25
SAVE_BATCH = 64
PACKAGES = ("numpy", "pyarrow", "scikit-learn", "openai", "vitaldb")
Outcome = Literal["computed", "existing", "in_progress", "stale", "failed"]


@dataclass(frozen=True)
class EvalRequest:
    """What `benchtoward eval` asks for (the API key itself is never part of it: only its variable name)."""

    model: str
    task: str
    data: Path | None = None  # --data / BENCHTOWARD_DATA: the task's data, or a folder holding <dataset slug>/
    cache_root: Path | None = None  # where generated demo data goes when no data is given
    endpoint: str | None = None
    model_id: str | None = None
    api_key_env: str | None = None
    concurrency: int = 16
    timeout_seconds: float = 120.0
    max_retries: int = 5
    limit: int | None = None
    allow_partial: bool = False
    resume: bool = False
    command: str | None = None
    tier: str | None = None
    publish: bool = False


@dataclass(frozen=True)
class EvalOutcome:
    outcome: Outcome
    run_id: str
    run_key: str
    message: str
    result: ResultDetail | None = None
    calls: int = 0  # items this process asked the model for


@dataclass
class Plan:
    """How one request runs: the model, its adapter and the configuration that enters the run key."""

    model: Model
    adapter: Literal["openai-chat", "python", "command"]
    tier: str
    config: dict[str, Any]
    endpoint: EndpointConfig | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def spec_of(task: Task) -> TaskSpec:
    return TaskSpec.model_validate(orjson.loads(task.spec_json))


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def default_model_id(model: Model) -> str:
    """The model id a chat endpoint is asked for when none is given: the provider's id, else the slug's name."""
    return model.provider_model_id or model.slug.split("/", 1)[1]


def chat_config(model_id: str) -> dict[str, Any]:
    """The run-key configuration of a complete run through an OpenAI-compatible chat endpoint."""
    return {"adapter": "openai-chat", "model_id": model_id}


async def plan_model(registry: Registry, request: EvalRequest, task: Task) -> Plan:
    """Resolve (or register) the model and decide its adapter, tag and run-key configuration."""
    baseline = request.model.strip().lower()
    if baseline in model_tools.BASELINES:
        _name, kind = model_tools.BASELINES[baseline]
        if kind != task.kind:
            raise BadRequest(f"{baseline} is a baseline for {kind} tasks, not for {task.ref}")
        model = await model_tools.ensure_baseline(registry, baseline)
        return Plan(model, "python", request.tier or "baseline", {"adapter": "python", "baseline": baseline})
    if request.endpoint and request.command:
        raise BadRequest("give either --endpoint or --command, not both")
    if request.endpoint:
        model = await model_tools.ensure_endpoint_model(registry, request.model, request.model_id, request.endpoint)
    else:
        model = resolve_model(registry.store, request.model)
    if request.command:
        config = {"adapter": "command", "command": request.command}
        return Plan(model, "command", request.tier or "agent", config)
    base_url = request.endpoint or model.endpoint
    if not base_url:
        raise BadRequest(f"{model.slug} has no endpoint: pass --endpoint URL (or --command CMD)")
    if task.kind != "mcq":
        raise BadRequest(f"{task.ref} scores time series; a chat endpoint cannot answer it (use --command)")
    model_id = request.model_id or default_model_id(model)
    endpoint = EndpointConfig(
        base_url=base_url,
        model_id=model_id,
        api_key_env=request.api_key_env,
        concurrency=request.concurrency,
        timeout_seconds=request.timeout_seconds,
        max_retries=request.max_retries,
    )
    return Plan(model, "openai-chat", request.tier or "standard", chat_config(model_id), endpoint)


def data_location(request: EvalRequest, spec: TaskSpec) -> Path:
    """--data (or its <dataset slug> subfolder), else the data a demo task ships or generates."""
    slug = str(spec.dataset["slug"])
    if request.data is not None:
        return request.data / slug if (request.data / slug).exists() else request.data
    if spec.kind == "mcq":
        shipped = clinicalqa.default_data_path(spec)
        if shipped is not None:
            return shipped
    if "generator" in spec.dataset:
        return (request.cache_root or Path(".")) / slug
    raise BadRequest(f"no local data for {spec.task}: pass --data PATH or set BENCHTOWARD_DATA")


def generate_if_missing(directory: Path, spec: TaskSpec) -> None:
    """A demo cohort the spec describes by its generator is written on first use (deterministically)."""
    generator = spec.dataset.get("generator")
    if generator is None or (directory / "cases.csv").is_file():
        return
    hours = generator.get("hours", [1.5, 4.5])
    config = CohortConfig(
        seed=int(generator["seed"]),
        n_patients=int(generator["n_patients"]),
        min_hours=float(hours[0]),
        max_hours=float(hours[1]),
    )
    write_synthetic_cohort(directory, config)


def partial_config(request: EvalRequest, config: dict[str, Any], ids: list[str], complete: bool) -> dict[str, Any]:
    """A run on a subset (--limit, or data that differs with --allow-partial) is partial: the key says so
    and names the instance set, and the result never enters a leaderboard."""
    if complete and request.limit is None:
        return config
    from evaluator.predictions import instance_set_hash

    return {**config, "partial": True, "limit": request.limit, "instance_set_hash": instance_set_hash(ids)}


def owner_id() -> str:
    return leases.process_holder()


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


async def claim(
    registry: Registry, key: str, inputs: dict[str, Any], plan: Plan, task: Task, resume: bool
) -> EvalOutcome | None:
    """Claim the key, or say why not: None when this process may compute it."""
    me = owner_id()
    now = utc_now()
    run = Run(
        key,
        run_id_of(key),
        canonical_json(inputs).decode(),
        plan.model.slug,
        task.ref,
        "running",
        me,
        now,
        now,
        None,
        None,
        0,
        "",
    )
    stored, won = await run_store.claim_run(registry.store, run)
    if won:
        return None
    progress = f"{stored.items_done}/{stored.items_total or '?'} items"
    if stored.status == "running" and not leases.is_stale(stored):
        return EvalOutcome(
            "in_progress",
            stored.run_id,
            key,
            f"being computed by {stored.owner} since {stored.started_at} ({progress}); not started again",
        )
    state = "failed" if stored.status == "failed" else "stale" if stored.status == "running" else stored.status
    if not resume:
        reason = f": {stored.error}" if stored.error else ""
        return EvalOutcome(
            "stale" if state != "failed" else "failed",
            stored.run_id,
            key,
            f"run {stored.run_id} is {state} ({progress}, owner {stored.owner}){reason}; "
            "rerun with --resume to finish it",
        )
    if not await run_store.take_over(registry.store, stored, me):
        return EvalOutcome("in_progress", stored.run_id, key, "another process took this run over first")
    return None


class Periodic:
    """Runs `tick` every `seconds` while the `async with` block runs, and once more when it ends.

    The loop is stopped by an event, never cancelled: a tick cancelled half way would lose what it had taken
    (the item cache's batch), so the end waits for a tick in flight to finish."""

    seconds = 1.0

    def __init__(self, registry: Registry, key: str) -> None:
        self.registry, self.key = registry, key
        self.task: asyncio.Task[None] | None = None
        self.stopping = asyncio.Event()

    async def tick(self) -> None:
        raise NotImplementedError

    async def tick_forever(self) -> None:
        while not self.stopping.is_set():
            try:
                await asyncio.wait_for(self.stopping.wait(), self.seconds)
            except TimeoutError:
                await self.tick()

    async def __aenter__(self) -> Self:
        await self.tick()
        self.task = asyncio.create_task(self.tick_forever())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.task is not None
        self.stopping.set()
        await self.task
        await self.tick()


class Heartbeat(Periodic):
    """Keeps a claim fresh while the run computes, and records how far it got."""

    seconds = leases.HEARTBEAT_SECONDS

    def __init__(self, registry: Registry, key: str) -> None:
        super().__init__(registry, key)
        self.owner = owner_id()
        self.done, self.total = 0, 0

    def update(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    async def tick(self) -> None:
        await run_store.heartbeat(self.registry.store, self.key, self.owner, self.total, self.done)


class ItemSaver(Periodic):
    """Writes completed items to the per-item cache in small batches (every SAVE_SECONDS or SAVE_BATCH
    items, and on exit, error or not): one transaction per batch instead of one per item. An item counts as
    completed for a resume once it is written; at most the last batch is asked again after a SIGKILL."""

    seconds = SAVE_SECONDS

    def __init__(self, registry: Registry, key: str) -> None:
        super().__init__(registry, key)
        self.pending: list[tuple[str, str]] = []

    async def save(self, instance_id: str, output: ItemOutput) -> None:
        self.pending.append((instance_id, output.to_json()))
        if len(self.pending) >= SAVE_BATCH:
            await self.tick()

    async def tick(self) -> None:
        batch, self.pending = self.pending, []
        await run_store.save_items(self.registry.store, self.key, batch)


def cached(registry: Registry, key: str) -> dict[str, ItemOutput]:
    return {k: ItemOutput.from_json(v) for k, v in run_store.cached_items(registry.store, key).items()}


async def compute_mcq(
    registry: Registry,
    plan: Plan,
    spec: TaskSpec,
    instances: list[clinicalqa.Instance],
    key: str,
    progress: runner.Progress,
) -> tuple[runner.Computation, int]:
    """Answer every instance (cached items are not asked again) and score; return the count of new calls."""
    cache = cached(registry, key)
    calls = 0
    if plan.adapter == "python":
        answers = baseline_answers(plan.model.slug, spec, instances, key)
        outputs = {i.instance_id: ItemOutput(answer=answers[i.instance_id]) for i in instances}
    elif plan.adapter == "command":
        todo = [i for i in instances if i.instance_id not in cache]
        fresh = (
            await run_command(
                str(plan.config["command"]),
                [{"instance_id": i.instance_id, "messages": i.messages, "options": list(i.options)} for i in todo],
                "answer",
            )
            if todo
            else {}
        )
        await run_store.save_items(registry.store, key, [(k, v.to_json()) for k, v in fresh.items()])
        outputs, calls = {**cache, **fresh}, len(fresh)
    else:
        assert plan.endpoint is not None
        generation = (spec.model_extra or {}).get("generation", {})
        endpoint = ChatEndpoint(
            plan.endpoint, max_tokens=generation.get("max_tokens"), temperature=float(generation.get("temperature", 0))
        )
        counter = {"calls": 0}

        async def ask(instance: clinicalqa.Instance) -> ItemOutput:
            counter["calls"] += 1
            return await endpoint.complete(instance.messages)

        try:
            async with ItemSaver(registry, key) as saver:
                outputs = await runner.answer_each(instances, ask, cache, saver.save, progress)
        finally:
            calls = counter["calls"]
            await endpoint.close()
    computation = await asyncio.to_thread(runner.score_mcq, instances, outputs, spec, key)
    return computation, calls


def baseline_answers(slug: str, spec: TaskSpec, instances: list[clinicalqa.Instance], key: str) -> dict[str, str]:
    ids = [i.instance_id for i in instances]
    if slug == "baseline/majority":
        return clinicalqa.predict_majority(ids, clinicalqa.fit_majority_for(spec))
    return clinicalqa.predict_random(ids, key)


@dataclass(frozen=True)
class TestWindows:
    """The scored (test) windows of a time-series task, in caseid then t0 order."""

    instance_ids: list[str]
    unit_ids: list[str]
    labels: list[int]
    windows: vitaldb_pipeline.SplitWindows


DATA_ERRORS = (CaseFileError, CaseTableError, OSError, EOFError, UnicodeDecodeError)


def unreadable(data: Path, error: Exception) -> BadRequest:
    """A case table or case file that cannot be read, said in one line (never a traceback)."""
    return BadRequest(f"cannot read the data at {data}: {error}"[:2000])


def load_windows(data: Path, spec: TaskSpec, limit: int | None) -> TestWindows:
    try:
        windows = vitaldb_pipeline.collect_windows(data, spec)
    except DATA_ERRORS as error:
        raise unreadable(data, error) from None
    rows = [row for row, test in enumerate(windows.test.tolist()) if test][:limit]
    return TestWindows(
        [windows.instance_ids[r] for r in rows],
        [windows.unit_ids[r] for r in rows],
        [int(windows.labels[r]) for r in rows],
        windows,
    )


def command_inputs(data: Path, spec: TaskSpec, wanted: set[str]) -> list[dict[str, Any]]:
    """The input window (MAP every 2 s, null = missing) of each wanted test window, for a command."""
    instances: list[dict[str, Any]] = []
    try:
        for case in vitaldb_pipeline.iter_case_instances(data, spec, include_inputs=True):
            if not case.test or case.inputs is None:
                continue
            for row, instance_id in enumerate(case.instance_ids):
                if instance_id in wanted:
                    instances.append(
                        {"instance_id": instance_id, "unit_id": case.subjectid, "map": case.inputs[row].tolist()}
                    )
    except DATA_ERRORS as error:
        raise unreadable(data, error) from None
    return instances


async def compute_binary(
    registry: Registry, plan: Plan, spec: TaskSpec, data: Path, test: TestWindows, key: str
) -> tuple[runner.Computation, int]:
    """Score the test windows with a baseline (trained on the other windows) or a command."""
    columns: dict[str, list[Any]] = {"instance_id": test.instance_ids, "unit_id": test.unit_ids, "label": test.labels}
    calls = 0
    if plan.adapter == "python":
        name = plan.model.slug.split("/", 1)[1]
        predicted = await asyncio.to_thread(vitaldb_pipeline.baseline_predictions, name, test.windows)
        scores = dict(zip(predicted["instance_id"], predicted["score"], strict=True))
        columns["score"] = [float(scores[i]) for i in test.instance_ids]
    elif plan.adapter == "command":
        cache = cached(registry, key)
        todo = set(test.instance_ids) - set(cache)
        fresh = {}
        if todo:
            inputs = await asyncio.to_thread(command_inputs, data, spec, todo)
            fresh = await run_command(str(plan.config["command"]), inputs, "score")
            await run_store.save_items(registry.store, key, [(k, v.to_json()) for k, v in fresh.items()])
        outputs, calls = {**cache, **fresh}, len(fresh)
        columns["score"] = [outputs[i].score for i in test.instance_ids]
    else:
        raise BadRequest(f"{spec.task} needs a baseline or --command")
    return await asyncio.to_thread(runner.score_binary, columns, spec, key), calls


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


def load_mcq(data: Path, spec: TaskSpec, request: EvalRequest) -> tuple[list[clinicalqa.Instance], bool]:
    """The instances to score and whether they are the spec's whole declared set."""
    try:
        loaded = clinicalqa.load_instances(data, spec, allow_partial=request.allow_partial)
    except clinicalqa.DataMismatch as mismatch:
        raise BadRequest(
            f"the data differs from {spec.task} (use --allow-partial to run it anyway): {mismatch.report.describe()}"[
                :4000
            ]
        ) from None
    except (clinicalqa.DataError, OSError, ValueError) as error:
        raise BadRequest(f"cannot read {spec.task} data at {data}: {error}"[:2000]) from None
    return list(loaded.instances)[: request.limit], loaded.report.ok


async def check_binary(data: Path, spec: TaskSpec, request: EvalRequest) -> bool:
    """Generate a demo cohort if needed, check the data; return whether it is the spec's whole set."""
    await asyncio.to_thread(generate_if_missing, data, spec)
    report = await asyncio.to_thread(check_data_dir, data, spec)
    if not report.ok and not request.allow_partial:
        differences = "; ".join(report.differences)
        raise BadRequest(
            f"the data at {data} differs from {spec.task} (use --allow-partial to run it anyway): {differences}"[:4000]
        )
    return bool(report.ok)


class PredictionsNotWritten(Exception):
    """The predictions file could not be written (a full disk, a read-only folder): the run fails with the reason,
    its items stay cached, and `--resume` finishes it once the cause is gone."""


async def write_predictions_file(path: Path, kind: str, columns: dict[str, list[Any]]) -> str:
    try:
        return await asyncio.to_thread(write_predictions, path, kind, columns)
    except OSError as error:  # the temporary file is removed by write_predictions; nothing is in place
        raise PredictionsNotWritten(f"could not write {path}: {error.strerror or error}") from None


async def evaluate(
    registry: Registry, request: EvalRequest, progress: runner.Progress = runner.no_progress
) -> EvalOutcome:
    """Evaluate `request.model` on `request.task` unless that exact computation exists or is running."""
    task = resolve_task(registry.store, request.task)
    spec = spec_of(task)
    plan = await plan_model(registry, request, task)
    data = data_location(request, spec)
    windows: TestWindows | None = None
    if spec.kind == "mcq":
        instances, complete = load_mcq(data, spec, request)
        ids = [i.instance_id for i in instances]
    else:  # windowing a cohort takes seconds: only when the key needs the ids, or once the run is ours
        complete = await check_binary(data, spec, request)
        if not complete or request.limit is not None:
            windows = await asyncio.to_thread(load_windows, data, spec, request.limit)
        ids = windows.instance_ids if windows else []
    config = partial_config(request, plan.config, ids, complete)
    inputs = run_key_inputs(
        model_slug=plan.model.slug,
        model_version=plan.model.version,
        task_slug=task.slug,
        task_version=task.version,
        spec_hash=task.spec_hash,
        config=config,
    )
    key = run_key_of(inputs)
    found = existing_outcome(registry, key)
    if found is not None:
        return found
    refusal = await claim(registry, key, inputs, plan, task, request.resume)
    if refusal is not None:
        return existing_outcome(registry, key) or refusal
    run_id = run_id_of(key)
    try:
        async with Heartbeat(registry, key) as beat:

            def report(done: int, total: int) -> None:
                beat.update(done, total)
                progress(done, total)

            if spec.kind == "mcq":
                computation, calls = await compute_mcq(registry, plan, spec, instances, key, report)
            else:
                scored = (
                    windows if windows is not None else await asyncio.to_thread(load_windows, data, spec, request.limit)
                )
                computation, calls = await compute_binary(registry, plan, spec, data, scored, key)
            path = registry.predictions_path(f"{run_id}/{FILE_NAME}")
            sha256 = await write_predictions_file(path, spec.kind, computation.columns)
            bundle = bundle_for(plan, spec, inputs, key, computation, sha256, request.publish)
            stored = await store_result(registry, bundle, path)
        await run_store.finish_run(registry.store, key, owner_id(), "done")
    except (AdapterError, PredictionsNotWritten) as error:
        await run_store.finish_run(registry.store, key, owner_id(), "failed", str(error))
        return EvalOutcome("failed", run_id, key, f"run {run_id} stopped: {error}; rerun with --resume to finish it")
    except BaseException as error:
        await asyncio.shield(run_store.finish_run(registry.store, key, owner_id(), "failed", repr(error)[:500]))
        raise
    result = result_store.get_result(registry.store, stored.run_id)
    assert result is not None
    return EvalOutcome("computed", stored.run_id, key, f"computed {stored.run_id}", detail(registry, result), calls)
