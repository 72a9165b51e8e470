"""What one `benchtoward eval` asks for and how it runs: the request, the model's adapter and run-key
configuration, where the task's data is, and whether the run is partial."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from evaluator.adapters import EndpointConfig
from evaluator.kinds import baseline_kind
from evaluator.predictions import instance_set_hash
from evaluator.specs import TaskSpec
from store.models import Model
from store.tasks import Task
from tools import models as model_tools
from tools.errors import BadRequest
from tools.refs import resolve_model
from tools.registry import Registry
from tools.schemas import ResultDetail

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


def default_model_id(model: Model) -> str:
    """The model id a chat endpoint is asked for when none is given: the provider's id, else the slug's name."""
    return model.provider_model_id or model.slug.split("/", 1)[1]


def chat_config(model_id: str) -> dict[str, Any]:
    """The run-key configuration of a complete run through an OpenAI-compatible chat endpoint."""
    return {"adapter": "openai-chat", "model_id": model_id}


async def plan_model(registry: Registry, request: EvalRequest, task: Task) -> Plan:
    """Resolve (or register) the model and decide its adapter, tag and run-key configuration."""
    baseline = request.model.strip().lower()
    owner = baseline_kind(registry.kinds, baseline)
    if owner is not None:
        if owner.name != task.kind:
            raise BadRequest(f"{baseline} is a baseline for {owner.name} tasks, not for {task.ref}")
        model = await model_tools.ensure_baseline(registry, baseline, owner.baselines[baseline])
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
    kind = registry.kind(task.kind)
    if not kind.answers_chat:
        raise BadRequest(
            f"{task.ref} is a {kind.name} task ({kind.display.label}); a chat endpoint cannot answer it (use --command)"
        )
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


def data_location(registry: Registry, request: EvalRequest, spec: TaskSpec) -> Path:
    """--data (or its <dataset slug> subfolder), else the data a demo task ships or generates."""
    slug = str(spec.dataset["slug"])
    if request.data is not None:
        return request.data / slug if (request.data / slug).exists() else request.data
    shipped = registry.kind(spec.kind).default_data(spec)
    if shipped is not None:
        return shipped
    if "generator" in spec.dataset:
        return (request.cache_root or Path(".")) / slug
    raise BadRequest(f"no local data for {spec.task}: pass --data PATH or set BENCHTOWARD_DATA")


def partial_config(request: EvalRequest, config: dict[str, Any], ids: list[str], complete: bool) -> dict[str, Any]:
    """A run on a subset (--limit, or data that differs with --allow-partial) is partial: the key says so
    and names the instance set, and the result never enters a leaderboard."""
    if complete and request.limit is None:
        return config
    return {**config, "partial": True, "limit": request.limit, "instance_set_hash": instance_set_hash(ids)}
