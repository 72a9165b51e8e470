"""The harness against a real engine (called by bench/harness_bench.py): llama.cpp's server (llama-cpp-python) with
SmolLM2-135M-Instruct from `.cache/llama` (`make engine`), on the N shortest demo items under a test task with a
small max_tokens.

1. The engine alone: the same chat requests the harness will send, one after another from a bare HTTP client (the
   engine has one slot, so this is its full throughput): tokens/s = (prompt + completion tokens) / wall time.
2. The harness: `evaluate` at concurrency C (more than the one slot: requests queue in the engine) under a fresh
   model slug. Ideal = the tokens the run needed (the engine's `usage`, summed by the harness) / the engine's
   tokens/s. Target: harness wall <= 1.2 x ideal.

Both start from the same engine state. llama.cpp keeps the last prompt's KV cache and evaluates only what a new
prompt does not share with it (its log: "N prefix-match hit"); the warm-ups (the engine's first request, the
process's one-time imports) therefore ask an item outside the measured set, and every measured pass starts after
another pass over the same items, so its first item shares only the system prompt with what the engine holds.
(Until 2026-12-01 the warm-ups asked the first measured item: the engine-alone pass then began with that whole
prompt cached and reported its tokens as served, a reference faster than the work the harness had to do.)
Alone and harness passes alternate: alone, then (harness, alone) x `rounds`; each harness pass is compared with
the engine's throughput over the two alone passes around it, so load that drifts on a shared machine falls on both
sides; the ratio printed last is the median over the rounds.

Beside the ratio: the engine's own account of each pass from its log (prompt tokens it evaluated, prefix-cache
hits, tokens generated, seconds inside its generate calls), and the harness's phases (evaluator/timing.py). The
wall a pass spent outside the engine's generate calls is the part a client can cause; on a machine shared with
other work the engine's speed moves from minute to minute, and that figure does not.

Figures only; the runs' results stay in a temporary database (test items, never a result anywhere else).
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path

import httpx
from servers import ROOT  # noqa: F401  (puts the repository on sys.path)

from evaluator import clinicalqa
from evaluator.specs import TaskSpec
from evaluator.timing import Timings
from store import Store
from store import tasks as task_store
from tests.llama_engine import MODEL_ID, TASK, Engine, engine_task, installed, missing_reason
from tools.eval_plan import EvalRequest
from tools.evaluate import evaluate
from tools.registry import Registry
from tools.seed import sync_specs


@dataclass(frozen=True)
class EngineWork:
    """What the engine's verbose log says it did between two offsets."""

    evaluated: int  # prompt tokens it computed
    cached: int  # prompt tokens it took from the previous prompt's KV cache
    generated: int
    busy: float  # seconds inside its generate calls

    @classmethod
    def of(cls, text: str) -> EngineWork:
        def total(pattern: str) -> float:
            return sum(float(m) for m in re.findall(pattern, text))

        return cls(
            evaluated=int(total(r"prompt eval time =\s+[\d.]+ ms /\s+(\d+) tokens")),
            cached=int(total(r"(\d+) prefix-match hit")),
            generated=int(total(r"\n\S+:\s+eval time =\s+[\d.]+ ms /\s+(\d+) runs")),
            busy=total(r"total time =\s+([\d.]+) ms") / 1000,
        )

    def describe(self) -> str:
        return (
            f"engine: {self.evaluated} prompt tokens evaluated, {self.cached} from its cache, "
            f"{self.generated} generated, {self.busy:.2f} s in generate"
        )


@dataclass(frozen=True)
class Pass:
    wall: float
    tokens: int  # prompt + completion, from the engine's usage
    cpu: float  # this process's CPU seconds
    work: EngineWork


async def prepared(
    folder: Path, items: int, max_tokens: int
) -> tuple[Registry, Path, Path, list[list[dict[str, str]]]]:
    """The registry, the measured items' data, one further item's data (for warm-ups) and every item's messages."""
    store = await Store.open(folder / "bench.db")
    await sync_specs(store)
    registry = Registry(store=store, public_url="http://127.0.0.1", artifacts_dir=folder / "artifacts")
    data = await engine_task(registry, folder, items + 1, max_tokens)
    task = task_store.get_task(store, *TASK.split("@"))  # type: ignore[arg-type]
    assert task is not None
    spec = TaskSpec.model_validate_json(task.spec_json)
    messages = [i.messages for i in clinicalqa.load_instances(data, spec).instances]
    lines = data.read_bytes().splitlines(keepends=True)
    measured, spare = folder / "measured.jsonl", folder / "warm-up.jsonl"
    measured.write_bytes(b"".join(lines[:items]))
    spare.write_bytes(lines[items])
    assert [m[-1]["content"] for m in messages[:items]] == [
        i.messages[-1]["content"] for i in clinicalqa.load_instances(measured, spec, allow_partial=True).instances
    ], "the engine-alone pass must send the harness's requests in the harness's order"
    return registry, measured, spare, messages


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
    registry: Registry, data: Path, url: str, concurrency: int, model: str, timings: Timings
) -> tuple[float, int, str]:
    request = EvalRequest(
        model=model, task=TASK, data=data, endpoint=url, model_id=MODEL_ID, concurrency=concurrency, allow_partial=True
    )
    started = time.perf_counter()
    outcome = await evaluate(registry, request, timings=timings)
    wall = time.perf_counter() - started
    assert outcome.result is not None, outcome.message
    tokens = outcome.result.versions["tokens"]
    return wall, int(tokens["prompt"]) + int(tokens["completion"]), outcome.outcome


