"""The LLM extractor: an OpenAI-compatible chat endpoint asked for JSON that validates against the
`Extraction` schema, at temperature 0, retried with the validation error fed back, then a clean failure.

The schema is sent twice over: in the instructions, and as the request's JSON-schema `response_format`, which
engines with constrained decoding (vLLM, SGLang, llama.cpp, Ollama) enforce while generating. OpenAI's form
(`{"type": "json_schema", ...}`) is asked first; an engine that refuses it (400, 422, or an error naming
`response_format`: llama-cpp-python's server answers 500 and takes only `{"type": "json_object", "schema": ...}`) is
asked in that form for the rest of the reading and by the same extractor for every later text.

The mapping of claims to tasks is not asked of the model: the same deterministic step as for the rule-based
extractor is applied to its claims. A number the model reports that appears nowhere in the text is dropped
(set to null, with a note), so a value is never invented.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from evaluator.papers.errors import ExtractionFailed, ExtractorNotConfigured, ExtractorUnavailable
from evaluator.papers.identifiers import (
    find_identifiers,
    model_name_ids,
    normalise_license,
    read_front_matter,
)
from evaluator.papers.mapping import TaskCatalog, apply_mapping
from evaluator.papers.record import ExtractedClaim, Extraction, Identifiers, PaperRecord
from evaluator.papers.vocabulary import canonical_metric

if TYPE_CHECKING:  # openai is imported when an LLM is asked: the document sandbox's child starts without it
    import openai
    from openai.types.chat import ChatCompletionMessageParam

MAX_ERROR_CHARS = 2000
_NUMBER = re.compile(r"(?<![\d.])(?:\d{1,3}(?:,\d{3}){1,4}|\d{1,12})(?:\.\d{1,12})?")

INSTRUCTIONS = """You read medical-AI papers, model cards and press texts for BenchToward, a registry of
evaluation results. Report only what the text states.
- models: each model the text releases or announces (role "subject") and each other model it reports
  numbers for (role "comparator"). weights: a Hugging Face URL or repo id when the text gives one;
  "not released" when the text announces the model but points to no weights; null when it does not say.
- claims: one per reported number (model, dataset, task_variant such as a subset or exam year, metric,
  value, raw_value exactly as written, unit, setting such as "5-shot" or "zero-shot", ci = the confidence
  interval [low, high] when one is given, evidence = the sentence or table row copied verbatim). Sample
  sizes, years, thresholds, pass marks, bounds ("over 85%"), gains ("by 19%") and people's scores are not
  claims. Percentages become fractions (76.78% -> 0.7678, unit
  "fraction"); a score such as
  96.4 out of 100 stays 96.4 with unit "score". value is null when the text gives no number. Never guess.
- identifiers: arXiv ids, DOIs, Hugging Face model and dataset repo ids found in the text.
- datasets: datasets the text presents, with their size and where they are published.
Answer with one JSON object, nothing else, that validates against this JSON schema:
"""


@dataclass(frozen=True)
class LLMConfig:
    """How to reach an OpenAI-compatible endpoint. The key is read from the environment variable named by
    `api_key_env` when the extractor is built (None: the endpoint needs no key)."""

    base_url: str
    model: str
    api_key_env: str | None = None
    max_attempts: int = 3
    timeout_s: float = 120.0
    transport_retries: int = 2
    max_text_chars: int = 60_000
    max_tokens: int = 8192


class LLMExtractor:
    """Reads a text through an LLM; see the module docstring."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        environ: Mapping[str, str] | None = None,
        catalog: TaskCatalog | None = None,
    ) -> None:
        if config.max_attempts < 1:
            raise ExtractorNotConfigured("max_attempts must be at least 1")
        environ = os.environ if environ is None else environ
        if config.api_key_env is None:
            self._api_key = "not-needed"  # local OpenAI-compatible servers ignore the key
        elif environ.get(config.api_key_env):
            self._api_key = environ[config.api_key_env]
        else:
            raise ExtractorNotConfigured(f"the environment variable {config.api_key_env} is not set")
        self.config = config
        self._catalog = catalog
        self._formats = response_formats()

    @property
    def name(self) -> str:
        return f"llm:{self.config.model}"

    async def extract(self, text: str, *, source: str) -> PaperRecord:
        extraction = checked_against_text(await self.read(text, source=source), text)
        return apply_mapping(extraction, text, source=source, extractor=self.name, catalog=self._catalog)

    async def read(self, text: str, *, source: str) -> Extraction:
        """The model's extraction, validated; retried with the error fed back up to `max_attempts` times."""
        # the form of the schema the engine took is kept for the extractor's later readings: an engine that refused
        # one form refuses it again, and the SDK retries that refusal (a 500 from llama-cpp-python) before falling back
        messages = _first_messages(text, source, self.config.max_text_chars)
        error = "no attempt made"
        import openai

        async with openai.AsyncOpenAI(
            base_url=self.config.base_url,
            api_key=self._api_key,
            timeout=self.config.timeout_s,
            max_retries=self.config.transport_retries,
        ) as client:
            for _ in range(self.config.max_attempts):
                answer = await self._ask(client, messages)
                try:
                    return Extraction.model_validate_json(answer)
                except ValidationError as exc:
                    error = _describe(exc)
                messages += [
                    {"role": "assistant", "content": answer[:MAX_ERROR_CHARS]},
                    {
                        "role": "user",
                        "content": f"That answer does not validate against the schema: {error}\n"
                        "Answer again with one JSON object that validates against the schema.",
                    },
                ]
        raise ExtractionFailed(f"no valid JSON after {self.config.max_attempts} attempts; last error: {error}")

    async def _ask(self, client: openai.AsyncOpenAI, messages: list[ChatCompletionMessageParam]) -> str:
        import openai

        while True:
            try:
                response = await client.chat.completions.create(
                    model=self.config.model,
                    messages=messages,
                    temperature=0,
                    max_tokens=self.config.max_tokens,
                    extra_body={"response_format": self._formats[0]},  # one form is not the SDK's own type
                )
                break
            except openai.APIStatusError as exc:
                if len(self._formats) == 1 or not refuses_format(exc):
                    raise ExtractorUnavailable(f"{self.config.base_url}: {type(exc).__name__}: {exc}") from exc
                self._formats = self._formats[1:]  # the engine refused this form of the schema: the next one
            except openai.APIError as exc:
                raise ExtractorUnavailable(f"{self.config.base_url}: {type(exc).__name__}: {exc}") from exc
        choices = getattr(response, "choices", None) or []
        content = choices[0].message.content if choices and choices[0].message else None
        return content or ""


