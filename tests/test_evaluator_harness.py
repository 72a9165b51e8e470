"""The harness end to end against a scripted OpenAI-compatible server on 127.0.0.1: what is stored is exactly
what the script implies; the same key is never computed twice; failures stop cleanly and resume."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from evaluator import clinicalqa
from evaluator.specs import load_task_files
from store import runs as run_store
from tests.fake_llm import FakeLLM, Reply, Script
from tools import leaderboard
from tools.eval_plan import EvalRequest
from tools.evaluate import evaluate
from tools.models import ModelSpec, add_model
from tools.registry import Registry

pytestmark = pytest.mark.anyio
DEMO = "clinicalqa-upstream-demo@0"
LETTERS = "ABCDE"


def demo_instances() -> list[clinicalqa.Instance]:
    spec = next(f.spec for f in load_task_files() if f.spec.task == DEMO)
    path = clinicalqa.default_data_path(spec)
    assert path is not None
    return list(clinicalqa.load_instances(path, spec).instances)


def option_text_is_unique(instance: clinicalqa.Instance, letter: str) -> bool:
    text = instance.options[LETTERS.index(letter)]
    others = [o for i, o in enumerate(instance.options) if LETTERS[i] != letter]
    return bool(text) and all(text not in o and o not in text for o in others)


def scripted(instances: list[clinicalqa.Instance]) -> tuple[Script, dict[str, tuple[bool, bool]]]:
    """One reply per instance, cycling through the parser's forms, retries and slow replies; and for each
    instance what the reply implies: (parsed, correct)."""
    replies: dict[str, Reply] = {}
    implied: dict[str, tuple[bool, bool]] = {}
    for index, instance in enumerate(instances):
        gold = instance.label
        wrong = LETTERS[(LETTERS.index(gold) + 1) % 5]
        form = index % 10
        if form == 9 and not option_text_is_unique(instance, gold):
            form = 0
        reply, parsed, correct = {
            0: (Reply(f"정답: {gold}"), True, True),
            1: (Reply(f"정답은 {wrong}입니다"), True, False),
            2: (Reply(f"<think>정답: {wrong}</think>\n답: ({gold})"), True, True),
            3: (Reply(f"The answer is {gold}"), True, True),
            4: (Reply(f"Answer: {gold}", errors=[429]), True, True),
            5: (Reply(f"{gold}. 해설 생략", errors=[500]), True, True),
            6: (Reply(f"**{gold}**", delay=0.02), True, True),
            7: (Reply("③"), True, gold == "C"),
            8: (Reply("모르겠습니다"), False, False),
            9: (Reply(instance.options[LETTERS.index(gold)] if form == 9 else ""), True, True),
        }[form]
        replies[instance.messages[-1]["content"]] = reply
        implied[instance.instance_id] = (parsed, correct)
    return Script(replies), implied


def request(url: str, **overrides: object) -> EvalRequest:
    values: dict[str, object] = {
        "model": "acme/scripted-1",
        "task": DEMO,
        "endpoint": url,
        "model_id": "scripted",
        "concurrency": 8,
        "max_retries": 3,
    }
    values.update(overrides)
    return EvalRequest(**values)  # type: ignore[arg-type]


async def test_a_run_stores_exactly_what_the_script_implies(registry: Registry) -> None:
    instances = demo_instances()[:200]
    script, implied = scripted(instances)
    await add_model(
        registry,
        ModelSpec(
            slug="acme/scripted-1", name="Scripted", price_input_per_mtok=1.0, price_output_per_mtok=2.0, endpoint=None
        ),
    )
    with FakeLLM(script) as llm:
        outcome = await evaluate(registry, request(llm.url, limit=200))
    assert outcome.outcome == "computed" and outcome.result is not None
    result = outcome.result
    expected_accuracy = np.mean([correct for _, correct in implied.values()])
    accuracy = next(m for m in result.metrics if m.name == "accuracy")
    assert accuracy.value == pytest.approx(expected_accuracy, abs=1e-12)
    assert accuracy.ci_low < accuracy.value < accuracy.ci_high  # type: ignore[operator]
    assert result.parse_rate == pytest.approx(np.mean([parsed for parsed, _ in implied.values()]), abs=1e-12)
    assert result.partial and result.status == "in_review" and result.tier == "standard"
    assert result.cost_usd == pytest.approx((200 * 100 * 1.0 + 200 * 10 * 2.0) / 1e6)
    table = pq.read_table(registry.predictions_path(f"{result.run_id}/predictions.parquet")).to_pylist()
    by_id = {row["instance_id"]: row for row in table}
    for instance in instances:
        row = by_id[instance.instance_id]
        assert row["raw_output"] == script.replies[instance.messages[-1]["content"]].text
        assert (row["parsed"], row["correct"]) == implied[instance.instance_id]
    for instance in instances:  # each prompt asked once, plus one retry per scripted error
        reply = script.replies[instance.messages[-1]["content"]]
        assert script.requests[instance.messages[-1]["content"]] == 1 + len(reply.errors)


async def test_a_second_eval_of_the_same_key_returns_the_same_run_and_calls_nothing(registry: Registry) -> None:
    instances = demo_instances()[:60]
    script, _ = scripted(instances)
    with FakeLLM(script) as llm:
        first = await evaluate(registry, request(llm.url, limit=60))
        calls = script.total()
        second = await evaluate(registry, request(llm.url, limit=60))
    assert first.outcome == "computed" and second.outcome == "existing"
    assert second.run_id == first.run_id and second.calls == 0
    assert script.total() == calls


async def test_partial_runs_never_enter_a_leaderboard(registry: Registry) -> None:
    script, _ = scripted(demo_instances()[:30])
    with FakeLLM(script) as llm:
        outcome = await evaluate(registry, request(llm.url, limit=30, publish=True))
    assert outcome.result is not None and outcome.result.partial and outcome.result.status == "published"
    board = await leaderboard.leaderboard(registry, leaderboard.LeaderboardQuery(task=DEMO))
    assert outcome.run_id not in {row.run_id for row in board.rows}
    assert outcome.result.key["config"]["partial"] is True and outcome.result.key["config"]["limit"] == 30


async def test_an_endpoint_that_keeps_failing_stops_the_run_cleanly_and_resume_finishes_it(registry: Registry) -> None:
    instances = demo_instances()[:40]
    script, _ = scripted(instances)
    broken = instances[25].messages[-1]["content"]
    script.replies[broken] = Reply("정답: A", errors=[500] * 10)
    with FakeLLM(script) as llm:
        failed = await evaluate(registry, request(llm.url, limit=40, max_retries=1, concurrency=1))
        assert failed.outcome == "failed" and "500" in failed.message
        done_before = set(run_store.cached_items(registry.store, failed.run_key))
        assert 0 < len(done_before) < 40
        refused = await evaluate(registry, request(llm.url, limit=40))
        assert refused.outcome == "failed" and "--resume" in refused.message
        script.replies[broken] = Reply("정답: A")
        asked_before = dict(script.requests)
        resumed = await evaluate(registry, request(llm.url, limit=40, resume=True))
    assert resumed.outcome == "computed" and resumed.run_id == failed.run_id
    for instance in instances:
        prompt = instance.messages[-1]["content"]
        if instance.instance_id in done_before:
            assert script.requests[prompt] == asked_before[prompt]  # a completed item is never asked again


async def test_garbage_and_hanging_endpoints_fail_with_a_reason(registry: Registry) -> None:
    instances = demo_instances()[:5]
    script, _ = scripted(instances)
    for reply in script.replies.values():
        reply.garbage = True
    with FakeLLM(script) as llm:
        garbage = await evaluate(registry, request(llm.url, limit=5, max_retries=0))
    assert garbage.outcome == "failed" and "failed" in garbage.message
    hanging, _ = scripted(instances)
    hanging.delay = 5.0
    with FakeLLM(hanging) as llm:
        slow = await evaluate(
            registry, request(llm.url, model="acme/hangs", limit=5, max_retries=0, timeout_seconds=0.3)
        )
    assert slow.outcome == "failed" and "Timeout" in slow.message


async def test_a_baseline_rerun_on_a_fresh_database_is_byte_identical(tmp_path: Path) -> None:
    from store import Store
    from tools.seed import sync_specs

    digests = []
    for name in ("one", "two"):
        store = await Store.open(tmp_path / name / "bt.db")
        await sync_specs(store)
        registry = Registry(store=store, public_url="http://testserver", artifacts_dir=tmp_path / name / "art")
        try:
            outcome = await evaluate(registry, EvalRequest(model="baseline/majority", task=DEMO))
            assert outcome.result is not None
            digests.append(
                (outcome.run_id, outcome.result.predictions.sha256, [m.model_dump() for m in outcome.result.metrics])
            )
        finally:
            await store.close()
    assert digests[0] == digests[1]
    assert digests[0][2][0]["value"] == pytest.approx(315 / 862)  # the majority letter B on the test split


async def test_data_that_differs_from_the_spec_is_refused_with_the_difference(
    registry: Registry, tmp_path: Path
) -> None:
    from tools.errors import BadRequest

    data = Path(__file__).resolve().parent.parent / "data"
    sample = data / "clinicalqa-upstream" / "clinicalqa_upstream_sample50.jsonl"
    with pytest.raises(BadRequest, match="found 50, the spec expects 1,045"):
        await evaluate(registry, EvalRequest(model="baseline/majority", task="clinicalqa@0", data=sample))
    partial = await evaluate(
        registry, EvalRequest(model="baseline/majority", task="clinicalqa@0", data=sample, allow_partial=True)
    )
    assert partial.result is not None and partial.result.partial and partial.result.n == 50


async def test_an_external_command_answers_through_the_parser(registry: Registry, tmp_path: Path) -> None:
    command = tmp_path / "answer_b.py"
    command.write_text(
        "import json, sys\n"
        "rows = [json.loads(l) for l in open(sys.argv[1])]\n"
        "with open(sys.argv[2], 'w') as out:\n"
        "    for row in rows:\n"
        "        out.write(json.dumps({'instance_id': row['instance_id'], 'answer': '정답: B'}) + '\\n')\n"
    )
    import sys

    from tools.models import ModelSpec, add_model

    await add_model(registry, ModelSpec(slug="acme/always-b", name="Always B", version="1"))
    outcome = await evaluate(
        registry, EvalRequest(model="acme/always-b", task=DEMO, command=f"{sys.executable} {command}")
    )
    assert outcome.outcome == "computed" and outcome.result is not None
    assert outcome.result.tier == "agent" and outcome.result.parse_rate == 1.0
    assert outcome.result.metrics[0].value == pytest.approx(315 / 862)  # B is the majority letter too
