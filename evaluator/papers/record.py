"""The structured record of what a paper or model card says: models, claims, identifiers, dataset facts.

`Extraction` is what an extractor reads from a text (its JSON schema is what the LLM extractor asks for).
`PaperRecord` is an extraction after the deterministic mapping step: every claim carries the BenchToward
task it maps to, or `null`, and the reason either way.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

NOT_RELEASED = "not released"

Unit = Literal["fraction", "score", "count"]
ModelRole = Literal["subject", "comparator"]

_STRICT = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, str_strip_whitespace=True)


class ModelInfo(BaseModel):
    """A model the text releases or announces (`subject`) or reports numbers for (`comparator`)."""

    model_config = _STRICT

    name: str = Field(min_length=1, max_length=200, description="The model's name as the text writes it.")
    role: ModelRole = Field(
        default="subject",
        description="subject: the model this text releases or announces; comparator: another one it reports.",
    )
    provider: str | None = Field(default=None, max_length=300, description="Who built it, as stated.")
    weights: str | None = Field(
        default=None,
        max_length=300,
        description='Where the weights are: a Hugging Face URL or repo id; "not released" when the text '
        "announces the model but points to no weights; null when the text does not say.",
    )
    base_model: str | None = Field(default=None, max_length=200, description="The model it was fine-tuned from.")
    license: str | None = Field(default=None, max_length=200, description="Licence of the weights, as stated.")
    evidence: str | None = Field(default=None, max_length=2000, description="Text the model was read from.")


class ExtractedClaim(BaseModel):
    """One reported number (or a result stated without one) for one model on one dataset."""

    model_config = _STRICT

    model: str | None = Field(default=None, max_length=200, description="The model the number is about.")
    dataset: str | None = Field(default=None, max_length=300, description="Dataset or exam, as named.")
    task_variant: str | None = Field(
        default=None,
        max_length=500,
        description="Subset, exam year, event definition or horizon (e.g. 'doctor', '2025').",
    )
    metric: str | None = Field(default=None, max_length=100, description="e.g. accuracy, auroc, auprc, score.")
    value: float | None = Field(
        default=None,
        description="The number, normalised: percentages become fractions (76.78% -> 0.7678); scores stay as "
        "written. null when the text gives no number. Never guessed.",
    )
    raw_value: str | None = Field(default=None, max_length=100, description="The number exactly as written.")
    unit: Unit | None = Field(
        default=None,
        description="fraction (0..1), score (as written, e.g. out of 100), count; null if unknown.",
    )
    setting: str | None = Field(default=None, max_length=200, description="e.g. 5-shot, zero-shot, CoT.")
    ci: list[float] | None = Field(
        default=None,
        min_length=2,
        max_length=2,
        description="The confidence interval [low, high] the text gives for the value, in the value's unit.",
    )
    evidence: str = Field(min_length=1, max_length=2000, description="The sentence or table row it came from.")
    notes: list[str] = Field(default_factory=list, max_length=20, description="Caveats found while reading.")


class TaskMapping(BaseModel):
    """The BenchToward task a claim maps to, or null, with the reason a maintainer can check."""

    model_config = _STRICT

    task: str | None = Field(description='A task reference such as "clinicalqa@0", or null.')
    reason: str = Field(min_length=1, description="Why it maps, or why not.")
    catalog_id: str | None = Field(
        default=None,
        description="When it maps to none of our tasks: the benchmark catalog entry of the benchmark it is about.",
    )


class Claim(ExtractedClaim):
    """A claim with its task mapping (added by the deterministic mapping step, never by an LLM)."""

    mapping: TaskMapping


class Identifiers(BaseModel):
    """Identifiers found anywhere in the text."""

    model_config = _STRICT

    arxiv: list[str] = Field(default_factory=list, description="arXiv ids, e.g. 2403.01469v3.")
    dois: list[str] = Field(default_factory=list, description="DOIs, e.g. 10.21203/rs.3.rs-8666700/v1.")
    hf_models: list[str] = Field(default_factory=list, description="Hugging Face model repo ids (org/name).")
    hf_datasets: list[str] = Field(default_factory=list, description="Hugging Face dataset repo ids.")


class DatasetFact(BaseModel):
    """What the text says about a dataset it presents or uses (size, where it is published)."""

    model_config = _STRICT

    name: str = Field(min_length=1, max_length=200)
    items: int | None = Field(default=None, ge=0, description="Number of items, when stated.")
    item_unit: str | None = Field(default=None, max_length=50, description="What an item is, e.g. questions.")
    hub: str | None = Field(default=None, max_length=300, description="Where it is published (a URL or repo id).")
    evidence: str | None = Field(default=None, max_length=2000)


class Extraction(BaseModel):
    """What an extractor reads from one text, before the mapping step."""

    model_config = _STRICT

    models: list[ModelInfo] = Field(default_factory=list)
    claims: list[ExtractedClaim] = Field(default_factory=list)
    identifiers: Identifiers = Field(default_factory=Identifiers)
    datasets: list[DatasetFact] = Field(default_factory=list)


class PaperRecord(BaseModel):
    """The structured record of one paper or model card, with every claim mapped (or not) to a task."""

    model_config = _STRICT

    source: str = Field(description="File name or label of the text that was read.")
    extractor: str = Field(description='"rules" or "llm:<model id>".')
    models: list[ModelInfo] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    identifiers: Identifiers = Field(default_factory=Identifiers)
    datasets: list[DatasetFact] = Field(default_factory=list)