def refuses_format(error: openai.APIStatusError) -> bool:
    """400 or 422, or an error naming `response_format` (llama-cpp-python answers its validation error with 500)."""
    return error.status_code in (400, 422) or "response_format" in str(error)


LENGTH_KEYWORDS = frozenset({"maxLength", "minLength", "maxItems", "minItems"})


def decoding_schema() -> dict[str, Any]:
    """The `Extraction` schema without length bounds, for constrained decoding: a bound becomes a repetition in the
    engine's grammar (llama.cpp refuses `maxLength: 2000` as too complex and its server dies on it). The bounds
    still hold: the answer is validated against the full schema and a violation is fed back."""
    schema: dict[str, Any] = _without_lengths(Extraction.model_json_schema())
    return schema


def _without_lengths(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _without_lengths(value) for key, value in node.items() if key not in LENGTH_KEYWORDS}
    if isinstance(node, list):
        return [_without_lengths(value) for value in node]
    return node


def response_formats() -> list[dict[str, Any]]:
    """The JSON-schema constraint in the forms engines take, the most widely understood first (module docstring)."""
    schema = decoding_schema()
    return [
        {"type": "json_schema", "json_schema": {"name": "extraction", "schema": schema}},
        {"type": "json_object", "schema": schema},
    ]


def _first_messages(text: str, source: str, max_chars: int) -> list[ChatCompletionMessageParam]:
    schema = json.dumps(Extraction.model_json_schema(), ensure_ascii=False)
    shown = text[:max_chars]
    cut = f"\n[... text cut at {max_chars} of {len(text)} characters ...]" if len(text) > max_chars else ""
    return [
        {"role": "system", "content": INSTRUCTIONS + schema},
        {"role": "user", "content": f"Source: {source}\n\nText:\n{shown}{cut}"},
    ]


def _describe(exc: ValidationError) -> str:
    lines = [
        f"{'.'.join(str(part) for part in error['loc']) or '(root)'}: {error['msg']}"
        for error in exc.errors(include_url=False, include_input=False)[:10]
    ]
    return "; ".join(lines)[:MAX_ERROR_CHARS]


def checked_against_text(extraction: Extraction, text: str) -> Extraction:
    """The extraction made consistent with the text, deterministically: a claim value that is no number of
    the text (as written, or as a percentage of it) is dropped to null with a note; evidence not found
    verbatim gets a note; metric and licence names are normalised; identifiers the rules find are added."""
    flat = _flatten(text)
    numbers = _numbers_in(text)
    claims = [_checked(claim, flat, numbers) for claim in extraction.claims]
    models = [
        model.model_copy(update={"license": normalise_license(model.license)}) if model.license else model
        for model in extraction.models
    ]
    found = find_identifiers(text, read_front_matter(text), model_name_ids(text))
    identifiers = Identifiers(
        arxiv=_union(extraction.identifiers.arxiv, found.arxiv),
        dois=_union(extraction.identifiers.dois, found.dois),
        hf_models=_union(extraction.identifiers.hf_models, found.hf_models),
        hf_datasets=_union(extraction.identifiers.hf_datasets, found.hf_datasets),
    )
    return extraction.model_copy(update={"claims": claims, "models": models, "identifiers": identifiers})


def _checked(claim: ExtractedClaim, flat: str, numbers: set[float]) -> ExtractedClaim:
    notes = list(claim.notes)
    if _flatten(claim.evidence) not in flat:
        notes.append("evidence not found verbatim in the text")
    value = claim.value
    if value is not None and round(value, 9) not in numbers:
        notes.append(f"value {value:g} not found in the text; dropped")
        value = None
    metric = canonical_metric(claim.metric) if claim.metric else None
    return claim.model_copy(update={"notes": notes, "value": value, "metric": metric})


def _numbers_in(text: str) -> set[float]:
    """Every number written in the text, and each divided by 100 (a percentage read as a fraction)."""
    numbers: set[float] = set()
    for written in _NUMBER.findall(text):
        number = float(written.replace(",", ""))
        numbers.update((round(number, 9), round(number / 100, 9)))
    return numbers


def _union(first: list[str], second: list[str]) -> list[str]:
    seen = {item.lower() for item in first}
    return first + [item for item in second if item.lower() not in seen]


def _flatten(text: str) -> str:
    return " ".join(re.sub(r"[*_`|]", " ", text).split()).lower()
