"""A result written as files of other tools' formats: Every Eval Ever's `data/` tree (aggregate JSON and instance
JSONL) and a Hugging Face `.eval_results/*.yaml` entry. `benchtoward export-result RUN_ID DIR --format eee|hf`.

Instance records come from the stored predictions file, one per scored item. Item text is written only for data
that ships with BenchToward (see tools.exports); elsewhere `input.raw` is empty and the aggregate record's
`detailed_evaluation_results.additional_details.item_text` says why.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import orjson
import pyarrow.parquet as pq
import yaml

from evaluator.specs import TaskSpec
from store.models import Model
from store.results import Result
from store.tasks import Task
from tools.errors import Conflict
from tools.exports import EEE_SCHEMA_VERSION, HF_DATASET_PREFIX, dataset_of, model_id, parts, record, record_uuid
from tools.registry import Registry

ExportFormat = Literal["eee", "hf"]
WITHHELD = "withheld: {name} is not shipped with BenchToward; its items stay with the distributor under {license}"


def item_texts(registry: Registry, task: Task) -> dict[str, tuple[str, tuple[str, ...]]] | None:
    """Question text and options by instance id, for data that ships in this repository (its kind reads them)."""
    spec = TaskSpec.model_validate(orjson.loads(task.spec_json))
    kind = registry.kinds.get(spec.kind)
    texts = kind.item_texts(spec, None) if kind is not None else {}
    return {instance_id: (t.question, t.options) for instance_id, t in texts.items()} or None


def mcq_record(row: dict[str, Any], text: tuple[str, tuple[str, ...]] | None) -> dict[str, Any]:
    raw_output = row.get("raw_output")
    extracted = row.get("prediction") or ""
    instance: dict[str, Any] = {
        "input": {
            "raw": text[0] if text else "",
            "reference": [row["label"]],
            "choices": [f"{letter}. {option}" for letter, option in zip("ABCDE", text[1], strict=False)]
            if text
            else None,
        },
        "output": {"raw": [raw_output if raw_output is not None else extracted]},
        "answer_attribution": [
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": extracted,
                "extraction_method": "mcq-letter v1" if row.get("parsed") else "unparsed",
                "is_terminal": True,
            }
        ],
        "evaluation": {"score": 1.0 if row["correct"] else 0.0, "is_correct": bool(row["correct"])},
    }
    if row.get("prompt_tokens") is not None and row.get("completion_tokens") is not None:
        used = int(row["prompt_tokens"]), int(row["completion_tokens"])
        instance["token_usage"] = {"input_tokens": used[0], "output_tokens": used[1], "total_tokens": sum(used)}
    if row.get("latency_ms") is not None:
        instance["performance"] = {"latency_ms": float(row["latency_ms"])}
    return instance


def binary_record(row: dict[str, Any]) -> dict[str, Any]:
    score, label = float(row["score"]), int(row["label"])
    return {
        "input": {"raw": f"prediction window {row['instance_id']} of case {row['unit_id']}", "reference": [str(label)]},
        "output": {"raw": [repr(score)]},
        "answer_attribution": [
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": repr(score),
                "extraction_method": "risk score",
                "is_terminal": True,
            }
        ],
        # is_correct is required by the schema; for a risk score it is score >= 0.5 against the label, while the
        # reported metrics (AUROC, AUPRC) use no threshold.
        "evaluation": {"score": score, "is_correct": (score >= 0.5) == bool(label)},
    }


def instances(registry: Registry, result: Result, model: Model, task: Task, evaluation_id: str) -> Iterator[str]:
    """The instance JSONL lines of a result, in the predictions file's order."""
    texts = item_texts(registry, task)
    table = pq.read_table(registry.predictions_path(result.predictions_path))
    for row in table.to_pylist():
        body = binary_record(row) if "score" in row else mcq_record(row, (texts or {}).get(row["instance_id"]))
        raw, reference = body["input"]["raw"], body["input"]["reference"]
        line = {
            "schema_version": EEE_SCHEMA_VERSION,
            "evaluation_id": evaluation_id,
            "model_id": model_id(model),
            "evaluation_name": task.ref,
            "evaluation_result_id": f"{result.run_id}/{result.primary_metric}",
            "sample_id": row["instance_id"],
            "sample_hash": hashlib.sha256((raw + "\n".join(reference)).encode()).hexdigest() if raw else None,
            "interaction_type": "single_turn",
            **body,
        }
        yield orjson.dumps(line).decode()


