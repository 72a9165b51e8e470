"""Readers of other harnesses' result files, for external evidence (tools.evidence).

- lm-eval (EleutherAI lm-evaluation-harness 0.4): `results_<date>.json` — `results[task]["<metric>,<filter>"]` with
  `"<metric>_stderr,<filter>"`, `versions`, `n-shot`, `n-samples`, `configs[task]` (dataset path, name, split);
  `samples_<task>_<date>.jsonl` — one line per document with `doc_id`, `doc` and each metric's per-item value.
- Inspect (UK AISI inspect_ai): a JSON eval log (`--log-format json`) or the default `.eval` file, a zip archive
  (members compressed with zstd) whose `header.json` holds the same `eval`/`results` and whose `samples/*.json` hold
  one sample each; both are read here without the library (zstandard inflates the members). `results.scores[]` give
  each scorer's metrics (accuracy, stderr); each sample's `scores[scorer].value` is "C"/"I" (or 1/0).

Anything else is `bad_request` naming what was expected; no file is partly stored.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
import zstandard

from tools.errors import BadRequest

LETTERS = {"C": True, "I": False}  # Inspect's CORRECT and INCORRECT values
MAX_EVAL_MEMBER_BYTES = 64 * 1024 * 1024
ZIP_ZSTD = 93  # the zip compression method number of Zstandard (APPNOTE 4.4.5)


@dataclass(frozen=True)
class MetricEvidence:
    task_name: str
    task_version: str
    dataset: str
    filter: str
    metric: str
    value: float
    stderr: float | None = None
    n_samples: int | None = None
    n_shot: int | None = None

    def fields(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass(frozen=True)
class EvidenceFile:
    harness: str
    harness_version: str
    model: str
    evaluated_at: str
    metrics: list[MetricEvidence]
    items: dict[str, list[tuple[str, bool]]] = field(default_factory=dict)  # task name → (item id, correct)


def outcome(value: Any) -> bool | None:
    """Right or wrong from a per-item score: "C"/"I", a boolean, or exactly 1/0; None for anything else."""
    if isinstance(value, str):
        return LETTERS.get(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    return None


def number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def iso_time(value: Any) -> str:
    if isinstance(value, int | float):
        return datetime.fromtimestamp(float(value), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(value or "")


def load_json(name: str, content: bytes) -> dict[str, Any]:
    try:
        data = orjson.loads(content)
    except orjson.JSONDecodeError as error:
        raise BadRequest(f"{name} is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise BadRequest(f"{name} is JSON but not an object")
    return data


def read_evidence_file(name: str, content: bytes, samples: bytes | None = None) -> EvidenceFile:
    """Tell the format by content, then read it."""
    if content[:4] == b"PK\x03\x04":
        return read_inspect(name, inspect_archive(name, content))
    data = load_json(name, content)
    if isinstance(data.get("results"), dict) and "configs" in data:
        return read_lm_eval(data, samples)
    if isinstance(data.get("eval"), dict) and "results" in data:
        return read_inspect(name, data)
    raise BadRequest(f"{name} is neither an lm-eval results file nor an Inspect eval log")


def lm_eval_metrics(task: str, scores: dict[str, Any], data: dict[str, Any]) -> Iterator[MetricEvidence]:
    config = data.get("configs", {}).get(task, {})
    dataset = ":".join(str(part) for part in (config.get("dataset_path"), config.get("dataset_name")) if part)
    dataset += f" ({config['test_split']})" if config.get("test_split") else ""
    samples = data.get("n-samples", {}).get(task, {})
    shots = data.get("n-shot", {}).get(task)
    for key, value in scores.items():
        if "," not in key or "_stderr," in key or number(value) is None:
            continue
        metric, filter_name = key.split(",", 1)
        yield MetricEvidence(
            task_name=task,
            task_version=str(data.get("versions", {}).get(task, "")),
            dataset=dataset,
            filter=filter_name,
            metric=metric,
            value=float(value),
            stderr=number(scores.get(f"{metric}_stderr,{filter_name}")),
            n_samples=samples.get("effective") if isinstance(samples, dict) else None,
            n_shot=shots if isinstance(shots, int) else None,
        )


def lm_eval_model(data: dict[str, Any]) -> str:
    """The evaluated model: `pretrained=` of the model arguments (a string in older files, a mapping in 0.4.13),
    else the file's model name, else the model type."""
    config = data.get("config") or {}
    arguments = config.get("model_args") or ""
    if isinstance(arguments, dict):
        pretrained = arguments.get("pretrained") or arguments.get("model")
    else:
        match = re.search(r"(?:^|,)\s*(?:pretrained|model)=([^,]+)", str(arguments))
        pretrained = match.group(1) if match else None
    return str(pretrained or data.get("model_name") or config.get("model") or "unknown")


