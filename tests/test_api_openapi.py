"""/v1/openapi.json is generated from the same models, is valid OpenAPI 3.1, and covers every route."""

from __future__ import annotations

import httpx
import pytest
from openapi_spec_validator import validate
from starlette.routing import Route

from server.app import build_app
from server.capabilities import OPERATIONS

pytestmark = pytest.mark.anyio


async def test_the_openapi_document_validates_as_openapi_3_1(client: httpx.AsyncClient) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    assert document["openapi"] == "3.1.0"
    validate(document)


async def test_every_json_and_file_route_is_documented(client: httpx.AsyncClient, settings) -> None:  # type: ignore[no-untyped-def]
    document = (await client.get("/v1/openapi.json")).json()
    app = build_app(settings)
    served = {
        route.path
        for route in app.routes
        if isinstance(route, Route)
        and (route.path.startswith(("/v1/", "/artifacts/")))
        and route.path != "/v1/openapi.json"
    }
    assert served == set(document["paths"])


async def test_response_schemas_come_from_the_capability_models(client: httpx.AsyncClient) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    schemas = document["components"]["schemas"]
    for operation in OPERATIONS:
        assert operation.response.__name__ in schemas
        described = document["paths"][operation.path][operation.method.lower()]
        assert described["operationId"] == operation.name
        if operation.method == "POST" and operation.body is None:  # the input is a JSON body: an MCP tool's
            body = described["requestBody"]["content"]["application/json"]["schema"]
            assert body == operation.input_schema() and set(body["properties"]) == set(operation.query.model_fields)
            assert {"201", "200"} <= set(described["responses"])
            continue
        names = {p["name"] for p in described["parameters"]}
        assert names == set(operation.query.model_fields)
    row = schemas["LeaderboardRow"]["properties"]
    assert {"rank", "rank_range", "metric", "model", "status"} <= set(row)