def write_text(path: Path, text: str) -> None:
    """Write a file whole or not at all (a temporary sibling moved into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def eee_paths(result: Result, model: Model, task: Task) -> tuple[str, str]:
    """Every Eval Ever's layout: data/<benchmark>/<developer>/<model>/<uuid>.json and <uuid>_samples.jsonl."""
    name = model_id(model).split("/")[-1]
    folder = f"data/{task.slug}/{model.provider}/{name}"
    uuid = record_uuid(result)
    return f"{folder}/{uuid}.json", f"{folder}/{uuid}_samples.jsonl"


def write_eee(registry: Registry, run_id: str, directory: Path) -> list[Path]:
    result, model, task = parts(registry, run_id)
    aggregate = record(registry, result, model, task)
    aggregate_path, samples_path = eee_paths(result, model, task)
    text = "\n".join(instances(registry, result, model, task, aggregate["evaluation_id"])) + "\n"
    dataset = dataset_of(registry, task)
    shipped = item_texts(registry, task) is not None
    aggregate["detailed_evaluation_results"] = {
        "format": "jsonl",
        "file_path": samples_path,
        "hash_algorithm": "sha256",
        "checksum": hashlib.sha256(text.encode()).hexdigest(),
        "total_rows": text.count("\n"),
        "additional_details": {
            "item_text": "included (shipped with BenchToward)"
            if shipped
            else WITHHELD.format(name=dataset.name, license=dataset.license)
        },
    }
    write_text(directory / samples_path, text)
    write_text(directory / aggregate_path, orjson.dumps(aggregate, option=orjson.OPT_INDENT_2).decode() + "\n")
    return [directory / aggregate_path, directory / samples_path]


def hf_entry(registry: Registry, result: Result, model: Model, task: Task) -> dict[str, Any]:
    """One `.eval_results` entry (Hugging Face's model-page format) for the result's primary metric."""
    dataset = dataset_of(registry, task)
    if not dataset.source.startswith(HF_DATASET_PREFIX):
        raise Conflict(
            f"{dataset.name} is not a Hugging Face dataset, and .eval_results entries must name one; "
            "use --format eee, or cite the result page"
        )
    metrics = {metric["name"]: metric for metric in orjson.loads(result.metrics_json)["metrics"]}
    primary = metrics[result.primary_metric]
    interval = (
        f"95% bootstrap CI {primary['ci_low']:.4f}-{primary['ci_high']:.4f}" if primary["ci_low"] is not None else ""
    )
    return {
        "dataset": {"id": dataset.source.removeprefix(HF_DATASET_PREFIX).strip("/"), "task_id": task.ref},
        "value": primary["value"],
        "date": result.eval_date,
        "source": {"url": registry.result_url(result.run_id), "name": f"BenchToward result {result.run_id}"},
        "notes": f"{result.primary_metric} on a 0-1 scale, n={result.n}; {interval}; spec {result.spec_hash[:12]}; "
        f"tier {result.tier}; licence {'CC BY 4.0'}",
    }


def write_hf(registry: Registry, run_id: str, directory: Path) -> list[Path]:
    result, model, task = parts(registry, run_id)
    entry = hf_entry(registry, result, model, task)
    path = directory / ".eval_results" / f"{task.slug}.yaml"
    write_text(path, yaml.safe_dump([entry], sort_keys=False, allow_unicode=True))
    return [path]


async def export_result(registry: Registry, run_id: str, directory: Path, form: ExportFormat) -> list[Path]:
    """Write a result as files of another tool's format into `directory`; return the paths written."""
    writer = write_eee if form == "eee" else write_hf
    return await asyncio.to_thread(writer, registry, run_id, directory)
