"""The harness against a real engine (called by bench/harness_bench.py): llama.cpp's server (llama-cpp-python) with
SmolLM2-135M-Instruct from `.cache/llama` (`make engine`), on the N shortest demo items under a test task with a
small max_tokens.

1. The engine alone: the same chat requests the harness will send, one after another from a bare HTTP client (the
   engine has one slot, so this is its full throughput): tokens/s = (prompt + completion tokens) / wall time.
2. The harness: `evaluate` at concurrency C (more than the one slot: requests queue in the engine) on a fresh store,
   after a one-item warm-up run under another model slug (the process's one-time imports are paid there, as in a
   long-lived worker). Ideal = the tokens the run needed (the engine's `usage`, summed by the harness) / the
   engine's tokens/s. Target: harness wall <= 1.2 x ideal.

Figures only; the run's result stays in a temporary database (test items, never a result anywhere else).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import httpx
from servers import ROOT  # noqa: F401  (puts the repository on sys.path)

from evaluator import clinicalqa
from evaluator.specs import TaskSpec
from store import Store
from store import tasks as task_store
from tests.llama_engine import MODEL_ID, TASK, Engine, engine_task, installed, missing_reason
from tools.evaluate import EvalRequest, evaluate
from tools.registry import Registry
from tools.seed import sync_specs


async def prepared(folder: Path, items: int, max_tokens: int) -> tuple[Registry, Path, list[list[dict[str, str]]]]:
    store = await Store.open(folder / "bench.db")
    await sync_specs(store)
    registry = Registry(store=store, public_url="http://127.0.0.1", artifacts_dir=folder / "artifacts")
    data = await engine_task(registry, folder, items, max_tokens)
    task = task_store.get_task(store, *TASK.split("@"))  # type: ignore[arg-type]
    assert task is not None
    spec = TaskSpec.model_validate_json(task.spec_json)
    messages = [i.messages for i in clinicalqa.load_instances(data, spec).instances]
    return registry, data, messages


def engine_alone(url: str, messages: list[list[dict[str, str]]], max_tokens: int) -> tuple[float, int]:
    """Wall seconds and tokens (prompt + completion) to serve `messages` one after another."""
    tokens = 0
    with httpx.Client(timeout=600.0) as client:
        started = time.perf_counter()
        for conversation in messages:
            body = {"model": MODEL_ID, "messages": conversation, "temperature": 0, "max_tokens": max_tokens}
            usage = client.post(f"{url}/chat/completions", json=body).raise_for_status().json()["usage"]
            tokens += int(usage["prompt_tokens"]) + int(usage["completion_tokens"])
        return time.perf_counter() - started, tokens


async def harness(
    registry: Registry, data: Path, url: str, concurrency: int, limit: int | None = None
) -> tuple[float, int, str]:
    model = "bench/smollm2-135m-instruct" + ("-warm-up" if limit else "")
    request = EvalRequest(
        model=model, task=TASK, data=data, endpoint=url, model_id=MODEL_ID, concurrency=concurrency, limit=limit
    )
    started = time.perf_counter()
    outcome = await evaluate(registry, request)
    wall = time.perf_counter() - started
    assert outcome.result is not None, outcome.message
    tokens = outcome.result.versions["tokens"]
    return wall, int(tokens["prompt"]) + int(tokens["completion"]), outcome.outcome


def engine_runs(items: int, max_tokens: int, concurrency: int) -> None:
    found = installed()
    if found is None:
        print(f"engine run skipped: {missing_reason()}")
        return
    folder = Path(tempfile.mkdtemp(prefix="benchtoward-engine-"))

    async def both() -> tuple[float, int, float, int, str]:
        registry, data, messages = await prepared(folder, items, max_tokens)
        try:
            with Engine(found, folder / "engine.log") as engine:
                # Warm-up, not timed: the engine's first request, and the harness's one-time imports (a worker's
                # steady state is what is compared; bench/README.md gives the first run's import cost).
                await asyncio.to_thread(engine_alone, engine.url, messages[:1], max_tokens)
                await harness(registry, data, engine.url, concurrency, limit=1)
                alone, alone_tokens = await asyncio.to_thread(engine_alone, engine.url, messages, max_tokens)
                wall, tokens, outcome = await harness(registry, data, engine.url, concurrency)
            return alone, alone_tokens, wall, tokens, outcome
        finally:
            await registry.store.close()

    alone, alone_tokens, wall, tokens, outcome = asyncio.run(both())
    rate = alone_tokens / alone
    ideal = tokens / rate
    print(
        f"llama.cpp (llama-cpp-python) + SmolLM2-135M-Instruct Q4_1, {items} demo items, max_tokens {max_tokens}, "
        f"harness concurrency {concurrency} (engine: 1 slot)"
    )
    print(f"  engine alone, sequential     {alone_tokens} tokens in {alone:.2f} s = {rate:.1f} tokens/s")
    print(f"  harness run                  {outcome}: {tokens} tokens, wall {wall:.2f} s; ideal {ideal:.2f} s")
    print(f"  ratio {wall / ideal:.2f} (target <= 1.2)")
