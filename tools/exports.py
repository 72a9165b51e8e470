"""Capability: a result in the evaluation ecosystem's interchange formats.

- Every Eval Ever (EvalEval coalition, schema 0.3.0): one aggregate record per result (`eee_record`) and, in the
  directory form, its instance JSONL (`eee_instances`), laid out as that project's `data/` tree. Tests validate
  both against the two schema files the `every-eval-ever` 0.3.0 wheel ships (copied to tests/data/).
- Hugging Face model-page evaluation results (`.eval_results/<name>.yaml`): one entry linking back to the result.

Every number is copied from the stored result and its predictions file, never recomputed, so an export says
exactly what the registry says. Item text (questions and options) is written only for data that ships with
BenchToward itself (the demo items, already public in this repository); for any other dataset the items stay
with their distributor and licence, and the instance records carry ids, references and outputs only.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from evaluator.version import HARNESS_VERSION
from store import datasets as dataset_store
from store import models as model_store
from store import tasks as task_store
from store.datasets import Dataset
from store.models import Model
from store.results import Result
from store.tasks import Task
from tools.predictions import stored_result
from tools.registry import Registry
from tools.results import detail
from tools.schemas import Shape

EEE_SCHEMA_VERSION = "0.3.0"
RESULTS_LICENSE = "CC BY 4.0"  # seed 001: BenchToward results and per-item predictions are released under it
METRIC_NAMES = {"accuracy": "Accuracy", "auroc": "AUROC", "auprc": "AUPRC", "prevalence": "Prevalence"}
HF_DATASET_PREFIX = "https://huggingface.co/datasets/"


class ExportResultQuery(Shape):
    run_id: str = Field(max_length=64, pattern=r"^[0-9a-f]{1,64}$", description="The 12-hex-character run id.")


class EveryEvalEverRecord(BaseModel):
    """An Every Eval Ever 0.3.0 aggregate record (eval.schema.json): model, harness, every metric with its 95%
    bootstrap interval, and BenchToward's run key, spec hash, BibTeX and licence in
    `source_metadata.additional_details`."""

    model_config = ConfigDict(extra="allow")

    schema_version: str
    evaluation_id: str


def record_uuid(result: Result) -> str:
    """A version-4-shaped UUID derived from the run key: the same result always gets the same file names."""
    return str(uuid.UUID(bytes=hashlib.sha256(result.run_key.encode()).digest()[:16], version=4))


def model_id(model: Model) -> str:
    """The model in Hugging Face form when the provider id is one (org/name), else BenchToward's slug."""
    provider_id = model.provider_model_id or ""
    return provider_id if provider_id.count("/") == 1 else model.slug


def epoch(created_at: str) -> str:
    moment = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    return str(int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()))


def strings(values: dict[str, Any]) -> dict[str, str]:
    """EEE's `additional_details` hold strings only: numbers and objects become their JSON text."""
    return {
        key: value if isinstance(value, str) else orjson.dumps(value).decode()
        for key, value in values.items()
        if value is not None
    }


def dataset_of(registry: Registry, task: Task) -> Dataset:
    dataset = dataset_store.get_dataset(registry.store, task.dataset_slug)
    if dataset is None:  # a foreign key makes this unreachable; say so rather than crash
        raise LookupError(f"task {task.ref} names a missing dataset {task.dataset_slug}")
    return dataset


def source_data(registry: Registry, task: Task) -> dict[str, Any]:
    dataset = dataset_of(registry, task)
    details = strings({"license": dataset.license, "citation": dataset.citation, "doi": dataset.doi, "task": task.ref})
    url = dataset.source
    if url.startswith(HF_DATASET_PREFIX):
        return {
            "dataset_name": dataset.name,
            "source_type": "hf_dataset",
            "hf_repo": url.removeprefix(HF_DATASET_PREFIX).strip("/"),
            "additional_details": details,
        }
    if url.startswith(("http://", "https://")):
        return {"dataset_name": dataset.name, "source_type": "url", "url": [url], "additional_details": details}
    return {"dataset_name": dataset.name, "source_type": "other", "additional_details": details}


def generation_config(result: Result) -> dict[str, Any]:
    config = orjson.loads(result.config_json)
    arguments = {
        name: config[name]
        for name in ("temperature", "top_p", "max_tokens")
        if isinstance(config.get(name), int | float)
    }
    if "max_tokens" in arguments:
        arguments["max_tokens"] = int(arguments["max_tokens"])
    return {"generation_args": arguments, "additional_details": strings({"config": config})}


