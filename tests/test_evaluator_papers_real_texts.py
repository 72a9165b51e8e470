"""The rule-based reader on the four real texts, against the corrected gold annotations
(tests/data/papers/gold_extractions.jsonl)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.papers import NOT_RELEASED, Claim, PaperRecord, read_paper

DATA = Path(__file__).parent / "data" / "papers"
GOLD = {line["doc"]: line for line in map(json.loads, (DATA / "gold_extractions.jsonl").read_text().splitlines())}


def read(doc: str) -> PaperRecord:
    return asyncio.run(read_paper(DATA / doc))


def claim_key(claim: Claim | dict[str, Any]) -> tuple[Any, ...]:
    """Who, on what, measured how: variants given as fragments in the gold file are left out of the key."""
    get = claim.get if isinstance(claim, dict) else lambda name: getattr(claim, name)
    variant = None if isinstance(claim, Claim) and claim.dataset is None else get("task_variant")
    return (get("model"), get("dataset"), variant, get("metric"))


def paired(doc: str) -> list[tuple[Claim, dict[str, Any]]]:
    """The record's claims paired with the gold claims (same key); the two sets of keys must be equal."""
    found = {claim_key(claim): claim for claim in read(doc).claims}
    gold = {claim_key(claim): claim for claim in GOLD[doc]["claims"]}
    assert sorted(found, key=repr) == sorted(gold, key=repr)
    assert len(found) == len(read(doc).claims) and len(gold) == len(GOLD[doc]["claims"])
    return [(found[key], gold[key]) for key in gold]


@pytest.mark.parametrize("doc", sorted(GOLD))
def test_every_gold_model_is_found_with_its_role_weights_base_model_and_licence(doc: str) -> None:
    # The reader lists every model a text names; the gold lists the ones the text reports on or releases.
    # Other names it reads (the scalogram abstract's "Hypotension Prediction Index (HPI)" it compares with,
    # the networks it is built from) are comparators, which the agent never proposes.
    record = read(doc)
    fields = ("name", "role", "provider", "weights", "base_model", "license")
    found = [{field: getattr(model, field) for field in fields} for model in record.models]
    for model in GOLD[doc]["models"]:
        assert {field: model[field] for field in fields} in found
    assert all(m.role == "comparator" for m in record.models if m.name not in {g["name"] for g in GOLD[doc]["models"]})


@pytest.mark.parametrize("doc", sorted(GOLD))
def test_claims_match_the_corrected_gold_with_values_units_and_evidence(doc: str) -> None:
    for claim, gold in paired(doc):
        for part in gold.get("task_variant_contains", []):
            assert part in (claim.task_variant or "")
        assert (claim.value, claim.raw_value, claim.unit, claim.setting) == (
            gold["value"],
            gold["raw_value"],
            gold["unit"],
            gold["setting"],
        )
        assert gold["evidence_contains"] in claim.evidence


@pytest.mark.parametrize("doc", sorted(GOLD))
def test_each_claim_is_mapped_as_annotated_with_a_reason(doc: str) -> None:
    for claim, gold in paired(doc):
        assert claim.mapping.task == gold["task"]
        for part in gold["reason_contains"]:
            assert part in claim.mapping.reason


@pytest.mark.parametrize("doc", sorted(GOLD))
def test_identifiers_and_dataset_facts_match_the_corrected_gold(doc: str) -> None:
    record = read(doc)
    assert record.identifiers.model_dump() == GOLD[doc]["identifiers"]
    facts = [fact.model_dump(exclude={"evidence"}) for fact in record.datasets]
    assert facts == GOLD[doc]["datasets"]


def test_hari_card_comparator_numbers_are_attributed_to_the_comparators_not_to_hari() -> None:
    record = read("snuh_hari-q3-8b_modelcard_excerpt.md")
    dentist = {c.model: c.value for c in record.claims if c.task_variant == "dentist"}
    assert dentist == {"gpt-oss-20b": 0.4316, "medgemma-27b": 0.6141, "snuh/hari-q3-8b": 0.6165}
    assert {m.name: m.role for m in record.models}["gpt-oss-20b"] == "comparator"


def test_hari_card_headline_is_flagged_as_restating_the_kormedmcqa_doctor_cell() -> None:
    headline = next(c for c in read("snuh_hari-q3-8b_modelcard_excerpt.md").claims if c.dataset == "KMLE")
    assert "same value as the table cell for KorMedMCQA doctor (5-shot)" in headline.notes


def test_hari_card_percent_header_over_fraction_cells_is_read_as_fractions_with_a_note() -> None:
    cell = next(c for c in read("snuh_hari-q3-8b_modelcard_excerpt.md").claims if c.task_variant == "nurse")
    assert 0 < (cell.value or 0) <= 1
    assert any("written as a fraction" in note for note in cell.notes)


def test_no_claim_on_the_real_texts_maps_to_a_task() -> None:
    for doc in GOLD:
        assert all(claim.mapping.task is None for claim in read(doc).claims), doc


def test_kmed_press_claim_keeps_its_score_unit_and_has_no_open_weights() -> None:
    record = read("kmed_ai_snuh_naver_news.md")
    assert record.models[0].weights == NOT_RELEASED
    claim = record.claims[0]
    assert (claim.value, claim.unit) == (96.4, "score")  # not 0.964: a score is not a fraction


def test_scalogram_claims_name_the_definition_difference_and_the_data() -> None:
    reason = read("ioh_scalogram_preprint_abstract.md").claims[0].mapping.reason
    assert "any window with at least one MAP ≤ 65 mmHg" in reason
    assert "MAP < 65 mmHg sustained ≥ 60 s" in reason


def test_kormedmcqa_abstract_has_no_model_and_no_claim_but_records_the_dataset() -> None:
    record = read("kormedmcqa_arxiv_2403.01469v3_abstract.md")
    assert (record.models, record.claims) == ([], [])
    assert record.datasets[0].items == 7469


def test_every_gold_line_lists_its_fixes_and_names_a_real_file() -> None:
    for doc, gold in GOLD.items():
        assert (DATA / doc).is_file()
        assert gold["fixes"]
