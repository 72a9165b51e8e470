"""Results files of an evaluation harness, pasted into a text or read as one: lm-evaluation-harness writes
`{"results": {task: {metric: value, metric_stderr: ...}}, "versions": {...}, "config": {"model_args":
"pretrained=..."}}` (bloom176b_pubmedqa_lm_eval_results_json.md; newer versions write "acc,none"). Each metric of
each task is one claim; standard errors, versions, sample counts and settings are not results, so the numbers of
the JSON are not read again as prose.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evaluator.papers.names import models_in
from evaluator.papers.record import ExtractedClaim
from evaluator.papers.vocabulary import canonical_metric, read_value

_RESULTS_KEY = re.compile(r'\{\s{0,40}"results"\s{0,4}:\s{0,4}\{')
# the results object on its own, as a dataset viewer shows a results file's "results" column ('{"medmcqa":
# {"acc,none": 0.4145, ...}}': biomistral_7b_bnb8_medmcqa_test_results_viewer.md): task objects keyed by the
# harness's metric names
_TASKS_OBJECT = re.compile(
    r'\{\s{0,40}"[\w.-]{1,80}"\s{0,4}:\s{0,4}\{\s{0,40}"(?:alias"\s{0,4}:\s{0,4}"[^"]{0,80}",\s{0,40}")?'
    r'(?:acc|acc_norm|exact_match|f1|mc1|mc2|bleu|rouge\w*)(?:,[\w-]{1,30})?"\s{0,4}:'
)
_MODEL_NAME = re.compile(r'"model_name"\s{0,4}:\s{0,4}"([^"\s]{2,200})"|pretrained=([^,\s"]{1,200})')
MAX_JSON = 2_000_000
MAX_OBJECTS = 8
_NOT_A_METRIC = re.compile(r"stderr|_std\b|alias|samples|^n$|count|version", re.I)
# what a harness's "model" key holds when it names the backend, not the model ("hf", "vllm"), and other non-names
NOT_A_MODEL = re.compile(r"^(?:hf|hf-auto|hf-causal|vllm|openai|true|false|none|null|\d.*)$", re.I)
_PRETRAINED = re.compile(r"pretrained=([^,\s]{1,200})")


# a file view copied as a one-column table: a bar alone on each line between the file's lines, or closing each line
# ('"acc,none": 0.742, |', '"results": { | |': llama3_openbiomed_8b_slerp_*_results_json_blame.md,
# collaiborator_medllm_*_results_json_blob.md). JSON has no bar at a line's start or end outside a string, and no
# string crosses a line, so such a bar is the page's, never the file's
_CELL_BAR = re.compile(r"(?m)^[ \t]*(?:\|[ \t]*)+|(?:\|[ \t]*)+$")
# and a diff view's gutter: each line number, "+" or "-" on a line of its own (gpt2_demo_*_results_json_commit_diff.md)
_GUTTER_LINE = re.compile(r"(?m)^[ \t]*(?:\d{1,6}[ \t]*\|?|[+-])[ \t]*$")


def results_json(text: str) -> tuple[list[ExtractedClaim], str]:
    """The claims of every harness results object in `text`, and the text with those objects blanked out."""
    claims: list[ExtractedClaim] = []
    decoder = json.JSONDecoder()
    rest = text
    # the objects are found and decoded in a view of the text without the bars of a copied file view (each bar a
    # space, so that places in the view are places in the text); what is blanked out is blanked in the text itself
    view = _CELL_BAR.sub(_spaces, text) if '"' in text and "|" in text else text
    if len(_GUTTER_LINE.findall(view, 0, 200_000)) >= 3:
        view = _GUTTER_LINE.sub(_spaces, view)
    searched = 0
    for _ in range(MAX_OBJECTS):
        match = _RESULTS_KEY.search(view, searched)
        if match is None:
            bare, (start, end) = _bare_results(decoder, view)
            claims += bare
            rest = rest[:start] + " " * (end - start) + rest[end:]
            break
        found, end = _decoded(decoder, view[: match.start() + MAX_JSON], match)
        if found is None:  # not JSON here (a diff's removed lines): the next "results" may be (its added lines)
            searched = match.end()
            continue
        claims += _claims(found, view[match.start() : end], view[: match.start()])
        rest = rest[: match.start()] + " " * (end - match.start()) + rest[end:]
        view = view[: match.start()] + " " * (end - match.start()) + view[end:]
    return claims, rest


def _spaces(found: re.Match[str]) -> str:
    return " " * len(found.group())


def _decoded(decoder: json.JSONDecoder, text: str, match: re.Match[str]) -> tuple[Any, int]:
    """The results object at `match` and where it ends; when the object is cut off (a stored excerpt, a paste that
    stops in its "config": medllama3_v16_lm_eval_results_json_raw.md) its "results" member alone, with the model
    its config names in what is left ("pretrained=..."), else (None, 0)."""
    try:
        return decoder.raw_decode(text, match.start())
    except (ValueError, RecursionError):  # cut off, not JSON, or nested deeper than the decoder goes
        pass
    try:
        results, end = decoder.raw_decode(text, match.end() - 1)
    except (ValueError, RecursionError):
        results, end = _whole_members(decoder, text, match.end())
        if not results:
            return None, 0
    found: dict[str, Any] = {"results": results}
    named = _PRETRAINED.search(text, end, end + 20_000)
    if named:
        found["config"] = {"model_args": named.group(0)}
    return found, len(text) if named is None else named.end()


_MEMBER = re.compile(r'\s{0,40}"([^"\n]{1,200})"\s{0,4}:\s{0,4}')
_NEXT = re.compile(r"\s{0,40},")


def _whole_members(decoder: json.JSONDecoder, text: str, start: int) -> tuple[dict[str, Any], int]:
    """The members of an object cut off before its end (a stored copy that stops inside a task:
    llama3_openbiomed_8b_dare_ties_*_results_json_blame.md): each task whose object is whole, and where the last
    one ends."""
    members: dict[str, Any] = {}
    end = start
    while len(members) < 10_000 and (key := _MEMBER.match(text, end)):
        try:
            value, after = decoder.raw_decode(text, key.end())
        except (ValueError, RecursionError):
            break
        members[key.group(1)] = value
        end = after
        comma = _NEXT.match(text, end)
        if comma is None:
            break
        end = comma.end()
    return members, end


def _bare_results(decoder: json.JSONDecoder, text: str) -> tuple[list[ExtractedClaim], tuple[int, int]]:
    """The claims of a results object shown without its "results" key, the model named anywhere in the text, and
    where the object is written."""
    match = _TASKS_OBJECT.search(text)
    if match is None:
        return [], (0, 0)
    try:
        results, end = decoder.raw_decode(text[: match.start() + MAX_JSON], match.start())
    except (ValueError, RecursionError):
        return [], (0, 0)
    named = _MODEL_NAME.search(text)
    config = {"model_name": named.group(1) or named.group(2)} if named else {}
    found = {"results": results, "config": config}
    return _claims(found, text[match.start() : end], text[: match.start()]), (match.start(), end)


def _claims(found: Any, written: str, before: str) -> list[ExtractedClaim]:
    results = found.get("results") if isinstance(found, dict) else None
    if not isinstance(results, dict):
        return []
    model = _model_of(found, before)
    claims = []
    for task, metrics in results.items():
        if not isinstance(metrics, dict):
            continue
        seen: set[float] = set()  # "acc_norm" equal to "acc" is the same result written twice (medqa_4options)
        for key, value in metrics.items():
            name = str(key).split(",", 1)[0]
            if _NOT_A_METRIC.search(name) or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if value in seen:
                continue
            seen.add(value)
            metric = canonical_metric(name)
            reading = read_value(repr(value), metric=metric)
            if reading is None or reading.value is None:
                continue
            claims.append(
                ExtractedClaim(
                    model=model,
                    dataset=str(task)[:200],
                    metric=metric,
                    value=reading.value,
                    raw_value=repr(value)[:100],
                    unit=reading.unit,
                    evidence=written[:600],
                    notes=["read from an evaluation harness's results JSON"],
                )
            )
    return claims


def _model_of(found: dict[str, Any], before: str) -> str | None:
    """The model a results object names (its "model_name", or "pretrained=" in its config's model_args), else the
    last model named in the text before it ("evaluation-results / bloom176b / ... .json")."""
    config = found.get("config")
    places: list[dict[str, Any]] = [found, config] if isinstance(config, dict) else [found]
    for where in places:
        for key in ("model_name", "model"):
            value = where.get(key)
            if isinstance(value, str) and value.strip() and not NOT_A_MODEL.match(value):
                return value[:200]
    args = config.get("model_args") if isinstance(config, dict) else None
    pretrained = _PRETRAINED.search(args) if isinstance(args, str) else None
    if pretrained:
        return pretrained.group(1)
    paths = list(_RESULTS_PATH.finditer(before[-500:]))
    if paths:
        return f"{paths[-1].group(1)}/{paths[-1].group(2)}"
    named = models_in(before[-500:])
    return named[-1][1] if named else None


# the file's path in a results dataset, <org>/<model>/results_<time>.json, perhaps broken over lines by the page
# ("SrikanthChellappa\n/Collaiborator-MEDLLM-Llama-3-8B-v1\n/results_2024-05-18 07:06:53.372904.json":
# collaiborator_medllm_*_results_json_blob.md)
_RESULTS_PATH = re.compile(
    r"([A-Za-z0-9][\w.-]{0,95})\s{0,3}/\s{0,3}([A-Za-z0-9][\w.-]{0,95})\s{0,3}/\s{0,3}results[\w .:%-]{0,60}\.json"
)


MIN_PROSE = 20  # a JSON string shorter than this is a key's value such as an id or a date, not prose


def json_prose(text: str) -> str:
    """A text that is one JSON document (an API reply, a catalog entry, a notebook) as the prose its strings hold,
    escapes undone: '{"body": "\\n## What it measures\\n..."}' reads as its Markdown; any other text as it is."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")) or len(stripped) > MAX_JSON:
        return text
    try:
        found = json.loads(stripped)
    except (ValueError, RecursionError):
        return text
    return "\n\n".join(_strings(found)) or text


def _strings(found: Any) -> list[str]:
    pending, out = [found], []
    while pending:
        item = pending.pop()
        if isinstance(item, str) and len(item) >= MIN_PROSE:
            out.append(item)
        elif isinstance(item, dict):
            pending.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            pending.extend(reversed(item))
    return out