def lm_eval_items(samples: bytes) -> list[tuple[str, bool]]:
    items = []
    for number_, line in enumerate(samples.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            sample = orjson.loads(line)
            metric = sample["metrics"][0]
            result = outcome(sample[metric])
        except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
            raise BadRequest(f"samples line {number_} is not an lm-eval sample with a per-item metric") from None
        if result is None:  # a non-binary metric (perplexity, BLEU): no right or wrong to compare
            continue
        doc = sample.get("doc") if isinstance(sample.get("doc"), dict) else {}
        items.append((str(doc.get("instance_id") or doc.get("id") or sample["doc_id"]), result))
    return items


def read_lm_eval(data: dict[str, Any], samples: bytes | None) -> EvidenceFile:
    metrics = [
        m
        for task, scores in data["results"].items()
        if isinstance(scores, dict)
        for m in lm_eval_metrics(task, scores, data)
    ]
    if not metrics:
        raise BadRequest("the lm-eval results file reports no numeric metric")
    version = data.get("lm_eval_version") or (f"git {data['git_hash']}" if data.get("git_hash") else "unknown")
    items: dict[str, list[tuple[str, bool]]] = {}
    if samples is not None:
        tasks = {m.task_name for m in metrics}
        if len(tasks) != 1:
            raise BadRequest(f"a samples file belongs to one task; this results file has {len(tasks)}: pass one")
        items[tasks.pop()] = lm_eval_items(samples)
    return EvidenceFile("lm-eval", str(version), lm_eval_model(data), iso_time(data.get("date")), metrics, items)


def member_bytes(content: bytes, info: zipfile.ZipInfo) -> bytes:
    """One zip member's bytes. Inspect writes `.eval` members with zstd (zip method 93), which Python's zipfile reads
    only from 3.14: read the local header here and inflate with zstandard, bounded by the declared size."""
    if info.compress_type != ZIP_ZSTD:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            return archive.read(info)
    start = info.header_offset
    if content[start : start + 4] != b"PK\x03\x04":
        raise BadRequest(f"zip member {info.filename} has no local header")
    name_length, extra_length = struct.unpack("<HH", content[start + 26 : start + 30])
    data_start = start + 30 + name_length + extra_length
    compressed = content[data_start : data_start + info.compress_size]
    try:
        return zstandard.ZstdDecompressor().decompress(compressed, max_output_size=info.file_size)
    except zstandard.ZstdError as error:
        raise BadRequest(f"zip member {info.filename} does not inflate: {error}") from None


def inspect_archive(name: str, content: bytes) -> dict[str, Any]:
    """An `.eval` log (a zip): its header with the samples folded in, as the JSON log form has them."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            members = {info.filename: info for info in archive.infolist()}
    except zipfile.BadZipFile as error:
        raise BadRequest(f"{name} is not a readable zip file: {error}") from None
    if "header.json" not in members or any(i.file_size > MAX_EVAL_MEMBER_BYTES for i in members.values()):
        raise BadRequest(f"{name} is a zip file but not an Inspect eval log (no header.json, or too large)")
    header = load_json("header.json", member_bytes(content, members["header.json"]))
    header["samples"] = [
        load_json(member, member_bytes(content, members[member]))
        for member in sorted(members)
        if member.startswith("samples/")
    ]
    return header


def inspect_items(data: dict[str, Any], scorer: str) -> list[tuple[str, bool]]:
    items = []
    for sample in data.get("samples") or []:
        result = outcome((sample.get("scores", {}).get(scorer) or {}).get("value"))
        if result is not None:
            items.append((str(sample.get("id")), result))
    return items


def read_inspect(name: str, data: dict[str, Any]) -> EvidenceFile:
    header, results = data["eval"], data.get("results") or {}
    if data.get("status") not in (None, "success"):
        raise BadRequest(f"{name} is an Inspect log of a run that ended with status {data.get('status')!r}")
    dataset = header.get("dataset") or {}
    metrics: list[MetricEvidence] = []
    items: dict[str, list[tuple[str, bool]]] = {}
    for score in results.get("scores") or []:
        values = {key: number(metric.get("value")) for key, metric in (score.get("metrics") or {}).items()}
        for metric, value in values.items():
            if value is None or metric == "stderr":
                continue
            metrics.append(
                MetricEvidence(
                    task_name=str(header.get("task")),
                    task_version=str(header.get("task_version", "")),
                    dataset=str(dataset.get("name") or dataset.get("location") or ""),
                    filter=str(score.get("name")),
                    metric=metric,
                    value=value,
                    stderr=values.get("stderr"),
                    n_samples=results.get("completed_samples"),
                )
            )
        items.setdefault(str(header.get("task")), inspect_items(data, str(score.get("name"))))
    if not metrics:
        raise BadRequest(f"{name} is an Inspect log without numeric scores")
    version = (header.get("packages") or {}).get("inspect_ai", "unknown")
    return EvidenceFile(
        "inspect", str(version), str(header.get("model")), iso_time(header.get("created")), metrics, items
    )
