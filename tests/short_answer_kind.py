"""A third task kind, used only by the tests: short free-text answers scored by exact match after normalisation.

It exists to prove that a new kind is one module plus its spec files (tests/data/kinds/): it implements
evaluator.kinds.TaskKind and nothing in server/, web/, tools/ or evaluator/ names it. Tests hand it to the harness
explicitly (`Registry(kinds=with_kinds(ShortAnswer()))`, `build_app(settings, kinds=...)`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa

from evaluator import stats
from evaluator.adapters import ItemOutput
from evaluator.kinds import DataProblem, DataReport, Display, Source, TaskKind
from evaluator.predictions import instance_set_hash
from evaluator.runner import Computation, Prompt, bootstrap
from evaluator.specs import TaskSpec

SCHEMA = pa.schema(
    [
        pa.field("instance_id", pa.string(), nullable=False),
        pa.field("unit_id", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),
        pa.field("prediction", pa.string()),
        pa.field("correct", pa.bool_(), nullable=False),
        pa.field("parsed", pa.bool_(), nullable=False),
        pa.field("raw_output", pa.string()),
    ]
)
SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Question:
    instance_id: str
    unit_id: str
    question: str
    answer: str

    @property
    def messages(self) -> list[dict[str, str]]:
        return [{"role": "user", "content": f"Answer in a few words, nothing else.\n\n{self.question}"}]


@dataclass(frozen=True)
class Questions:
    questions: list[Question]
    complete: bool

    def instance_ids(self) -> list[str]:
        return [q.instance_id for q in self.questions]


def normalise(text: str) -> str:
    folded = SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()
    return folded.removesuffix(".").strip()


def matches(reply: str | None, gold: str) -> bool:
    """Exact match after normalisation; a unit the gold answer ends with ("140 mg") may be left out."""
    if reply is None:
        return False
    said, wanted = normalise(reply), normalise(gold)
    return said == wanted or (" " in wanted and said == wanted.rsplit(" ", 1)[0])


def read_questions(data: Path, spec: TaskSpec) -> list[Question]:
    fields = (spec.model_extra or {})["instances"]["fields"]
    path = data / str(spec.dataset["file"]) if data.is_dir() else data
    try:
        rows = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
        found = [
            Question(str(r[fields["id"]]), str(r[fields["unit"]]), str(r[fields["question"]]), str(r[fields["answer"]]))
            for r in rows
        ]
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as error:
        raise DataProblem(f"cannot read {spec.task} data at {data}: {error}"[:2000]) from None
    if len({q.instance_id for q in found}) != len(found):
        raise DataProblem(f"cannot read {spec.task} data at {data}: instance ids repeat")
    return sorted(found, key=lambda q: q.instance_id)


def differences(found: list[Question], spec: TaskSpec) -> list[str]:
    expected_n, expected_hash = spec.dataset.get("expected_items"), spec.dataset.get("instance_set_sha256")
    ids = [q.instance_id for q in found]
    problems = []
    if expected_n is not None and len(ids) != expected_n:
        problems.append(f"count: {len(ids)} items, the spec declares {expected_n}")
    if expected_hash is not None and instance_set_hash(ids) != expected_hash:
        problems.append("instance_set: the items' ids differ from the spec's instance set")
    return problems


def questions(source: Source) -> list[Question]:
    assert isinstance(source, Questions)
    return source.questions


class ShortAnswer(TaskKind):
    name = "short_answer"
    display = Display("short answer, exact match", frozenset({"items"}))
    schema = SCHEMA
    output_field = "answer"
    compared_column = "correct"
    model_type = "llm"

    @property
    def answers_chat(self) -> bool:
        return True

    def open(self, data: Path, spec: TaskSpec, *, limit: int | None, allow_partial: bool) -> Questions:
        found = read_questions(data, spec)
        problems = differences(found, spec)
        if problems and not allow_partial:
            raise DataProblem(f"the data differs from {spec.task} (use --allow-partial): {'; '.join(problems)}")
        return Questions(found[:limit], not problems)

    def check(self, data: Path, spec: TaskSpec, *, deep: bool) -> DataReport:
        try:
            found = read_questions(data, spec)
        except DataProblem as problem:
            return DataReport(False, [str(problem)], [])
        problems = differences(found, spec)
        return DataReport(not problems, problems, [f"{len(found)} items"])

    def command_inputs(self, source: Source, spec: TaskSpec, wanted: set[str]) -> list[dict[str, Any]]:
        return [
            {"instance_id": q.instance_id, "question": q.question} for q in questions(source) if q.instance_id in wanted
        ]

    def chat_prompts(self, source: Source) -> Sequence[Prompt]:
        return questions(source)

    def score(self, source: Source, outputs: Mapping[str, ItemOutput], spec: TaskSpec, run_key: str) -> Computation:
        found = questions(source)
        replies = [outputs[q.instance_id].raw_output for q in found]
        correct = [matches(reply, q.answer) for reply, q in zip(replies, found, strict=True)]
        columns: dict[str, list[Any]] = {
            "instance_id": [q.instance_id for q in found],
            "unit_id": [q.unit_id for q in found],
            "label": [q.answer for q in found],
            "prediction": [normalise(r) if r is not None else None for r in replies],
            "correct": correct,
            "parsed": [r is not None and bool(r.strip()) for r in replies],
            "raw_output": replies,
        }
        return Computation(
            columns=columns,
            metrics=bootstrap(spec, run_key, columns["unit_id"], correct=np.array(correct, dtype=bool)),
            n=len(found),
            n_units=len(set(columns["unit_id"])),
            parse_rate=float(np.mean(columns["parsed"])) if found else None,
            prompt_tokens=0,
            completion_tokens=0,
            instance_set_hash=instance_set_hash(columns["instance_id"]),
        )

    def point_metrics(self, table: pa.Table) -> dict[str, float | None]:
        return {"accuracy": stats.accuracy(table.column("correct").to_numpy(zero_copy_only=False))}

    def paired_arrays(self, labels: pa.ChunkedArray, values: np.ndarray) -> dict[str, np.ndarray]:
        return {"correct": values.astype(bool)}
