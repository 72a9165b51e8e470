"""Multiple choice (`mcq`): questions with lettered options, answered by a chat model, a command or a baseline;
a reply is parsed for its letter by the spec's parser; accuracy with a cluster-bootstrap interval over the spec's
unit (questions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pyarrow as pa

from evaluator import clinicalqa, stats
from evaluator.adapters import ItemOutput
from evaluator.clinicalqa import items as item_files
from evaluator.clinicalqa.rules import DataRules
from evaluator.kinds.base import DataProblem, DataReport, Display, ItemText, Source, TaskKind
from evaluator.predictions import instance_set_hash
from evaluator.runner import Computation, Prompt, bootstrap
from evaluator.specs import TaskSpec

MCQ_SCHEMA = pa.schema(
    [
        pa.field("instance_id", pa.string(), nullable=False),
        pa.field("unit_id", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),
        pa.field("prediction", pa.string()),
        pa.field("correct", pa.bool_(), nullable=False),
        pa.field("parsed", pa.bool_(), nullable=False),
        pa.field("raw_output", pa.string()),
        pa.field("prompt_tokens", pa.int64()),
        pa.field("completion_tokens", pa.int64()),
        pa.field("latency_ms", pa.float64()),
    ]
)


@dataclass(frozen=True)
class Questions:
    """The questions to score (ascending instance id, cut to --limit) and whether they are the declared set."""

    instances: list[clinicalqa.Instance]
    complete: bool

    def instance_ids(self) -> list[str]:
        return [i.instance_id for i in self.instances]


def questions(source: Source) -> list[clinicalqa.Instance]:
    assert isinstance(source, Questions)
    return source.instances


class MultipleChoice(TaskKind):
    name = "mcq"
    display = Display("multiple choice", frozenset({"items", "categories"}))
    schema = MCQ_SCHEMA
    output_field = "answer"
    compared_column = "correct"
    model_type = "llm"
    baselines = MappingProxyType(
        {
            "baseline/majority": "Most common answer (reference split)",
            "baseline/random": "Uniform random letter (seeded)",
        }
    )

    @property
    def answers_chat(self) -> bool:
        return True

    def default_data(self, spec: TaskSpec) -> Path | None:
        return clinicalqa.default_data_path(spec)

    def item_texts(self, spec: TaskSpec, category_field: str | None) -> dict[str, ItemText]:
        path = clinicalqa.default_data_path(spec)
        if path is None or not path.exists():
            return {}
        rules = DataRules.from_spec(spec)
        files = item_files.find_data_files(path, rules.split, [f.path for f in rules.files])
        texts = {}
        for record in item_files.select_records(item_files.read_records(files), rules.where):
            item = item_files.parse_item(record, rules.id_fields)
            category = record.fields.get(category_field) if category_field else None
            texts[item.instance_id] = ItemText(
                question=item.question,
                exam=item.exam,
                options=tuple(item.options),
                category=str(category).strip() or None if category is not None else None,
            )
        return texts

    def open(self, data: Path, spec: TaskSpec, *, limit: int | None, allow_partial: bool) -> Questions:
        try:
            loaded = clinicalqa.load_instances(data, spec, allow_partial=allow_partial)
        except clinicalqa.DataMismatch as mismatch:
            raise DataProblem(
                f"the data differs from {spec.task} (use --allow-partial to run it anyway): "
                f"{mismatch.report.describe()}"[:4000]
            ) from None
        except (clinicalqa.DataError, OSError, ValueError) as error:
            raise DataProblem(f"cannot read {spec.task} data at {data}: {error}"[:2000]) from None
        return Questions(list(loaded.instances)[:limit], loaded.report.ok)

    def check(self, data: Path, spec: TaskSpec, *, deep: bool) -> DataReport:
        items = clinicalqa.check_data(data, spec)
        return DataReport(
            items.ok,
            [f"{d.kind}: {d.message}" for d in items.differences],
            [f"{items.n_items} items; instance set sha256 {items.instance_set_sha256}"],
        )

    def baseline_outputs(self, slug: str, source: Source, spec: TaskSpec, run_key: str) -> dict[str, ItemOutput]:
        ids = source.instance_ids()
        if slug == "baseline/majority":
            answers = clinicalqa.predict_majority(ids, clinicalqa.fit_majority_for(spec))
        else:
            answers = clinicalqa.predict_random(ids, run_key)
        return {i: ItemOutput(answer=answers[i]) for i in ids}

    def command_inputs(self, source: Source, spec: TaskSpec, wanted: set[str]) -> list[dict[str, Any]]:
        return [
            {"instance_id": i.instance_id, "messages": i.messages, "options": list(i.options)}
            for i in questions(source)
            if i.instance_id in wanted
        ]

    def chat_prompts(self, source: Source) -> Sequence[Prompt]:
        return questions(source)

    def score(self, source: Source, outputs: Mapping[str, ItemOutput], spec: TaskSpec, run_key: str) -> Computation:
        """Parse each output with the spec's parser and score it; unparsable answers count as wrong."""
        instances = questions(source)
        columns: dict[str, list[Any]] = {name: [] for name in MCQ_SCHEMA.names}
        for instance in instances:
            output = outputs[instance.instance_id]
            text = output.raw_output if output.raw_output is not None else output.answer
            scored = clinicalqa.score_output(text, instance)
            for name, value in (
                ("instance_id", instance.instance_id),
                ("unit_id", instance.unit_id),
                ("label", instance.label),
                ("prediction", scored.prediction),
                ("correct", scored.correct),
                ("parsed", scored.parsed),
                ("raw_output", output.raw_output),
                ("prompt_tokens", output.prompt_tokens),
                ("completion_tokens", output.completion_tokens),
                ("latency_ms", output.latency_ms),
            ):
                columns[name].append(value)
        correct = np.array(columns["correct"], dtype=bool)
        return Computation(
            columns=columns,
            metrics=bootstrap(spec, run_key, columns["unit_id"], correct=correct),
            n=len(instances),
            n_units=len(set(columns["unit_id"])),
            parse_rate=float(np.mean(columns["parsed"])) if instances else None,
            prompt_tokens=sum(t or 0 for t in columns["prompt_tokens"]),
            completion_tokens=sum(t or 0 for t in columns["completion_tokens"]),
            instance_set_hash=instance_set_hash(columns["instance_id"]),
        )

    def point_metrics(self, table: pa.Table) -> dict[str, float | None]:
        return {"accuracy": stats.accuracy(table.column("correct").to_numpy(zero_copy_only=False))}

    def paired_arrays(self, labels: pa.ChunkedArray, values: np.ndarray) -> dict[str, np.ndarray]:
        return {"correct": values.astype(bool)}
