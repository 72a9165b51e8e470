"""What the harness calls: a task's instances with their messages, and the scoring of one model output."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.clinicalqa.check import FATAL_KINDS, DataCheckReport, read_task_items
from evaluator.clinicalqa.items import Item
from evaluator.clinicalqa.parser import PARSER_ID, PARSER_VERSION, parse_answer
from evaluator.clinicalqa.prompt import PromptTemplate, build_messages
from evaluator.specs import TaskSpec


@dataclass(frozen=True)
class Instance:
    """One scored question: ids, gold letter, the chat messages to send, the option texts (for the parser)."""

    instance_id: str
    unit_id: str
    label: str
    messages: list[dict[str, str]]
    options: tuple[str, ...]


@dataclass(frozen=True)
class LoadedInstances:
    """The instances in a stable order (ascending instance_id) and the data-check report they came with."""

    instances: tuple[Instance, ...]
    report: DataCheckReport

    @property
    def partial(self) -> bool:
        return not self.report.ok


@dataclass(frozen=True)
class ScoredAnswer:
    """One model output scored: the parsed letter (None if unparsable), the parser rule, and correctness."""

    prediction: str | None
    rule: str | None
    parsed: bool
    correct: bool


class DataMismatch(ValueError):
    """The data does not match the spec; `report` says exactly how."""

    def __init__(self, report: DataCheckReport) -> None:
        super().__init__(report.describe())
        self.report = report


def check_parser(spec: TaskSpec) -> None:
    """Refuse a spec whose parser is not the one this code implements."""
    parser: Mapping[str, Any] = (spec.model_extra or {}).get("parser") or {}
    if (parser.get("id"), parser.get("version")) != (PARSER_ID, PARSER_VERSION):
        found = f"{parser.get('id')} v{parser.get('version')}"
        raise ValueError(f"{spec.task}: spec parser {found}; this code implements {PARSER_ID} v{PARSER_VERSION}")


def to_instance(item: Item, prompt: PromptTemplate) -> Instance:
    """An Item as the harness sees it; the unit of the bootstrap is the question itself."""
    return Instance(item.instance_id, item.instance_id, item.answer, build_messages(item, prompt), item.options)


def load_instances(
    data_path: Path,
    spec: TaskSpec,
    *,
    allow_partial: bool = False,
    expected_ids: Collection[str] | None = None,
) -> LoadedInstances:
    """The scored instances of `spec` from `data_path`, sorted by instance_id.

    Data that differs from the spec raises DataMismatch, unless `allow_partial`: then the valid items are
    returned (invalid ones skipped) and `partial` is true. Unreadable data or duplicate ids always raise.
    """
    check_parser(spec)
    prompt = PromptTemplate.from_spec(spec)
    task_items = read_task_items(data_path, spec, expected_ids=expected_ids)
    report = task_items.report
    fatal = any(difference.kind in FATAL_KINDS for difference in report.differences)
    if not report.ok and (fatal or not allow_partial):
        raise DataMismatch(report)
    return LoadedInstances(tuple(to_instance(item, prompt) for item in task_items.scored), report)


def is_correct(prediction: str | None, label: str) -> bool:
    """A parsed letter scores 1 when it equals the gold letter; None (unparsable) is always wrong."""
    return prediction is not None and prediction == label


def score_output(raw_output: str | None, instance: Instance) -> ScoredAnswer:
    """Parse a model's raw output with `mcq-letter` v1 and score it against the instance's gold letter."""
    parsed = parse_answer(raw_output, instance.options)
    return ScoredAnswer(parsed.letter, parsed.rule, parsed.parsed, is_correct(parsed.letter, instance.label))
