"""The record's schema: JSON-schema-able, the LLM is asked for the extraction schema (no mapping field),
and values that are not finite numbers are refused."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from evaluator.papers import Extraction, PaperRecord


def test_both_schemas_are_json_serialisable_and_only_the_record_has_mappings() -> None:
    extraction_schema = json.dumps(Extraction.model_json_schema())
    record_schema = json.dumps(PaperRecord.model_json_schema())
    assert '"TaskMapping"' in record_schema
    assert '"mapping"' not in extraction_schema  # the LLM is never asked to map
    for field in ("name", "provider", "weights", "base_model", "license"):
        assert f'"{field}"' in extraction_schema
    for field in ("model", "dataset", "task_variant", "metric", "value", "setting", "evidence"):
        assert f'"{field}"' in extraction_schema


@pytest.mark.parametrize("value", ["NaN", "Infinity", '"high"'])
def test_a_claim_value_must_be_a_finite_number_or_null(value: str) -> None:
    answer = '{"claims": [{"value": ' + value + ', "evidence": "x"}]}'
    with pytest.raises(ValidationError):
        Extraction.model_validate_json(answer)


def test_unknown_fields_are_refused_so_an_llm_cannot_add_its_own() -> None:
    with pytest.raises(ValidationError):
        Extraction.model_validate_json('{"models": [{"name": "x", "benchmark_rank": 1}]}')
