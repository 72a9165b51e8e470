"""ClinicalQA-kind tasks (`clinicalqa@0`, `clinicalqa-upstream-demo@0`): data, prompt, parser, baselines.

Pure code: no SQL, no HTTP, no store. The task spec (evaluator/specs/tasks/<task>.json) holds every rule that
can change a number; this package reads those rules from the spec and obeys them.

API for the harness::

    check_data(data_path: Path, spec: TaskSpec, *,
               expected_ids: Collection[str] | None = None) -> DataCheckReport
        # report.ok, report.differences (kind, message), report.n_items, report.instance_set_sha256,
        # report.files (path, sha256), report.as_dict(), report.describe(); never raises for bad data
    load_instances(data_path: Path, spec: TaskSpec, *, allow_partial: bool = False,
                   expected_ids: Collection[str] | None = None) -> LoadedInstances
        # .instances: tuple[Instance] sorted by instance_id, each with instance_id, unit_id,
        # label (gold letter), messages (list of {"role", "content"} for an OpenAI-compatible
        # endpoint) and options; .report: the DataCheckReport; .partial. Raises DataMismatch
        # (with .report) when the data differs from the spec, unless allow_partial (unreadable
        # data and duplicate ids always raise).
    score_output(raw_output: str | None, instance: Instance) -> ScoredAnswer
        # prediction, rule, parsed, correct
    is_correct(prediction: str | None, label: str) -> bool                   # None is always wrong
    parse_answer(text: str | None, options: Sequence[str] = ()) -> ParsedAnswer  # letter | None, rule | None
    instance_set_hash(instance_ids: Iterable[str]) -> str                    # sha256 of canonical sorted ids

    default_data_path(spec: TaskSpec) -> Path | None   # repository data of a demo task, else None
    fit_majority_for(spec: TaskSpec, data_dir: Path | None = None) -> MajorityFit  # spec.reference
    predict_majority(instance_ids: Iterable[str], fit: MajorityFit) -> dict[str, str]
    majority_config(fit: MajorityFit) -> dict[str, Any]
    predict_random(instance_ids: Iterable[str], key: str) -> dict[str, str]  # key: the run key
    random_config(key: str) -> dict[str, Any]

`PARSER_ID` / `PARSER_VERSION` (`mcq-letter`, 1) live in `parser.py`; `load_instances` refuses a spec
that names another parser. The data rules are documented in `items.py` (formats, files, fields) and
`rules.py` (the spec keys, the hash split); the prompt rendering in `prompt.py`; the parser rules in
`parser.py`; the baselines in `baselines.py`.
"""

from evaluator.clinicalqa.baselines import (
    MAJORITY_SLUG,
    RANDOM_SLUG,
    MajorityFit,
    fit_majority,
    fit_majority_for,
    majority_config,
    predict_majority,
    predict_random,
    random_config,
)
from evaluator.clinicalqa.check import DataCheckReport, Difference, check_data
from evaluator.clinicalqa.items import DataError, Item
from evaluator.clinicalqa.parser import PARSER_ID, PARSER_VERSION, RULE_IDS, ParsedAnswer, parse_answer
from evaluator.clinicalqa.prompt import PromptTemplate, build_messages, render_prompt
from evaluator.clinicalqa.rules import default_data_path
from evaluator.clinicalqa.task import (
    DataMismatch,
    Instance,
    LoadedInstances,
    ScoredAnswer,
    is_correct,
    load_instances,
    score_output,
)
from evaluator.predictions import instance_set_hash

__all__ = [
    "MAJORITY_SLUG",
    "PARSER_ID",
    "PARSER_VERSION",
    "RANDOM_SLUG",
    "RULE_IDS",
    "DataCheckReport",
    "DataError",
    "DataMismatch",
    "Difference",
    "Instance",
    "Item",
    "LoadedInstances",
    "MajorityFit",
    "ParsedAnswer",
    "PromptTemplate",
    "ScoredAnswer",
    "build_messages",
    "check_data",
    "default_data_path",
    "fit_majority",
    "fit_majority_for",
    "instance_set_hash",
    "is_correct",
    "load_instances",
    "majority_config",
    "parse_answer",
    "predict_majority",
    "predict_random",
    "random_config",
    "render_prompt",
    "score_output",
]
