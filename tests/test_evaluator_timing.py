"""Where a run's time goes: `evaluate` laps every phase and the chat adapter records each attempt and connection,
against a scripted OpenAI-compatible server on 127.0.0.1 (tests/fake_llm.py); the slot-gap arithmetic on its own."""

from __future__ import annotations

import time

import pytest

from evaluator.timing import Attempt, Timings
from tests.fake_llm import FakeLLM, Reply, Script
from tests.test_evaluator_harness import demo_instances, request
from tools.evaluate import evaluate
from tools.registry import Registry

PHASES = [
    "start-up",
    "data load",
    "run key and claim",
    "requests",
    "item cache and close",
    "parse, score, bootstrap CIs",
    "predictions write",
    "store commit",
    "result read",
]


@pytest.mark.anyio
async def test_a_run_laps_every_phase_and_records_each_request_over_kept_alive_connections(
    registry: Registry,
) -> None:
    instances = demo_instances()[:12]
    script = Script({i.messages[-1]["content"]: Reply("정답: A", delay=0.02) for i in instances})
    timings = Timings()
    with FakeLLM(script) as llm:
        started = time.perf_counter()
        outcome = await evaluate(registry, request(llm.url, limit=12, concurrency=3), timings=timings)
        wall = time.perf_counter() - started
    assert outcome.outcome == "computed"
    assert list(timings.phases) == PHASES
    assert all(p.count == 1 and p.wall >= 0 and p.cpu >= 0 for p in timings.phases.values())
    laps = sum(p.wall for p in timings.phases.values())
    assert laps <= wall and wall - laps < 0.25  # the laps cover the call end to end
    assert len(timings.attempts) == 12 and timings.retries() == 0
    assert all(a.sent <= a.first_byte <= a.done and a.status == 200 for a in timings.attempts if a.first_byte)
    assert timings.phases["requests"].wall >= 4 * 0.02  # twelve replies of 20 ms through three slots
    assert 1 <= timings.connections <= 3  # keep-alive: one connection per slot at most, not one per request


@pytest.mark.anyio
async def test_a_retried_request_is_recorded_as_a_second_attempt_after_its_backoff(registry: Registry) -> None:
    instances = demo_instances()[:2]
    replies = {i.messages[-1]["content"]: Reply("정답: B") for i in instances}
    replies[instances[0].messages[-1]["content"]] = Reply("정답: B", errors=[503])
    timings = Timings()
    with FakeLLM(Script(replies)) as llm:
        outcome = await evaluate(registry, request(llm.url, limit=2, concurrency=1), timings=timings)
    assert outcome.outcome == "computed"
    assert [(a.status, a.attempt) for a in timings.attempts] == [(503, 0), (200, 1), (200, 0)]
    assert timings.retries() == 1
    assert timings.slot_gaps() >= 0.005  # the server's retry-after-ms: 5 before the second attempt
    assert "1 retries" in timings.summary()[-1]


def test_slot_gaps_count_the_time_a_freed_slot_waits_for_the_next_send() -> None:
    timings = Timings(concurrency=2)
    for sent, done in [(0.0, 1.0), (0.0, 2.0), (1.25, 3.0), (2.0, 3.5), (3.5, 4.0)]:
        timings.record(Attempt(sent, sent + 0.1, done, 200, 0))
    # third send takes the slot freed at 1.0 (0.25 s later), the fourth the one freed at 2.0 (at once), the fifth
    # the one freed at 3.0 (0.5 s later)
    assert timings.slot_gaps() == pytest.approx(0.75)
    head, body = timings.waiting()
    assert head == pytest.approx(0.5) and body == pytest.approx(
        sum(d - s - 0.1 for s, d in [(0, 1), (0, 2), (1.25, 3), (2, 3.5), (3.5, 4)])
    )


def test_a_lap_counts_only_the_time_since_the_previous_lap() -> None:
    timings = Timings()
    timings.restart()
    deadline = time.perf_counter() + 0.01
    while time.perf_counter() < deadline:  # busy, so CPU time moves too
        pass
    timings.lap("first")
    timings.lap("second")
    assert timings.phases["first"].wall >= 0.01 and timings.phases["first"].cpu > 0
    assert timings.phases["second"].wall < timings.phases["first"].wall


@pytest.mark.anyio
async def test_a_baseline_run_laps_its_outputs_in_place_of_requests(registry: Registry) -> None:
    timings = Timings()
    outcome = await evaluate(registry, request("unused", model="baseline/majority", limit=20), timings=timings)
    assert outcome.outcome == "computed"
    assert "model outputs" in timings.phases and "requests" not in timings.phases
    assert timings.attempts == [] and timings.connections == 0
