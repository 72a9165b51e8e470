"""The review routes are in /v1/openapi.json, generated from their entries of the capability table: bearer
security on the maintainers' routes, none on the public withdrawal request, request bodies and every error they
answer."""

from __future__ import annotations

import httpx
import pytest

from server.review_capabilities import REVIEW_OPERATIONS

pytestmark = pytest.mark.anyio


async def test_review_routes_are_documented_with_bearer_security_bodies_and_errors(client: httpx.AsyncClient) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    bearer = document["components"]["securitySchemes"]["bearer"]
    assert bearer["type"] == "http" and bearer["scheme"] == "bearer"
    for entry in REVIEW_OPERATIONS:
        operation = document["paths"][entry.path][entry.method.lower()]
        assert operation["operationId"] == entry.name
        maintainers = entry.caller == "maintainer"
        assert operation.get("security", []) == ([{"bearer": []}] if maintainers else [])
        if maintainers:
            assert {"401", "429"} <= set(operation["responses"])
        assert str(entry.status) in operation["responses"]
        if entry.body is not None:  # a body of defaults only (publish: {"why": ""}) may be left out
            assert "413" in operation["responses"]
            optional = not entry.body.model_json_schema().get("required")
            assert operation["requestBody"]["required"] is not optional, entry.name
    publish = document["paths"]["/v1/review/results/{run_id}/publish"]["post"]
    reject = document["paths"]["/v1/review/items/{item_id}/reject"]["post"]
    assert publish["requestBody"]["required"] is False and reject["requestBody"]["required"] is True
    upload = document["paths"]["/v1/review/papers"]["post"]["requestBody"]["content"]
    assert {"multipart/form-data", "application/json"} == set(upload)
    withdrawal = document["paths"]["/v1/withdrawals"]["post"]
    assert set(withdrawal["responses"]) >= {"202", "404", "409", "413", "429"}
    schema = document["components"]["schemas"]["NewWithdrawalRequest"]
    assert set(schema["required"]) == {"run_id", "reason"}
