"""Reading a text inline with the rule reader, for the tests of the layouts it reads."""

from __future__ import annotations

import asyncio

from evaluator.papers import PaperRecord, RuleExtractor


def read_text(text: str) -> PaperRecord:
    return asyncio.run(RuleExtractor().extract(text, source="inline"))


def found(record: PaperRecord) -> set[tuple[str | None, str | None, float | None]]:
    return {(c.model, c.metric, c.value) for c in record.claims}
