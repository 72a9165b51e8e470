"""External evidence: lm-eval and Inspect files attached to a model, read from real files those tools wrote;
never a result, never ranked, and a second import changes nothing."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import orjson
import pyarrow.parquet as pq
import pytest

from server.settings import Settings
from store import results as result_store
from tests.populate import HARI
from tools.errors import BadRequest, ModelNotFound
from tools.eval_plan import EvalRequest
from tools.evaluate import evaluate
from tools.evidence import ListEvidenceQuery, agreement, import_evidence, list_evidence
from tools.evidence_formats import read_evidence_file
from tools.leaderboard import LeaderboardQuery, leaderboard
from tools.registry import Registry

pytestmark = pytest.mark.anyio
DATA = Path(__file__).parent / "data" / "evidence"
CLI = (sys.executable, "-m", "server.cli")
LM_EVAL_RESULTS = DATA / "lm-eval_results_2025-01-21T00-40-03.356274.json"


def result_rows(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM results").fetchone()[0])


async def test_an_lm_eval_results_file_becomes_evidence_with_its_stderr_and_harness(
    registry: Registry, run_ids: dict[str, str], settings: Settings
) -> None:
    before = result_rows(settings.db)
    imported = await import_evidence(registry, LM_EVAL_RESULTS, HARI.slug)
    (row,) = imported.stored
    assert (row.harness, row.harness_version, row.task_name, row.metric, row.filter) == (
        "lm-eval",
        "git e16afa2f",
        "mmlu_abstract_algebra",
        "acc",
        "none",
    )
    assert (row.value, row.stderr, row.n_samples, row.n_shot) == (0.34, 0.047609522856952344, 100, 0)
    assert row.dataset == "hails/mmlu_no_train:abstract_algebra (test)"
    assert row.evaluated_at.startswith("2025-01-21")
    assert result_rows(settings.db) == before  # evidence is never a result
    listed = await list_evidence(registry, ListEvidenceQuery(model="hari-q3-8b"))
    assert [e.id for e in listed.evidence] == [row.id]


async def test_importing_the_same_file_twice_stores_nothing_new(registry: Registry, run_ids: dict[str, str]) -> None:
    await import_evidence(registry, LM_EVAL_RESULTS, HARI.slug)
    again = await import_evidence(registry, LM_EVAL_RESULTS, HARI.slug)
    assert (again.stored, again.already_stored) == ([], 1)


async def test_evidence_never_enters_a_leaderboard(registry: Registry, run_ids: dict[str, str]) -> None:
    before = await leaderboard(registry, LeaderboardQuery(task="clinicalqa@0"))
    await import_evidence(registry, LM_EVAL_RESULTS, HARI.slug)
    after = await leaderboard(registry, LeaderboardQuery(task="clinicalqa@0"))
    assert after.model_dump() == before.model_dump()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", "is not JSON"),
        (b"[1, 2]", "not an object"),
        (b'{"results": {}, "configs": {}}', "no numeric metric"),
        (b'{"hello": "world"}', "neither an lm-eval results file nor an Inspect eval log"),
        (b"PK\x03\x04garbage", "not a readable zip file"),
    ],
)
def test_a_file_of_no_known_format_is_refused_with_a_reason(content: bytes, message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        read_evidence_file("upload.json", content)


async def test_evidence_for_an_unknown_model_is_refused(registry: Registry) -> None:
    with pytest.raises(ModelNotFound):
        await import_evidence(registry, LM_EVAL_RESULTS, "nobody/unknown-7b")


def test_agreement_counts_shared_items_by_outcome() -> None:
    ours = {"a": True, "b": True, "c": False, "d": False, "x": True}
    theirs = {"a": True, "b": False, "c": True, "d": False, "y": False}
    assert agreement(ours, theirs) == {
        "shared": 4,
        "both_right": 1,
        "only_ours": 1,
        "only_theirs": 1,
        "both_wrong": 1,
    }


async def test_the_route_lists_a_models_evidence(data_client: httpx.AsyncClient, settings: Settings) -> None:
    done = subprocess.run(
        [*CLI, "evidence", "import", str(LM_EVAL_RESULTS), "--model", "hari-q3-8b", "--db", str(settings.db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "mmlu_abstract_algebra acc (none) = 0.34" in done.stdout
    answer = await data_client.get("/v1/evidence", params={"model": "hari-q3-8b"})
    assert answer.status_code == 200
    assert [row["metric"] for row in answer.json()["evidence"]] == ["acc"]


async def test_the_cli_refuses_a_file_it_cannot_read_without_a_traceback(
    settings: Settings, run_ids: dict[str, str], tmp_path: Path
) -> None:
    broken = tmp_path / "results_broken.json"
    shutil.copy(LM_EVAL_RESULTS, broken)
    broken.write_bytes(broken.read_bytes()[:100])
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "evidence",
            "import",
            str(broken),
            "--model",
            HARI.slug,
            "--db",
            str(settings.db),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert orjson.loads(done.stderr)["error"] == "bad_request"


async def demo_majority(registry: Registry) -> str:
    """A real harness run on the shipped demo items: the majority baseline."""
    outcome = await evaluate(registry, EvalRequest(model="baseline/majority", task="clinicalqa-upstream-demo@0"))
    return outcome.run_id


@pytest.mark.parametrize("log", ["inspect_clinicalqa-demo-items.json", "inspect_clinicalqa-demo-items.eval"])
async def test_an_inspect_log_becomes_evidence_with_agreement_on_shared_items(registry: Registry, log: str) -> None:
    run_id = await demo_majority(registry)
    imported = await import_evidence(registry, DATA / log, "baseline/majority")
    (row,) = imported.stored
    assert (row.harness, row.harness_version, row.external_model) == ("inspect", "0.3.285", "mockllm/model")
    assert (row.task_name, row.filter, row.metric, row.n_samples, row.items) == (
        "clinicalqa_demo_items",
        "match",
        "accuracy",
        12,
        12,
    )
    assert row.value == pytest.approx(7 / 12) and row.stderr == pytest.approx(0.1486470975026408)
    (listed,) = (await list_evidence(registry, ListEvidenceQuery(model="baseline/majority"))).evidence
    (shared,) = listed.agreement
    assert (shared.run_id, shared.shared) == (run_id, 12)
    # independent count from the two files: our predictions parquet and the log's per-sample scores
    ours = prediction_outcomes(registry, run_id)
    theirs = log_outcomes(DATA / "inspect_clinicalqa-demo-items.json")
    assert shared.both_right == sum(ours[i] and theirs[i] for i in theirs)
    assert shared.only_ours == sum(ours[i] and not theirs[i] for i in theirs)
    assert shared.both_right + shared.only_ours + shared.only_theirs + shared.both_wrong == 12


def prediction_outcomes(registry: Registry, run_id: str) -> dict[str, bool]:
    stored = result_store.get_result(registry.store, run_id)
    assert stored is not None
    path = registry.predictions_path(stored.predictions_path)
    table = pq.read_table(path, columns=["instance_id", "correct"]).to_pylist()
    return {row["instance_id"]: row["correct"] for row in table}


def log_outcomes(path: Path) -> dict[str, bool]:
    log = orjson.loads(path.read_bytes())
    return {sample["id"]: sample["scores"]["match"]["value"] == "C" for sample in log["samples"]}


LM_EVAL_DUMMY = DATA / "lm-eval_dummy_results_2026-12-01T14-51-42.810551.json"
LM_EVAL_SAMPLES = DATA / "lm-eval_dummy_samples_clinicalqa_demo_items_2026-12-01T14-51-42.810551.jsonl"


async def test_lm_eval_samples_give_per_item_outcomes_and_agreement(registry: Registry) -> None:
    run_id = await demo_majority(registry)
    imported = await import_evidence(registry, LM_EVAL_DUMMY, "baseline/majority", samples=LM_EVAL_SAMPLES)
    (row,) = imported.stored
    assert (row.harness, row.harness_version, row.external_model, row.task_version) == (
        "lm-eval",
        "0.4.13",
        "qdpv68r5",
        "0",
    )
    assert (row.value, row.items) == (0.25, 12)
    (listed,) = (await list_evidence(registry, ListEvidenceQuery(model="baseline/majority"))).evidence
    (shared,) = listed.agreement
    ours = prediction_outcomes(registry, run_id)
    theirs = {
        line["doc"]["id"]: line["acc"] == 1.0
        for line in map(orjson.loads, LM_EVAL_SAMPLES.read_text(encoding="utf-8").splitlines())
    }
    assert sum(theirs.values()) == 3  # 0.25 of 12, as the results file says
    assert (shared.run_id, shared.shared) == (run_id, 12)
    assert shared.both_right == sum(ours[i] and theirs[i] for i in theirs)
    assert shared.only_theirs == sum(theirs[i] and not ours[i] for i in theirs)


async def test_samples_that_are_not_lm_eval_samples_are_refused_and_nothing_is_stored(
    registry: Registry, tmp_path: Path
) -> None:
    await demo_majority(registry)
    broken = tmp_path / "samples.jsonl"
    broken.write_text('{"doc_id": 0}\n', encoding="utf-8")
    with pytest.raises(BadRequest, match="line 1"):
        await import_evidence(registry, LM_EVAL_DUMMY, "baseline/majority", samples=broken)
    assert (await list_evidence(registry, ListEvidenceQuery(model="baseline/majority"))).evidence == []


async def test_the_model_page_shows_evidence_apart_from_results(
    data_client: httpx.AsyncClient, settings: Settings
) -> None:
    done = subprocess.run(
        [*CLI, "evidence", "import", str(LM_EVAL_RESULTS), "--model", "hari-q3-8b", "--db", str(settings.db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    page = (await data_client.get(f"/models/{HARI.slug}")).text
    section = page.split("<h2>Evidence from other harnesses</h2>")[1]
    assert "never ranked" in section and "mmlu_abstract_algebra" in section and "lm-eval git e16afa2f" in section
    assert "0.34" in section