async def measured(engine: Engine, work: Awaitable[tuple[float, int] | tuple[float, int, str]]) -> Pass:
    """Run `work` (returning wall seconds and tokens first) and read the engine's log for the same span."""
    offset, cpu = engine.log.stat().st_size, time.process_time()
    result = await work
    text = engine.log.read_bytes()[offset:].decode(errors="replace")
    return Pass(result[0], result[1], time.process_time() - cpu, EngineWork.of(text))


@dataclass(frozen=True)
class Settings:
    items: int
    max_tokens: int
    concurrency: int
    rounds: int
    nice: int


async def passes(settings: Settings, folder: Path) -> tuple[list[Pass], list[Pass], list[Timings]]:
    """Engine alone, then (harness, engine alone) x rounds: every harness pass sits between two alone passes."""
    found = installed()
    assert found is not None
    registry, data, spare, messages = await prepared(folder, settings.items, settings.max_tokens)
    alone: list[Pass] = []
    runs: list[Pass] = []
    timings: list[Timings] = []

    def alone_pass(engine: Engine) -> Awaitable[Pass]:
        work = asyncio.to_thread(engine_alone, engine.url, messages[: settings.items], settings.max_tokens)
        return measured(engine, work)

    try:
        with Engine(found, folder / "engine.log", verbose=True, nice=settings.nice) as engine:
            await asyncio.to_thread(engine_alone, engine.url, messages[settings.items :], settings.max_tokens)
            await harness(registry, spare, engine.url, settings.concurrency, "bench/warm-up", Timings())
            # the engine now holds the spare item; each measured pass leaves the last measured item behind
            alone.append(await alone_pass(engine))
            for round_ in range(settings.rounds):
                clock = Timings()
                model = f"bench/smollm2-135m-instruct-{round_}"
                runs.append(
                    await measured(engine, harness(registry, data, engine.url, settings.concurrency, model, clock))
                )
                timings.append(clock)
                alone.append(await alone_pass(engine))
    finally:
        await registry.store.close()
    return alone, runs, timings


def engine_runs(items: int, max_tokens: int, concurrency: int, rounds: int = 3, nice: int = 10) -> None:
    if installed() is None:
        print(f"engine run skipped: {missing_reason()}")
        return
    folder = Path(tempfile.mkdtemp(prefix="benchtoward-engine-"))
    settings = Settings(items, max_tokens, concurrency, rounds, nice)
    load = os.getloadavg()
    alone, runs, timings = asyncio.run(passes(settings, folder))
    print(
        f"llama.cpp (llama-cpp-python) + SmolLM2-135M-Instruct Q4_1, {items} demo items, max_tokens {max_tokens}, "
        f"harness concurrency {concurrency} (engine: 1 slot, nice {nice}); load average at start "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"  engine alone, pass 1: {describe_alone(alone[0])}")
    ratios = []
    for number, (run, clock) in enumerate(zip(runs, timings, strict=True), 1):
        ratios.append(report_round(number, (alone[number - 1], alone[number]), run, clock))
    listed = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"  ratio per round {listed}; median {statistics.median(ratios):.2f} (target <= 1.2)")
    print(f"  load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def describe_alone(alone: Pass) -> str:
    return (
        f"{alone.tokens} tokens in {alone.wall:.2f} s = {alone.tokens / alone.wall:.1f} tokens/s; "
        f"{alone.work.describe()}; outside them {alone.wall - alone.work.busy:.3f} s"
    )


def report_round(number: int, around: tuple[Pass, Pass], run: Pass, clock: Timings) -> float:
    """Print one harness pass against the engine-alone passes just before and just after it; return the ratio."""
    rate = sum(a.tokens for a in around) / sum(a.wall for a in around)
    ideal = run.tokens / rate
    before, after = around
    extra = (run.work.evaluated - before.work.evaluated, run.work.generated - before.work.generated)
    print(f"  round {number}: harness, then engine alone (pass {number + 1})")
    print(f"    engine alone, pass {number + 1}: {describe_alone(after)}")
    print(f"    reference: {rate:.1f} tokens/s (passes {number} and {number + 1})")
    print(f"    harness        {run.tokens} tokens, wall {run.wall:.2f} s; ideal {ideal:.2f} s; {run.work.describe()}")
    print(
        f"      engine work beyond the alone pass: {extra[0]:+d} prompt tokens evaluated, {extra[1]:+d} generated; "
        f"outside the engine's generate calls: {run.wall - run.work.busy:.3f} s "
        f"(wall / its own generate time {run.wall / run.work.busy:.3f}); harness CPU {run.cpu:.3f} s"
    )
    for line in clock.summary():
        print(f"      {line}")
    print(f"    ratio {run.wall / ideal:.2f} (target <= 1.2)")
    return run.wall / ideal