def metric_results(registry: Registry, result: Result, task: Task) -> list[dict[str, Any]]:
    metrics = orjson.loads(result.metrics_json)
    bootstrap = metrics["bootstrap"]
    found = []
    for metric in metrics["metrics"]:
        if metric["value"] is None:  # undefined on this data (one class only): nothing to report
            continue
        uncertainty: dict[str, Any] = {"num_samples": result.n, "num_bootstrap_samples": int(bootstrap["replicates"])}
        if metric["ci_low"] is not None and metric["ci_high"] is not None:
            uncertainty["confidence_interval"] = {
                "lower": metric["ci_low"],
                "upper": metric["ci_high"],
                "confidence_level": float(bootstrap["level"]),
                "method": "bootstrap",
            }
        found.append(
            {
                "evaluation_result_id": f"{result.run_id}/{metric['name']}",
                "evaluation_name": task.ref,
                "source_data": source_data(registry, task),
                "evaluation_timestamp": result.eval_date,
                "metric_config": {
                    "evaluation_description": task.title,
                    "metric_id": metric["name"],
                    "metric_name": METRIC_NAMES.get(metric["name"], metric["name"]),
                    "metric_kind": metric["name"],
                    "metric_unit": "proportion",
                    "lower_is_better": False,
                    "score_type": "continuous",
                    "min_score": 0,
                    "max_score": 1,
                    "additional_details": strings({"primary": str(metric["name"] == result.primary_metric).lower()}),
                },
                "score_details": {
                    "score": metric["value"],
                    "uncertainty": uncertainty,
                    "details": strings(
                        {
                            "bootstrap_unit": bootstrap["unit"],
                            "n_units": bootstrap["n_units"],
                            "n_items": result.n,
                            "degenerate_replicates": bootstrap.get("degenerate_replicates", 0),
                        }
                    ),
                },
                "generation_config": generation_config(result),
            }
        )
    return found


def model_info(model: Model) -> dict[str, Any]:
    return {
        "name": model.name,
        "id": model_id(model),
        "developer": model.provider,
        "additional_details": {
            "deployment_type": "self_deployed" if model.type == "baseline" else "unknown",
            "model_availability": "unknown",
            "benchtoward_slug": model.slug,
            "model_type": model.type,
        },
    }


def record(registry: Registry, result: Result, model: Model, task: Task) -> dict[str, Any]:
    """The aggregate record as a plain dict, key order as the schema lists it."""
    versions = orjson.loads(result.versions_json)
    return {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": f"{task.ref}/{model_id(model)}/{epoch(result.created_at)}",
        "evaluation_timestamp": result.eval_date,
        "retrieved_timestamp": epoch(result.created_at),
        "source_metadata": {
            "source_name": "BenchToward",
            "source_type": "evaluation_run",
            "source_organization_name": "BenchToward",
            "source_organization_url": registry.url("/"),
            "evaluator_relationship": "first_party" if result.tier == "official" else "third_party",
            "additional_details": strings(
                {
                    "run_id": result.run_id,
                    "run_key": result.run_key,
                    "spec_hash": result.spec_hash,
                    "task": task.ref,
                    "tier": result.tier,
                    "status": result.status,
                    "partial": str(result.partial).lower(),
                    "demo": str(task.demo).lower(),
                    "license": RESULTS_LICENSE,
                    "result_url": registry.result_url(result.run_id),
                    "predictions_url": registry.predictions_url(result.run_id),
                    "predictions_sha256": result.predictions_sha256,
                    "bibtex": detail(registry, result).bibtex,  # written for this deployment's public URL
                }
            ),
        },
        "eval_library": {
            "name": "benchtoward",
            "version": HARNESS_VERSION,
            "additional_details": strings({"packages": versions.get("packages", {})}),
        },
        "model_info": model_info(model),
        "evaluation_results": metric_results(registry, result, task),
    }


def parts(registry: Registry, run_id: str) -> tuple[Result, Model, Task]:
    result = stored_result(registry, run_id)
    model = model_store.get_model(registry.store, result.model_slug)
    task = task_store.get_task(registry.store, result.task_slug, result.task_version)
    if model is None or task is None:  # foreign keys make this unreachable; say so rather than crash
        raise LookupError(f"result {run_id} names a missing model or task")
    return result, model, task


async def export_eee(registry: Registry, query: ExportResultQuery) -> EveryEvalEverRecord:
    """Use to carry a result into the Every Eval Ever format (schema 0.3.0): model, harness and version, every
    metric with its 95% bootstrap interval (method, replicates, unit), run key, spec hash, BibTeX and licence."""
    result, model, task = parts(registry, query.run_id)
    return EveryEvalEverRecord.model_validate(record(registry, result, model, task))
