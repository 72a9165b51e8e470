"""A claim about a benchmark that is not one of our tasks links the catalog entry of that benchmark, so the
maintainer reading the paper sees which benchmark it is and why it is not run here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.maintainers import Actor
from tools.reading import read_and_propose
from tools.registry import Registry

pytestmark = pytest.mark.anyio
CORPUS = Path(__file__).parent / "data" / "reader_corpus"


async def test_claims_on_the_kmle_link_the_kmle_catalog_entry_and_map_to_no_task(registry: Registry) -> None:
    text = CORPUS / "kmle_three_llms_abstract.md"  # a real abstract: three LLMs on the Korean licensing exam
    reading = await read_and_propose(registry, Actor("cli:test"), text.read_bytes(), text.name)
    about_kmle = [claim for claim in reading.record.claims if claim.dataset == "KMLE"]
    assert about_kmle
    assert all(claim.mapping.task is None and claim.mapping.catalog_id == "kmle" for claim in about_kmle)


async def test_an_english_medical_qa_claim_links_its_catalog_entry(registry: Registry) -> None:
    text = b"GPT-4 reached an accuracy of 72.4% on MedMCQA (dev split)."
    reading = await read_and_propose(registry, Actor("cli:test"), text, "note.md")
    (claim,) = reading.record.claims
    assert (claim.mapping.task, claim.mapping.catalog_id) == (None, "medmcqa")
