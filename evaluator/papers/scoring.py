"""Scoring a reader against hand-made gold: claim precision and recall, model recall and mapping errors.

A claim matches a gold claim on model, metric and value: the model names match after normalisation (case,
punctuation, an `org/` prefix and markup ignored; one name's words contained in the other's, so "LLaMA-2" matches
"LLaMA-2 13B"); a gold model of null (an unnamed model) matches any; the metric matches its canonical name (a
gold list of names accepts any of them, a gold null any metric; "auc" and "auroc" are one); the value is equal
within the rounding of a written number. Claims the reader gives without a value are left out of precision: they
invent no number. A mapping error is a claim the reader mapped onto one of our tasks where the gold says it is
about another benchmark (every claim of the corpus is).

Used by `bench/reader_eval.py` and by the test that holds the floor the reader reached.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from evaluator.papers.record import PaperRecord
from evaluator.papers.vocabulary import canonical_metric

FRACTION_TOLERANCE = 6e-4  # a fraction written with three decimals, read from a rounded percentage
SCORE_TOLERANCE = 0.06  # a score written with one decimal
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?|[\uac00-\ud7a3]+")  # Latin words and versions, Hangul words
_SAME_METRIC = {"auc": "auroc"}


@dataclass(frozen=True)
class GoldFile:
    """The gold of one corpus file."""

    file: str
    split: str
    models: list[dict[str, Any]]
    claims: list[dict[str, Any]]


@dataclass
class FileScore:
    """How a reader did on one file."""

    file: str
    split: str
    gold_claims: int = 0
    predicted: int = 0  # predicted claims with a value
    matched: int = 0
    gold_models: int = 0
    models_found: int = 0
    mapping_errors: int = 0
    missed: list[dict[str, Any]] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    models_missed: list[str] = field(default_factory=list)


def load_gold(corpus: Path) -> list[GoldFile]:
    """The gold of every file in `corpus` (gold.jsonl), each with its split from split.json."""
    split = json.loads((corpus / "split.json").read_text(encoding="utf-8"))
    where = {name: part for part in ("dev", "test") for name in split[part]}
    rows = [json.loads(line) for line in (corpus / "gold.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return [GoldFile(row["file"], where[row["file"]], row["models"], row["claims"]) for row in rows]


@lru_cache(maxsize=8192)
def words(name: str | None) -> frozenset[str]:
    """The words of a model name: lower case, without an `org/` prefix, markup or punctuation."""
    if not name:
        return frozenset()
    name = name.strip().lower().rsplit("/", 1)[-1]
    return frozenset(_WORD.findall(name.replace("_", " ")))


def same_model(predicted: str | None, gold: str | None) -> bool:
    if gold is None:
        return True
    mine, theirs = words(predicted), words(gold)
    if bool(mine and theirs) and (mine <= theirs or theirs <= mine):
        return True
    # a model named by its initials is the same model: "RNN" and "recurrent neural network", "LR" and "logistic
    # regression" (texts write both, and gold keeps what its text wrote)
    return _initials(predicted) in theirs or _initials(gold) in mine


def _initials(name: str | None) -> str:
    parts = re.findall(r"[a-z]+", (name or "").lower())
    return "".join(part[0] for part in parts) if len(parts) >= 2 else "\0"


def same_metric(predicted: str | None, gold: str | list[str] | None) -> bool:
    if gold is None:
        return True
    options = {_metric(name) for name in ([gold] if isinstance(gold, str) else gold)}
    return predicted is not None and _metric(predicted) in options


def _metric(name: str) -> str:
    canonical = canonical_metric(name)
    return _SAME_METRIC.get(canonical, canonical)


def same_value(predicted: float, gold: float) -> bool:
    tolerance = FRACTION_TOLERANCE if abs(gold) <= 1.5 else SCORE_TOLERANCE
    return abs(predicted - gold) <= tolerance + 1e-12


def score_file(record: PaperRecord, gold: GoldFile) -> FileScore:
    """Greedy one-to-one matching of the record's claims to the gold claims, in reading order."""
    score = FileScore(gold.file, gold.split, gold_claims=len(gold.claims), gold_models=len(gold.models))
    free = list(range(len(gold.claims)))
    for claim in record.claims:
        if claim.mapping.task is not None:
            score.mapping_errors += 1  # no claim of the corpus is on one of our tasks (see PROVENANCE.md)
        if claim.value is None:
            continue
        score.predicted += 1
        hit = next((i for i in free if _matches(claim.model, claim.metric, claim.value, gold.claims[i])), None)
        if hit is None:
            score.extra.append(f"{claim.model} | {claim.metric} | {claim.value:g} | {claim.dataset}")
        else:
            free.remove(hit)
            score.matched += 1
    score.missed = [gold.claims[i] for i in free]
    names = [model.name for model in record.models]
    for model in gold.models:
        if any(same_model(name, model["name"]) for name in names):
            score.models_found += 1
        else:
            score.models_missed.append(model["name"])
    return score


def _matches(model: str | None, metric: str | None, value: float, gold: dict[str, Any]) -> bool:
    return (
        same_value(value, float(gold["value"]))
        and same_metric(metric, gold["metric"])
        and same_model(model, gold["model"])
    )


@dataclass(frozen=True)
class Totals:
    """Figures over several files (micro-averaged: every claim and model counts once)."""

    files: int
    claim_precision: float
    claim_recall: float
    model_recall: float
    mapping_errors: int
    gold_claims: int
    predicted: int
    matched: int


def totals(scores: Iterable[FileScore]) -> Totals:
    chosen = list(scores)
    predicted = sum(s.predicted for s in chosen)
    matched = sum(s.matched for s in chosen)
    gold = sum(s.gold_claims for s in chosen)
    models = sum(s.gold_models for s in chosen)
    return Totals(
        files=len(chosen),
        claim_precision=matched / predicted if predicted else 1.0,
        claim_recall=matched / gold if gold else 1.0,
        model_recall=sum(s.models_found for s in chosen) / models if models else 1.0,
        mapping_errors=sum(s.mapping_errors for s in chosen),
        gold_claims=gold,
        predicted=predicted,
        matched=matched,
    )


def in_split(scores: Sequence[FileScore], split: str) -> list[FileScore]:
    return [s for s in scores if split == "all" or s.split == split]
