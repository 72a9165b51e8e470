"""Imported evidence read by the evaluator agent like a paper's claims: mapped to our tasks (by shared item ids first,
then as a paper's claim is), proposals for the missing runs put in the review queue (nothing runs before approval),
the reading shown to maintainers; never a result, never a run key. Also: the result page shows the evidence on its
dataset, and a repeated listing reads no predictions file again."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from server.settings import Settings
from store import Store
from store import proposals as proposal_store
from store import results as result_store
from store.evidence import Evidence
from store.models import Model
from tests.conftest import running
from tests.review_support import make_maintainer
from tests.test_review_auth import log_in
from tools import reading
from tools.eval_plan import EvalRequest
from tools.evaluate import evaluate
from tools.evidence import ListEvidenceQuery, evidence_beside, import_evidence, list_evidence
from tools.evidence_claims import map_evidence, mapping_by_items
from tools.leaderboard import LeaderboardQuery, leaderboard
from tools.models import ModelSpec, add_model
from tools.registry import Registry
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio
DATA = Path(__file__).parent / "data" / "evidence"
INSPECT_LOG = DATA / "inspect_clinicalqa-demo-items.json"
LM_EVAL_MMLU = DATA / "lm-eval_results_2025-01-21T00-40-03.356274.json"
DEMO = "clinicalqa-upstream-demo@0"
SMOL = ModelSpec(
    slug="huggingfacetb/SmolLM2-135M-Instruct",
    name="SmolLM2 135M Instruct",
    provider_model_id="HuggingFaceTB/SmolLM2-135M-Instruct",
)
CLI = (sys.executable, "-m", "server.cli")


def count(db: Path, sql: str) -> int:
    with sqlite3.connect(db) as connection:
        return int(connection.execute(sql).fetchone()[0])


async def demo_majority(registry: Registry) -> str:
    """A real harness run on the shipped demo items (the majority baseline): our items, with their ids."""
    return (await evaluate(registry, EvalRequest(model="baseline/majority", task=DEMO))).run_id


async def test_evidence_for_an_llm_without_runs_puts_its_runs_in_the_review_queue_and_runs_nothing(
    registry: Registry, settings: Settings
) -> None:
    demo_run = await demo_majority(registry)
    await add_model(registry, SMOL)
    results_before = count(settings.db, "SELECT COUNT(*) FROM results")
    board_before = (await leaderboard(registry, LeaderboardQuery(task=DEMO))).model_dump()

    imported = await import_evidence(registry, INSPECT_LOG, SMOL.slug)

    assert imported.reading_id is not None and imported.proposed == 2
    pending = proposal_store.list_proposals(registry.store, "pending", 10)
    assert {(p.kind, p.model_slug, p.task_ref) for p in pending} == {
        ("run", SMOL.slug, DEMO),
        ("run", SMOL.slug, "clinicalqa@0"),
    }
    demo = next(p for p in pending if p.task_ref == DEMO)
    assert demo.reason.startswith("the imported evidence claims")
    assert f"12 of the file's 12 items are items of {DEMO} (matched by item id with run {demo_run})" in demo.reason
    assert "inspect 0.3.285 reported clinicalqa_demo_items" in demo.excerpt
    # evidence, not our result: no result row, no run of the proposed key, no job before approval, no board change
    assert count(settings.db, "SELECT COUNT(*) FROM results") == results_before
    assert result_store.get_result_by_key(registry.store, str(demo.run_key)) is None
    assert count(settings.db, "SELECT COUNT(*) FROM runs") == 1  # the baseline's own run only
    assert count(settings.db, "SELECT COUNT(*) FROM jobs") == 0
    assert (await leaderboard(registry, LeaderboardQuery(task=DEMO))).model_dump() == board_before


async def test_the_reading_holds_the_evidence_as_claims_with_value_stderr_and_source(registry: Registry) -> None:
    await demo_majority(registry)
    await add_model(registry, SMOL)
    imported = await import_evidence(registry, INSPECT_LOG, SMOL.slug)
    assert imported.reading_id is not None
    found = reading.get_reading(registry, imported.reading_id)
    assert (found.source, found.record.extractor, found.proposed) == (INSPECT_LOG.name, "evidence", 2)
    (claim,) = found.record.claims
    log = orjson.loads(INSPECT_LOG.read_bytes())
    metrics = log["results"]["scores"][0]["metrics"]
    assert (claim.model, claim.metric, claim.value) == (SMOL.slug, "accuracy", metrics["accuracy"]["value"])
    assert claim.raw_value == f"{metrics['accuracy']['value']:.4g} ± {metrics['stderr']['value']:.3g} (stderr)"
    assert claim.mapping.task == DEMO and INSPECT_LOG.name in claim.evidence and "mockllm/model" in claim.evidence
    assert [item.kind for item in found.items] == ["model", "run", "run"]
    assert found.items[0].action == "reuse"  # the model is registered: nothing to propose for it


LM_EVAL_DUMMY = DATA / "lm-eval_dummy_results_2026-12-01T14-51-42.810551.json"
LM_EVAL_SAMPLES = DATA / "lm-eval_dummy_samples_clinicalqa_demo_items_2026-12-01T14-51-42.810551.jsonl"


@pytest.mark.parametrize(
    ("results", "samples"),
    [(LM_EVAL_DUMMY, LM_EVAL_SAMPLES), (DATA / "inspect_clinicalqa-demo-items.eval", None)],
    ids=["lm-eval-with-samples", "inspect-eval-archive"],
)
async def test_per_item_outcomes_map_the_claim_to_the_task_whose_items_they_are(
    registry: Registry, results: Path, samples: Path | None
) -> None:
    run_id = await demo_majority(registry)
    await add_model(registry, SMOL)
    imported = await import_evidence(registry, results, SMOL.slug, samples)
    assert imported.reading_id is not None
    (claim,) = reading.get_reading(registry, imported.reading_id).record.claims
    assert claim.mapping.task == DEMO
    assert (
        claim.mapping.reason == f"12 of the file's 12 items are items of {DEMO} (matched by item id with run {run_id})"
    )
    assert claim.metric == "accuracy"  # lm-eval's acc and Inspect's accuracy are the same measure by name


async def test_a_second_import_makes_no_new_reading_and_no_new_proposal(registry: Registry, settings: Settings) -> None:
    await add_model(registry, SMOL)
    first = await import_evidence(registry, LM_EVAL_MMLU, SMOL.slug)
    proposals = count(settings.db, "SELECT COUNT(*) FROM proposals")
    again = await import_evidence(registry, LM_EVAL_MMLU, SMOL.slug)
    assert (again.stored, again.already_stored, again.proposed) == ([], 1, 0)
    assert again.reading_id == first.reading_id
    assert count(settings.db, "SELECT COUNT(*) FROM paper_readings") == 1
    assert count(settings.db, "SELECT COUNT(*) FROM proposals") == proposals


async def test_a_claim_without_shared_items_is_mapped_as_a_papers_claim_and_says_why_not(registry: Registry) -> None:
    await add_model(registry, SMOL)
    imported = await import_evidence(registry, LM_EVAL_MMLU, SMOL.slug)
    assert imported.reading_id is not None
    (claim,) = reading.get_reading(registry, imported.reading_id).record.claims
    assert (claim.metric, claim.setting, claim.unit, claim.mapping.task) == ("accuracy", "zero-shot", "fraction", None)
    assert "hails/mmlu_no_train:abstract_algebra (test)" in claim.mapping.reason
    (listed,) = (await list_evidence(registry, ListEvidenceQuery(model=SMOL.slug))).evidence
    assert (listed.maps_to, listed.maps_why) == (None, claim.mapping.reason)


def lm_eval_row(task_name: str, dataset: str, metric: str = "acc") -> Evidence:
    """An lm-eval metric as its results file gives it (task name, `dataset_path:dataset_name (split)`), here as
    lm-eval's own task configs name them (kormedmcqa: `dataset_path: sean0042/KorMedMCQA`, `dataset_name: doctor`,
    `test_split: test`, metric `exact_match`)."""
    return Evidence(
        id=1,
        model_slug=SMOL.slug,
        source="results_2025-01-01T00-00-00.json",
        file_sha256="0" * 64,
        harness="lm-eval",
        harness_version="0.4.8",
        external_model=SMOL.provider_model_id or "",
        task_name=task_name,
        task_version="1.0",
        dataset=dataset,
        filter="none",
        metric=metric,
        value=0.4,
        stderr=0.01,
        ci_low=None,
        ci_high=None,
        n_samples=None,
        n_shot=5,
        evaluated_at="2025-01-01T00:00:00Z",
        imported_at="2025-01-01T00:00:00Z",
    )


SMOL_MODEL = Model(slug=SMOL.slug, name=SMOL.name, type="llm", provider="huggingfacetb")


async def test_a_kormedmcqa_claim_is_not_clinicalqa_and_links_its_catalog_entry(registry: Registry) -> None:
    row = lm_eval_row("kormedmcqa_doctor", "sean0042/KorMedMCQA:doctor (test)", "exact_match")
    claim = map_evidence(registry, row, SMOL_MODEL, {}, {})
    assert claim.mapping.task is None and "KorMedMCQA" in claim.mapping.reason
    assert claim.mapping.catalog_id == "kormedmcqa" and claim.setting == "5-shot"


async def test_row_numbers_as_item_ids_never_map_a_claim_to_a_task(registry: Registry) -> None:
    row = lm_eval_row("some_task", "someone/dataset")
    claim = map_evidence(registry, row, SMOL_MODEL, {}, {})
    positional = {str(n): n % 2 == 0 for n in range(10)}  # lm-eval's doc_id where a document has no id
    scored = {"clinicalqa@0": ("run", frozenset(positional))}
    assert mapping_by_items(registry, claim, positional, scored) is None
    named = {f"q{n:05d}": True for n in range(10)}
    half = {"clinicalqa@0": ("run", frozenset(list(named)[:5]))}
    mapped = mapping_by_items(registry, claim, named, half)
    assert mapped is not None and mapped.task == "clinicalqa@0" and mapped.reason.startswith("5 of the file's 10")
    assert mapping_by_items(registry, claim, named, {"clinicalqa@0": ("run", frozenset(list(named)[:4]))}) is None


async def test_evidence_of_a_baseline_is_read_but_no_run_is_proposed(registry: Registry) -> None:
    await demo_majority(registry)
    imported = await import_evidence(registry, INSPECT_LOG, "baseline/majority")
    assert imported.reading_id is not None and imported.proposed == 0
    items = reading.get_reading(registry, imported.reading_id).items
    run = next(item for item in items if item.kind == "run")
    assert (run.action, run.task) == ("not_proposed", DEMO) and "baseline model" in run.reason


async def test_a_repeated_listing_reads_no_predictions_file_again(registry: Registry) -> None:
    run_id = await demo_majority(registry)
    await import_evidence(registry, INSPECT_LOG, "baseline/majority")
    first = await list_evidence(registry, ListEvidenceQuery(model="baseline/majority"))
    stored = result_store.get_result(registry.store, run_id)
    assert stored is not None and first.evidence[0].agreement[0].shared == 12
    predictions = registry.predictions_path(stored.predictions_path)
    predictions.rename(predictions.with_suffix(".away"))  # a reread would find no file
    again = await list_evidence(registry, ListEvidenceQuery(model="baseline/majority"))
    assert again.model_dump() == first.model_dump()
    # a write to the store drops the cached answer: the file is read again, and its absence is no error
    await add_model(registry, SMOL)
    after_write = await list_evidence(registry, ListEvidenceQuery(model="baseline/majority"))
    assert first.evidence[0].maps_to == DEMO  # by the items the run scored
    assert after_write.evidence[0].agreement == [] and after_write.evidence[0].maps_to != DEMO  # by name only


async def test_the_result_page_shows_evidence_on_its_dataset_as_not_computed_here(
    settings: Settings, registry: Registry
) -> None:
    run_id = await demo_majority(registry)
    await import_evidence(registry, INSPECT_LOG, "baseline/majority")
    await import_evidence(registry, LM_EVAL_MMLU, "baseline/majority")  # another dataset: not beside this result
    stored = result_store.get_result(registry.store, run_id)
    assert stored is not None
    beside = await evidence_beside(registry, stored)
    assert [row.task_name for row in beside] == ["clinicalqa_demo_items"]
    async with running(settings) as http:
        page = (await http.get(f"/r/{run_id}")).text
        model_page = (await http.get("/models/baseline/majority")).text
    section = page.split('<h2 id="evidence-heading">External evidence on this dataset</h2>')[1].split("</section>")[0]
    assert "Not computed here." in section and "inspect 0.3.285" in section and "clinicalqa_demo_items" in section
    shared = beside[0].agreement[0]
    assert f"{shared.shared}: both right {shared.both_right}, only ours {shared.only_ours}" in section
    assert "mmlu_abstract_algebra" not in section
    evidence_table = model_page.split("<h2>Evidence from other harnesses</h2>")[1]
    assert f'a claim on <a href="/tasks/clinicalqa-upstream-demo?version=0">{DEMO}</a>' in evidence_table


async def seed_smol(settings: Settings) -> None:
    store = await Store.open(settings.db)
    try:
        await sync_specs(store)
        registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
        await demo_majority(registry)
        await add_model(registry, SMOL)
    finally:
        await store.close()


async def test_a_maintainer_sees_the_cli_import_as_a_reading_of_claims_and_its_runs_in_the_queue(
    settings: Settings,
) -> None:
    await seed_smol(settings)
    done = subprocess.run(
        [*CLI, "evidence", "import", str(INSPECT_LOG), "--model", SMOL.slug, "--db", str(settings.db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "reading 1: the evaluator agent read it as claims; 2 new review item(s)" in done.stdout
    token = await make_maintainer(settings)
    async with running(settings) as http:
        await log_in(http, token)
        page = (await http.get("/review/readings/1")).text
        queue = (await http.get("/review")).text
    assert "Imported evidence, not computed here." in page and "clinicalqa_demo_items" in page
    assert f"maps to {DEMO}" in page or f"<td>{DEMO}</td>" in page
    assert 'href="/review/items/1"' in queue and 'href="/review/items/2"' in queue
    audit = count(settings.db, "SELECT COUNT(*) FROM audit_log WHERE action = 'read_evidence'")
    assert audit == 1
