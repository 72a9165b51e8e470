"""Results carried to the ecosystem's formats: Every Eval Ever 0.3.0 (validated against the schema files its wheel
ships) and Hugging Face `.eval_results` YAML; the numbers are the stored result's, never recomputed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import orjson
import pytest
import yaml

from server.settings import Settings
from tools.errors import Conflict
from tools.eval_plan import EvalRequest
from tools.evaluate import evaluate
from tools.export_files import export_result
from tools.exports import ExportResultQuery, export_eee
from tools.registry import Registry
from tools.results import GetResultQuery, get_result

pytestmark = pytest.mark.anyio
SCHEMAS = Path(__file__).parent / "data" / "every_eval_ever"


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = orjson.loads((SCHEMAS / name).read_bytes())
    return loaded


def validate(document: dict[str, Any], name: str) -> None:
    jsonschema.Draft7Validator(schema(name), format_checker=jsonschema.FormatChecker()).validate(document)


async def demo_result(registry: Registry) -> str:
    """A real harness run: the majority baseline on the shipped demo items."""
    outcome = await evaluate(registry, EvalRequest(model="baseline/majority", task="clinicalqa-upstream-demo@0"))
    return outcome.run_id


async def test_the_eee_record_validates_and_carries_the_stored_numbers(
    registry: Registry, run_ids: dict[str, str]
) -> None:
    run_id = run_ids["kgpu/medgemma-27b@clinicalqa@0"]
    record = (await export_eee(registry, ExportResultQuery(run_id=run_id))).model_dump(mode="json")
    validate(record, "eval.schema.json")
    stored = await get_result(registry, GetResultQuery(run_id=run_id))
    accuracy = next(r for r in record["evaluation_results"] if r["metric_config"]["metric_id"] == "accuracy")
    metric = next(m for m in stored.metrics if m.name == "accuracy")
    assert accuracy["score_details"]["score"] == metric.value
    interval = accuracy["score_details"]["uncertainty"]["confidence_interval"]
    assert (interval["lower"], interval["upper"], interval["method"]) == (metric.ci_low, metric.ci_high, "bootstrap")
    assert accuracy["score_details"]["uncertainty"]["num_bootstrap_samples"] == stored.bootstrap.replicates
    assert accuracy["score_details"]["details"]["bootstrap_unit"] == stored.bootstrap.unit
    details = record["source_metadata"]["additional_details"]
    assert (details["run_key"], details["spec_hash"], details["license"]) == (
        stored.run_key,
        stored.spec_hash,
        "CC BY 4.0",
    )
    assert details["bibtex"] == stored.bibtex
    assert record["eval_library"]["name"] == "benchtoward"


async def test_a_time_series_result_exports_auroc_with_its_patient_bootstrap(
    registry: Registry, run_ids: dict[str, str]
) -> None:
    record = (
        await export_eee(registry, ExportResultQuery(run_id=run_ids["baseline/last-map@vitaldb-ioh@0"]))
    ).model_dump(mode="json")
    validate(record, "eval.schema.json")
    metrics = {r["metric_config"]["metric_id"]: r for r in record["evaluation_results"]}
    assert "auroc" in metrics
    assert metrics["auroc"]["score_details"]["details"]["bootstrap_unit"] == "patient"


async def test_the_directory_form_writes_valid_instances_with_item_text_for_shipped_items(
    registry: Registry, tmp_path: Path
) -> None:
    run_id = await demo_result(registry)
    aggregate_path, samples_path = await export_result(registry, run_id, tmp_path, "eee")
    aggregate = orjson.loads(aggregate_path.read_bytes())
    validate(aggregate, "eval.schema.json")
    lines = samples_path.read_text(encoding="utf-8").splitlines()
    stored = await get_result(registry, GetResultQuery(run_id=run_id))
    assert len(lines) == stored.predictions.rows == aggregate["detailed_evaluation_results"]["total_rows"]
    assert samples_path.relative_to(tmp_path).as_posix() == aggregate["detailed_evaluation_results"]["file_path"]
    records = [orjson.loads(line) for line in lines]
    for record in records[:50]:
        validate(record, "instance_level_eval.schema.json")
    assert all(record["input"]["raw"] for record in records)  # the demo items ship here: their text is public
    assert all(len(record["input"]["choices"]) == 5 for record in records)
    correct = sum(record["evaluation"]["is_correct"] for record in records)
    accuracy = next(m for m in stored.metrics if m.name == "accuracy").value
    assert correct / len(records) == pytest.approx(accuracy)


async def test_items_of_data_not_shipped_here_are_withheld_and_the_record_says_why(
    registry: Registry, run_ids: dict[str, str], tmp_path: Path
) -> None:
    aggregate_path, samples_path = await export_result(
        registry, run_ids["snuh/hari-q3-8b@clinicalqa@0"], tmp_path, "eee"
    )
    aggregate = orjson.loads(aggregate_path.read_bytes())
    assert aggregate["detailed_evaluation_results"]["additional_details"]["item_text"].startswith("withheld")
    first = orjson.loads(samples_path.read_text(encoding="utf-8").splitlines()[0])
    validate(first, "instance_level_eval.schema.json")
    assert first["input"]["raw"] == "" and first["input"]["choices"] is None and first["sample_hash"] is None


async def test_an_export_twice_writes_identical_bytes(
    registry: Registry, run_ids: dict[str, str], tmp_path: Path
) -> None:
    run_id = run_ids["openai/gpt-oss-20b@clinicalqa@0"]
    first = await export_result(registry, run_id, tmp_path / "a", "eee")
    second = await export_result(registry, run_id, tmp_path / "b", "eee")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


async def test_the_hf_form_links_back_to_the_result_page(
    registry: Registry, run_ids: dict[str, str], tmp_path: Path
) -> None:
    run_id = run_ids["kgpu/medgemma-27b@clinicalqa@0"]
    (path,) = await export_result(registry, run_id, tmp_path, "hf")
    assert path.relative_to(tmp_path).as_posix() == ".eval_results/clinicalqa.yaml"
    (entry,) = yaml.safe_load(path.read_text(encoding="utf-8"))
    stored = await get_result(registry, GetResultQuery(run_id=run_id))
    assert entry["dataset"] == {"id": "snuh/ClinicalQA", "task_id": "clinicalqa@0"}
    assert entry["value"] == next(m for m in stored.metrics if m.name == "accuracy").value
    assert entry["source"]["url"] == stored.url


async def test_the_hf_form_refuses_a_dataset_that_is_not_on_the_hub(
    registry: Registry, run_ids: dict[str, str], tmp_path: Path
) -> None:
    with pytest.raises(Conflict, match="not a Hugging Face dataset"):
        await export_result(registry, run_ids["baseline/last-map@vitaldb-ioh@0"], tmp_path, "hf")
    assert not (tmp_path / ".eval_results").exists()


async def test_the_eee_route_answers_the_record_and_a_coded_error(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    run_id = run_ids["kgpu/medgemma-27b@clinicalqa@0"]
    answer = await data_client.get(f"/v1/results/{run_id}/eee")
    assert answer.status_code == 200
    validate(answer.json(), "eval.schema.json")
    missing = await data_client.get("/v1/results/000000000000/eee")
    assert (missing.status_code, missing.json()["error"]) == (404, "run_not_found")


async def test_the_cli_writes_eee_files_and_refuses_a_bad_format_without_a_traceback(
    settings: Settings, run_ids: dict[str, str], tmp_path: Path
) -> None:
    run_id = run_ids["kgpu/medgemma-27b@clinicalqa@0"]
    base = [sys.executable, "-m", "server.cli", "export-result", run_id, str(tmp_path / "out")]
    flags = ["--db", str(settings.db), "--artifacts", str(settings.artifacts_dir)]
    done = subprocess.run([*base, "--format", "eee", *flags], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    written = [Path(line) for line in done.stdout.splitlines()]
    assert [path.suffix for path in written] == [".json", ".jsonl"] and all(path.is_file() for path in written)
    refused = subprocess.run([*base, "--format", "csv", *flags], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    unknown = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "export-result",
            "ffffffffffff",
            str(tmp_path / "x"),
            "--format",
            "eee",
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert unknown.returncode == 2 and orjson.loads(unknown.stderr)["error"] == "run_not_found"
