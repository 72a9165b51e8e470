"""A third task kind, defined only in tests/ (tests/short_answer_kind.py, spec and data in tests/data/kinds/), runs
through the real harness end to end: eval → stored result with a bootstrap interval → /v1 result and leaderboard
→ result page. Production code never names it and cannot pick it up: it reaches the harness only through the
`kinds=` the test passes."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import numpy as np
import orjson
import pyarrow.parquet as pq
import pytest
from asgi_lifespan import LifespanManager

from evaluator.kinds import BUILTIN_KINDS, Kinds, with_kinds
from evaluator.specs import DatasetRecord, TaskFile, load_task_files
from server.app import build_app
from server.settings import Settings
from store import Store
from store import datasets as dataset_store
from store import tasks as task_store
from tests.conftest import PUBLIC_URL, LiveServer
from tests.fake_llm import FakeLLM, Reply, Script
from tests.short_answer_kind import ShortAnswer, matches, read_questions
from tests.test_web_browser import CHROMIUM, LAUNCH_ARGS, PERSON
from tools import data_check
from tools.errors import BadRequest
from tools.eval_plan import EvalRequest
from tools.evaluate import evaluate
from tools.maintainers import Actor
from tools.models import ModelSpec, add_model
from tools.publishing import NewTaskVersion, add_task_version
from tools.registry import Registry
from tools.seed import dataset_row, sync_specs, task_row

pytestmark = pytest.mark.anyio
HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "data" / "kinds"
TASK = "short-answer-demo@0"
DATA = FIXTURES / "short-answer-demo"
COMMAND = f"{sys.executable} {HERE / 'short_answer_command.py'}"
MODEL = "test/dose-calculator"


def task_file() -> TaskFile:
    return TaskFile.model_validate(orjson.loads((FIXTURES / "tasks" / f"{TASK}.json").read_bytes()))


def kinds_with_short_answer() -> Kinds:
    return with_kinds(ShortAnswer())


@asynccontextmanager
async def short_answer_registry(settings: Settings) -> AsyncIterator[Registry]:
    """The shipped specs plus the test kind's task, in a real SQLite file; the registry knows the test kind."""
    store = await Store.open(settings.db)
    await sync_specs(store)
    record = DatasetRecord.model_validate(orjson.loads((FIXTURES / "datasets" / "short-answer-demo.json").read_bytes()))
    await dataset_store.upsert_dataset(store, dataset_row(record))
    await task_store.upsert_task(store, task_row(task_file()))
    try:
        yield Registry(
            store=store,
            public_url=settings.base_url,
            artifacts_dir=settings.artifacts_dir,
            kinds=kinds_with_short_answer(),
        )
    finally:
        await store.close()


@pytest.fixture
async def registry(settings: Settings) -> AsyncIterator[Registry]:
    async with short_answer_registry(settings) as registry:
        yield registry


def request(**overrides: object) -> EvalRequest:
    values: dict[str, object] = {"model": MODEL, "task": TASK, "data": DATA, "command": COMMAND, "publish": True}
    values.update(overrides)
    return EvalRequest(**values)  # type: ignore[arg-type]


async def add_test_model(registry: Registry) -> None:
    await add_model(registry, ModelSpec(slug=MODEL, name="Dose calculator (test command)", type="llm"))


def expected_correct() -> dict[str, bool]:
    """What the command implies, judged here from the data: dose questions are worked out, all else is 'liver'."""
    spec = task_file().spec
    return {q.instance_id: matches("liver", q.answer) or "mg/kg" in q.question for q in read_questions(DATA, spec)}


async def test_the_test_kind_is_not_a_shipped_kind_and_a_default_registry_refuses_its_task(
    registry: Registry,
) -> None:
    assert "short_answer" not in BUILTIN_KINDS and "short_answer" in registry.kinds
    shipped_only = Registry(store=registry.store, public_url=registry.public_url, artifacts_dir=registry.artifacts_dir)
    await add_test_model(registry)
    with pytest.raises(BadRequest, match="unknown task kind 'short_answer'"):
        await evaluate(shipped_only, request())
    with pytest.raises(ValueError, match="unique"):
        with_kinds(ShortAnswer(), base=kinds_with_short_answer())


