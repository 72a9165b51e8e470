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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from evaluator.timing import Attempt, Timings

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
        return orjson.dumps(self).decode()  # orjson encodes dataclasses natively (asdict is ~10x slower)

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


RETRYABLE = {408, 409, 429} | set(range(500, 600))
MAX_BACKOFF_SECONDS = 8.0


def backoff_seconds(attempt: int, headers: Mapping[str, str] | None) -> float:
    """Retry-After-ms or Retry-After when the server gives one, else exponential (0.5 s, 1 s, 2 s … 8 s)."""
    if headers is not None:
        for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                return float(min(float(headers[name]) * scale, 60.0))
            except (KeyError, ValueError):
                continue
    return float(min(MAX_BACKOFF_SECONDS, 0.5 * 2.0**attempt))


class ChatEndpoint:
    """Queries one model at the spec's temperature (0) with bounded concurrency over one pooled HTTP client.

    Retries 429, 5xx, timeouts and refused connections with exponential backoff (honouring Retry-After);
    a reply that is not chat-completion JSON is not retried: the run stops with the reason. The client is
    aiohttp rather than the `openai` package or httpx: on 1,045 loopback requests at 100 ms latency and
    concurrency 32 (bench/harness_bench.py), the openai package spent ~4 ms of CPU per request on parameter
    and model transformation, and an httpx client ~0.75 ms in its connection pool; aiohttp came within 8%
    of the ideal wall time. Every attempt and every connection opened is recorded in `timings`.
    """

    def __init__(
        self,
        config: EndpointConfig,
        *,
        max_tokens: int | None,
        temperature: float = 0.0,
        timings: Timings | None = None,
    ) -> None:
        api_key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""
        self.headers = {"content-type": "application/json"}
        if api_key:
            self.headers["authorization"] = f"Bearer {api_key}"
        self.session: Any = None  # an aiohttp.ClientSession, opened on the first request (inside the loop)
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        self.config = config
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.semaphore = asyncio.Semaphore(config.concurrency)
        self.timings = timings if timings is not None else Timings()
        self.timings.concurrency = config.concurrency

    def client(self) -> Any:
        import aiohttp  # imported when used: only evaluations against an endpoint need it

        if self.session is None:
            tracing = aiohttp.TraceConfig()
            tracing.on_connection_create_end.append(self.count_connection)
            self.session = aiohttp.ClientSession(
                headers=self.headers,
                timeout=aiohttp.ClientTimeout(total=self.config.timeout_seconds),
                connector=aiohttp.TCPConnector(limit=self.config.concurrency),
                trace_configs=[tracing],
            )
        return self.session

    async def count_connection(self, *_: object) -> None:
        self.timings.connections += 1

    def body(self, messages: list[dict[str, str]]) -> bytes:
        payload: dict[str, Any] = {"model": self.config.model_id, "messages": messages, "temperature": self.temperature}
        if self.max_tokens is not None:
            payload["max_tokens"] = self.max_tokens
        return orjson.dumps(payload)

    async def post(self, body: bytes, attempt: int) -> tuple[int, Mapping[str, str], bytes]:
        sent = time.perf_counter()
        first_byte, status = None, None
        try:
            async with self.client().post(self.url, data=body) as response:
                first_byte, status = time.perf_counter(), response.status
                return response.status, response.headers, await response.read()
        finally:
            self.timings.record(Attempt(sent, first_byte, time.perf_counter(), status, attempt))

    async def complete(self, messages: list[dict[str, str]]) -> ItemOutput:
        import aiohttp

        body = self.body(messages)
        async with self.semaphore:
            for attempt in range(self.config.max_retries + 1):
                started = time.perf_counter()
                final = attempt == self.config.max_retries
                try:
                    status, headers, content = await self.post(body, attempt)
                except (TimeoutError, aiohttp.ClientError) as error:
                    if final:
                        raise AdapterError(
                            f"endpoint {self.config.base_url} failed: {type(error).__name__}: {error}"
                        ) from error
                    await asyncio.sleep(backoff_seconds(attempt, None))
                    continue
                if status in RETRYABLE and not final:
                    await asyncio.sleep(backoff_seconds(attempt, headers))
                    continue
                if status != 200:
                    text = content[:200].decode(errors="replace")
                    raise AdapterError(f"endpoint {self.config.base_url} failed: HTTP {status} {text!r}")
                return parse_completion(content, (time.perf_counter() - started) * 1000, self.config.base_url)
        raise AdapterError("unreachable: the retry loop always returns or raises")

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()


def parse_completion(content: bytes, latency_ms: float, source: str) -> ItemOutput:
    try:
        reply = orjson.loads(content)
        message = reply["choices"][0]["message"]
        usage = reply.get("usage") or {}
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError) as error:
        raise AdapterError(f"endpoint {source} failed: the reply is not chat-completion JSON ({error})") from None
    return ItemOutput(
        raw_output=message.get("content") or "",
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        latency_ms=round(latency_ms, 3),
    )


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
