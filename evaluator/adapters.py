"""Model adapters: an OpenAI-compatible chat endpoint, and an external command.

Every adapter yields `ItemOutput`s, the record the per-item cache stores and the predictions file is
built from. Registered Python baselines live with their tasks (evaluator/clinicalqa, evaluator/vitaldb).
"""

from __future__ import annotations

import asyncio
import math
import os
import shlex
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

DEFAULT_CONCURRENCY = 16
DEFAULT_TIMEOUT_SECONDS = 120.0
DEFAULT_MAX_RETRIES = 5
COMMAND_TIMEOUT_SECONDS = 24 * 3600


class AdapterError(Exception):
    """A model could not be queried (endpoint gone, garbage replies, a failing command); the run stops
    cleanly with this reason and can be resumed."""


@dataclass(frozen=True)
class ItemOutput:
    """What a model produced for one instance."""

    raw_output: str | None = None  # an LLM's text (multiple-choice tasks)
    answer: str | None = None  # a letter given directly (baselines, commands)
    score: float | None = None  # a risk score (time-series tasks)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float | None = None

    def to_json(self) -> str:
        return orjson.dumps(asdict(self)).decode()

    @classmethod
    def from_json(cls, text: str) -> ItemOutput:
        return cls(**orjson.loads(text))


@dataclass(frozen=True)
class EndpointConfig:
    """How to reach an OpenAI-compatible chat endpoint. The API key is read from `api_key_env` when the
    adapter is built and never stored."""

    base_url: str
    model_id: str
    api_key_env: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    max_retries: int = DEFAULT_MAX_RETRIES


class ChatEndpoint:
    """Queries one model at temperature 0 with bounded concurrency; the openai client retries 429, 5xx
    and timeouts with exponential backoff (honouring Retry-After)."""

    def __init__(self, config: EndpointConfig, *, max_tokens: int | None, temperature: float = 0.0) -> None:
        from openai import AsyncOpenAI  # imported when used: the package takes seconds to import

        api_key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""
        self.client = AsyncOpenAI(
            base_url=config.base_url,
            api_key=api_key or "unused",
            timeout=config.timeout_seconds,
            max_retries=config.max_retries,
        )
        self.config = config
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.semaphore = asyncio.Semaphore(config.concurrency)

    async def complete(self, messages: list[dict[str, str]]) -> ItemOutput:
        async with self.semaphore:
            started = time.perf_counter()
            try:
                response = await self.client.chat.completions.create(
                    model=self.config.model_id,
                    messages=messages,  # type: ignore[arg-type]
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                )
            except Exception as error:  # the client already retried what can be retried
                raise AdapterError(
                    f"endpoint {self.config.base_url} failed: {type(error).__name__}: {error}"
                ) from error
            latency = (time.perf_counter() - started) * 1000
        if not response.choices:
            raise AdapterError(f"endpoint {self.config.base_url} returned no choices")
        usage = response.usage
        return ItemOutput(
            raw_output=response.choices[0].message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
            latency_ms=round(latency, 3),
        )

    async def close(self) -> None:
        await self.client.close()


def json_safe(value: Any) -> Any:
    """NaN becomes null, so instance files are valid JSON for any reader."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def write_instances(path: Path, instances: Iterable[Mapping[str, Any]]) -> int:
    count = 0
    with path.open("wb") as handle:
        for instance in instances:
            handle.write(orjson.dumps({k: json_safe(v) for k, v in instance.items()}) + b"\n")
            count += 1
    return count


def read_outputs(path: Path, expected: set[str], field: str) -> dict[str, ItemOutput]:
    """Parse a command's JSONL output: one {"instance_id", field} per line, every instance exactly once."""
    outputs: dict[str, ItemOutput] = {}
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
            instance_id, value = str(row["instance_id"]), row[field]
        except (orjson.JSONDecodeError, KeyError, TypeError) as error:
            raise AdapterError(f"output line {number}: expected {{'instance_id', '{field}'}} ({error})") from None
        if instance_id not in expected or instance_id in outputs:
            raise AdapterError(f"output line {number}: unexpected or repeated instance_id {instance_id[:80]!r}")
        if field == "score":
            if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
                raise AdapterError(f"output line {number}: score must be a finite number")
            outputs[instance_id] = ItemOutput(score=float(value))
        else:
            outputs[instance_id] = ItemOutput(raw_output=None if value is None else str(value))
    missing = expected - set(outputs)
    if missing:
        raise AdapterError(f"the command gave no {field} for {len(missing)} instances, e.g. {sorted(missing)[:3]}")
    return outputs


async def run_command(command: str, instances: list[dict[str, Any]], field: str) -> dict[str, ItemOutput]:
    """Run `command INPUT OUTPUT`: it reads instances (JSONL) from INPUT and writes one `field` per
    instance_id to OUTPUT (JSONL). A non-zero exit, a timeout or malformed output raises AdapterError."""
    with tempfile.TemporaryDirectory(prefix="benchtoward-command-") as folder:
        source, target = Path(folder) / "instances.jsonl", Path(folder) / "outputs.jsonl"
        write_instances(source, instances)
        process = await asyncio.create_subprocess_exec(
            *shlex.split(command),
            str(source),
            str(target),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            _, stderr = await asyncio.wait_for(process.communicate(), COMMAND_TIMEOUT_SECONDS)
        except TimeoutError:
            process.kill()
            raise AdapterError(f"command timed out after {COMMAND_TIMEOUT_SECONDS} s") from None
        if process.returncode != 0:
            tail = stderr.decode(errors="replace")[-500:]
            raise AdapterError(f"command exited with {process.returncode}: {tail}")
        if not target.is_file():
            raise AdapterError("command wrote no output file")
        return read_outputs(target, {str(i["instance_id"]) for i in instances}, field)