async def test_a_third_kind_runs_end_to_end_to_a_stored_result_with_a_bootstrap_interval(
    registry: Registry, settings: Settings
) -> None:
    await add_test_model(registry)
    outcome = await evaluate(registry, request())
    assert outcome.outcome == "computed" and outcome.result is not None and outcome.calls == 24
    result = outcome.result
    implied = expected_correct()
    accuracy = next(m for m in result.metrics if m.name == "accuracy")
    assert accuracy.value == pytest.approx(np.mean(list(implied.values())), abs=1e-12)
    assert 0 < sum(implied.values()) < len(implied)  # some right, some wrong: the interval has width
    low, value, high = accuracy.ci_low, accuracy.value, accuracy.ci_high
    assert low is not None and value is not None and high is not None
    assert low < value < high
    assert (result.bootstrap.unit, result.bootstrap.n_units, result.bootstrap.replicates) == ("group", 8, 500)
    assert not result.partial and result.status == "published" and result.n == 24
    table = pq.read_table(registry.predictions_path(f"{result.run_id}/predictions.parquet"))
    assert table.schema.equals(ShortAnswer.schema)
    assert {r["instance_id"]: r["correct"] for r in table.to_pylist()} == implied

    again = await evaluate(registry, request())  # look up first: the same key is not computed twice
    assert (again.outcome, again.run_id, again.calls) == ("existing", result.run_id, 0)
    checked = await data_check.check(registry, request())
    assert checked.ok and checked.notes == ["24 items"]


async def test_a_third_kind_result_is_served_on_v1_on_the_leaderboard_and_on_its_page(
    registry: Registry, settings: Settings
) -> None:
    await add_test_model(registry)
    outcome = await evaluate(registry, request())
    assert outcome.result is not None
    run_id = outcome.run_id
    application = build_app(settings, kinds=kinds_with_short_answer())
    async with LifespanManager(application):
        transport = httpx.ASGITransport(app=application, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url=PUBLIC_URL) as http:
            body = (await http.get(f"/v1/results/{run_id}")).json()
            board = (await http.get("/v1/leaderboard", params={"task": TASK})).json()
            page = await http.get(f"/r/{run_id}")
            wrong = await http.get(f"/r/{run_id}", params={"wrong": "1"})
    assert body["run_id"] == run_id and body["task"] == TASK
    assert body["metrics"] == [m.model_dump(mode="json") for m in outcome.result.metrics]
    assert [row["run_id"] for row in board["rows"]] == [run_id]
    assert page.status_code == 200 and run_id in page.text
    wrong_ids = sorted(i for i, right in expected_correct().items() if not right)
    assert wrong.status_code == 200
    assert all(i in wrong.text for i in wrong_ids)  # the kind's item table, wrong answers only
    assert not any(i in wrong.text for i, right in expected_correct().items() if right)


async def test_a_chat_model_answers_a_third_kind_through_the_same_core(registry: Registry) -> None:
    questions = read_questions(DATA, task_file().spec)
    replies = {q.messages[-1]["content"]: Reply(f"  {q.answer.upper()}. ") for q in questions[:12]}
    await add_model(registry, ModelSpec(slug="acme/chatty-1", name="Chatty", endpoint=None))
    with FakeLLM(Script(replies, default=Reply("I do not know"))) as llm:
        outcome = await evaluate(
            registry, EvalRequest(model="acme/chatty-1", task=TASK, data=DATA, endpoint=llm.url, model_id="chatty")
        )
    assert outcome.outcome == "computed" and outcome.result is not None and outcome.calls == 24
    accuracy = next(m for m in outcome.result.metrics if m.name == "accuracy")
    assert accuracy.value == pytest.approx(12 / 24, abs=1e-12)  # normalised exact match: case, space, period


