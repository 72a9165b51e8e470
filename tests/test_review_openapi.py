"""The review routes are in /v1/openapi.json, generated from their models: bearer security on the maintainers'
routes, none on the public withdrawal request, request bodies and every error they answer."""

from __future__ import annotations

import httpx
import pytest

from server.review_api import ROUTES

pytestmark = pytest.mark.anyio


async def test_review_routes_are_documented_with_bearer_security_bodies_and_errors(client: httpx.AsyncClient) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    bearer = document["components"]["securitySchemes"]["bearer"]
    assert bearer["type"] == "http" and bearer["scheme"] == "bearer"
    for route in ROUTES:
        operation = document["paths"][route.path][route.method.lower()]
        assert operation["operationId"] == route.name
        assert operation["security"] == ([{"bearer": []}] if route.maintainers else [])
        if route.maintainers:
            assert {"401", "429"} <= set(operation["responses"])
        if route.body is not None:  # a body of defaults only (publish: {"why": ""}) may be left out
            assert "413" in operation["responses"]
            optional = not route.body.model_json_schema().get("required")
            assert operation["requestBody"]["required"] is not optional, route.name
    publish = document["paths"]["/v1/review/results/{run_id}/publish"]["post"]
    reject = document["paths"]["/v1/review/items/{item_id}/reject"]["post"]
    assert publish["requestBody"]["required"] is False and reject["requestBody"]["required"] is True
    upload = document["paths"]["/v1/review/papers"]["post"]["requestBody"]["content"]
    assert {"multipart/form-data", "application/json"} == set(upload)
    withdrawal = document["paths"]["/v1/withdrawals"]["post"]
    assert set(withdrawal["responses"]) >= {"202", "404", "409", "413", "429"}
    schema = document["components"]["schemas"]["NewWithdrawalRequest"]
    assert set(schema["required"]) == {"run_id", "reason"}
