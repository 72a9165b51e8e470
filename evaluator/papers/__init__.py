"""The evaluator agent's paper and model-card reader (extraction only).

`read_paper(path_or_bytes)` loads a PDF, HTML, CSV, Markdown or plain-text document and returns a
`PaperRecord`: the models it releases or reports, its claims (model, dataset, metric, value, setting and the
sentence or table row each came from), identifiers, and for each claim the BenchToward task it maps to or
the reason it does not. The LLM extractor is used when an endpoint is configured, the rule-based one
otherwise; the mapping step is the same deterministic code for both.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Protocol

from evaluator.papers.errors import (
    BadDocument,
    DocumentTooLarge,
    ExtractionFailed,
    ExtractorNotConfigured,
    ExtractorUnavailable,
    PaperError,
)
from evaluator.papers.llm import LLMConfig, LLMExtractor
from evaluator.papers.record import (
    NOT_RELEASED,
    Claim,
    DatasetFact,
    ExtractedClaim,
    Extraction,
    Identifiers,
    ModelInfo,
    PaperRecord,
    TaskMapping,
)
from evaluator.papers.rules import RuleExtractor
from evaluator.papers.text import DEFAULT_MAX_BYTES, Document, load_document

__all__ = [
    "NOT_RELEASED",
    "BadDocument",
    "Claim",
    "DatasetFact",
    "Document",
    "DocumentTooLarge",
    "ExtractedClaim",
    "Extraction",
    "ExtractionFailed",
    "Extractor",
    "ExtractorNotConfigured",
    "ExtractorUnavailable",
    "Identifiers",
    "LLMConfig",
    "LLMExtractor",
    "ModelInfo",
    "PaperError",
    "PaperRecord",
    "RuleExtractor",
    "TaskMapping",
    "load_document",
    "read_paper",
]

Source = str | os.PathLike[str] | bytes
MAX_DOCUMENTS = 20


class Extractor(Protocol):
    """Anything that reads a text into a `PaperRecord` (claims already mapped)."""

    async def extract(self, text: str, *, source: str) -> PaperRecord: ...


async def read_paper(
    source: Source | Sequence[Source],
    *,
    extractor: Extractor | None = None,
    llm: LLMConfig | None = None,
    name: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> PaperRecord:
    """Read one document, or several read as one (e.g. a README and its results CSV), into a record.

    `extractor` wins when given; else the LLM extractor when `llm` is configured; else the rule-based one.
    `name` labels raw bytes (its suffix picks the reader). `max_bytes` is checked per document before it is
    read in full. Raises `PaperError` subclasses (`bad_document`, `document_too_large`, `extraction_failed`,
    `extractor_unavailable`, `extractor_not_configured`).
    """
    sources = [source] if isinstance(source, (str, bytes, os.PathLike)) else list(source)
    if not sources or len(sources) > MAX_DOCUMENTS:
        raise BadDocument(f"give between 1 and {MAX_DOCUMENTS} documents, not {len(sources)}")
    documents = [
        await asyncio.to_thread(load_document, item, name=name if len(sources) == 1 else None, max_bytes=max_bytes)
        for item in sources
    ]
    text = documents[0].text + "".join(f"\n\n## {doc.source}\n\n{doc.text}" for doc in documents[1:])
    label = " + ".join(doc.source for doc in documents)
    chosen = extractor or (LLMExtractor(llm) if llm is not None else RuleExtractor())
    return await chosen.extract(text, source=label)