async def test_a_third_kind_refuses_differing_or_unreadable_data_with_a_clear_error_and_runs_it_partial_when_asked(
    registry: Registry, tmp_path: Path
) -> None:
    await add_test_model(registry)
    fewer = tmp_path / "fewer"
    fewer.mkdir()
    lines = (DATA / "items.jsonl").read_bytes().splitlines()
    (fewer / "items.jsonl").write_bytes(b"\n".join(lines[:-4]) + b"\n")
    with pytest.raises(BadRequest, match="count: 20 items, the spec declares 24"):
        await evaluate(registry, request(data=fewer))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "items.jsonl").write_bytes(lines[0] + b"\n{not json\n")
    with pytest.raises(BadRequest, match="cannot read short-answer-demo@0 data"):
        await evaluate(registry, request(data=broken))
    outcome = await evaluate(registry, request(data=fewer, allow_partial=True))
    assert outcome.result is not None and outcome.result.partial and outcome.result.n == 20
    assert outcome.result.key["config"]["partial"] is True


async def test_every_shipped_task_names_a_shipped_kind_and_a_task_file_of_an_unknown_kind_is_refused(
    registry: Registry,
) -> None:
    assert {f.spec.kind for f in load_task_files()} <= set(BUILTIN_KINDS)
    shipped_only = Registry(store=registry.store, public_url=registry.public_url, artifacts_dir=registry.artifacts_dir)
    body = orjson.loads((FIXTURES / "tasks" / f"{TASK}.json").read_bytes())
    body["spec"]["task"] = "short-answer-demo@1"
    change = NewTaskVersion(task_file=body, note="a second version")
    with pytest.raises(BadRequest, match="unknown task kind 'short_answer'"):
        await add_task_version(shipped_only, Actor("tester"), change)
    assert task_store.get_task(registry.store, "short-answer-demo", 1) is None  # nothing stored
    added = await add_task_version(registry, Actor("tester"), change)
    assert (added.task, added.kind, added.status) == ("short-answer-demo@1", "short_answer", "building")


async def evaluated(settings: Settings) -> str:
    """A fresh store holding the test kind's published result; its run id."""
    async with short_answer_registry(settings) as registry:
        await add_test_model(registry)
        return (await evaluate(registry, request())).run_id


@pytest.mark.browser
@pytest.mark.timeout(300)
@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed (make test installs it as root)")
def test_a_third_kind_result_page_and_board_render_in_chromium_on_a_phone(settings: Settings) -> None:
    from playwright.sync_api import sync_playwright

    run_id = asyncio.run(evaluated(settings))
    wrong = sorted(i for i, right in expected_correct().items() if not right)
    with LiveServer(settings, kinds=kinds_with_short_answer()) as server, sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
        try:
            page = chromium.new_page(base_url=server.url, user_agent=PERSON, viewport={"width": 390, "height": 844})
            page.goto(f"/r/{run_id}?wrong=1")
            shown = page.locator("ol.items > li").all_inner_texts()
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            page.goto("/tasks/short-answer-demo")
            board = page.locator("main").inner_text()
        finally:
            chromium.close()
    assert len(shown) == len(wrong) and all(i in text for i, text in zip(wrong, shown, strict=True)), shown
    assert overflow <= 0
    assert MODEL in board or "Dose calculator" in board


async def test_the_kinds_decide_which_models_may_run_a_task(registry: Registry) -> None:
    with pytest.raises(BadRequest, match="baseline/majority is a baseline for mcq tasks, not for short-answer-demo@0"):
        await evaluate(registry, request(model="baseline/majority", command=None))
    chat = EvalRequest(model="acme/chatty-2", task="vitaldb-ioh-synthetic@0", endpoint="http://127.0.0.1:9")
    with pytest.raises(BadRequest, match=r"binary_timeseries task .*a chat endpoint cannot answer it"):
        await evaluate(registry, chat)
