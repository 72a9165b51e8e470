"""The review routes in the OpenAPI document, generated from their table and pydantic models: parameters,
request bodies (JSON, or multipart for a paper upload), responses, error codes and the bearer scheme."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode

from server.openapi import error_responses as openapi_error_responses
from server.openapi import parameters
from server.review_api import ROUTES, PaperUpload, ReviewRoute
from tools import reading
from tools.errors import AppError, PayloadTooLarge, RateLimited, Unauthorized

BEARER = {
    "type": "http",
    "scheme": "bearer",
    "description": "A maintainer token from `benchtoward maintainer add NAME` (shown once; only its hash is "
    "stored). Review routes only; every other route needs no token.",
}
KeyMap = Mapping[tuple[Any, JsonSchemaMode], Any]


def review_models() -> list[tuple[type[BaseModel], JsonSchemaMode]]:
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [(reading.PaperUrl, "validation")]
    for route in ROUTES:
        models.append((route.response, "serialization"))
        if route.body is not None:
            models.append((route.body, "validation"))
    return models


def error_responses(route: ReviewRoute) -> dict[str, Any]:
    errors: list[type[AppError]] = [*route.errors]
    if route.maintainers:
        errors += [Unauthorized, RateLimited]
    if route.body is not None:
        errors.append(PayloadTooLarge)
    return openapi_error_responses(tuple(errors))  # bad_request (400) is added there


def request_body(route: ReviewRoute, key_map: KeyMap) -> dict[str, Any] | None:
    if route.body is None:
        return None
    if route.body is PaperUpload:
        content = {
            "multipart/form-data": {"schema": key_map[(PaperUpload, "validation")]},
            "application/json": {"schema": key_map[(reading.PaperUrl, "validation")]},
        }
    else:
        content = {"application/json": {"schema": key_map[(route.body, "validation")]}}
    required = bool(route.body.model_json_schema().get("required"))  # a body of defaults may be left out
    return {"required": required, "content": content}


def review_operation(route: ReviewRoute, key_map: KeyMap) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": route.name,
        "summary": route.summary,
        "description": (route.handler.__doc__ or route.summary).strip(),
        "parameters": parameters(route.query, route.path) if route.query else [],
        "responses": {
            str(route.status): {
                "description": "OK",
                "content": {"application/json": {"schema": key_map[(route.response, "serialization")]}},
            },
            **error_responses(route),
        },
        "security": [{"bearer": []}] if route.maintainers else [],
        "tags": ["review"] if route.maintainers else ["authors"],
    }
    body = request_body(route, key_map)
    if body is not None:
        operation["requestBody"] = body
    return operation


def add_review_operations(paths: dict[str, Any], key_map: KeyMap) -> None:
    for route in ROUTES:
        paths.setdefault(route.path, {})[route.method.lower()] = review_operation(route, key_map)
