"""OpenAPI 3.1 for /v1, generated from the capability table and its pydantic models (never hand-written): every
entry's parameters, request body (its whole input as JSON, a JSON body beside path parameters, or a multipart
upload), responses, error codes and security (the bearer scheme for a maintainer's entry)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from evaluator.version import HARNESS_VERSION
from server.capabilities import OPERATIONS, Operation
from server.capabilities import operation as table_entry
from server.capabilities import parameters as capability_parameters
from tools.errors import (
    AppError,
    BadRequest,
    ErrorBody,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    RunNotFound,
    Unauthorized,
)
from tools.visits import MAX_BEACON_BYTES, PATH_PATTERN, Beacon

REF = "#/components/schemas/{model}"
PATH_PARAM = re.compile(r"{(\w+)}")
ERROR_REF = {"$ref": REF.format(model="ErrorBody")}
EMPTY = {"type": "string", "maxLength": 0}
JSON = "application/json"
BEARER = {
    "type": "http",
    "scheme": "bearer",
    "description": "A maintainer token from `benchtoward maintainer add NAME` (shown once; only its hash is "
    "stored). Review routes only; every other route needs no token.",
}
KeyMap = Mapping[tuple[Any, JsonSchemaMode], Any]


def parameters(query: type[BaseModel], path: str) -> list[dict[str, Any]]:
    """OpenAPI parameters from the table's one declaration of a capability's inputs. An optional query parameter
    may also be empty (`?tag=`), which counts as absent: a query string cannot carry null."""
    in_path = set(PATH_PARAM.findall(path))
    out = []
    for parameter in capability_parameters(query):
        is_required = parameter.required or parameter.name in in_path
        schema = parameter.schema
        if not is_required:
            schema = {
                "anyOf": [schema, EMPTY],
                **({"default": parameter.default} if parameter.default is not None else {}),
            }
        out.append(
            {
                "name": parameter.name,
                "in": "path" if parameter.name in in_path else "query",
                "required": is_required,
                "description": parameter.description,
                "schema": schema,
            }
        )
    return out


def error_responses(errors: tuple[type[Exception], ...]) -> dict[str, Any]:
    codes = {400: {BadRequest.code}}
    for error in errors:
        codes.setdefault(error.status, set()).add(error.code)  # type: ignore[attr-defined]
    return {
        str(status): {
            "description": "Error: " + ", ".join(sorted(names)),
            "content": {"application/json": {"schema": ERROR_REF}},
        }
        for status, names in sorted(codes.items())
    }


RUN_OPERATIONS = ("get_result", "get_predictions", "predictions_file")
# OpenAPI links: where a response names another resource (a run id, a task, a catalog entry), the operation
# that reads it. Clients and stateful API tests follow them.
LINK_SOURCES: dict[str, dict[str, tuple[str, str]]] = {
    "leaderboard": {op: ("run_id", "/rows/0/run_id") for op in RUN_OPERATIONS},
    "search_results": {op: ("run_id", "/results/0/run_id") for op in RUN_OPERATIONS},
    "lookup": {op: ("run_id", "/result/run_id") for op in RUN_OPERATIONS},
    "list_tasks": {"get_task": ("slug", "/tasks/0/task"), "leaderboard": ("task", "/tasks/0/task")},
    "list_benchmarks": {"get_benchmark": ("id", "/benchmarks/0/id")},
}


def links(operation: Operation) -> dict[str, Any]:
    return {
        target: {"operationId": target, "parameters": {parameter: f"$response.body#{pointer}"}}
        for target, (parameter, pointer) in LINK_SOURCES.get(operation.name, {}).items()
    }


def request_body(operation: Operation, key_map: KeyMap) -> dict[str, Any] | None:
    """A POST's body: its whole input (the object its MCP tool takes), or a JSON body beside its path parameters
    (a multipart upload too, where the entry takes one); a body of defaults only may be left out."""
    if operation.method != "POST":
        return None
    if operation.body is None:
        return {"required": True, "content": {JSON: {"schema": operation.input_schema()}}}
    content = {JSON: {"schema": key_map[(operation.body, "validation")]}}
    if operation.upload is not None:
        content = {"multipart/form-data": {"schema": key_map[(operation.upload, "validation")]}, **content}
    return {"required": bool(operation.body.model_json_schema().get("required")), "content": content}


def responses(operation: Operation, key_map: KeyMap) -> dict[str, Any]:
    answer: dict[str, Any] = {"content": {JSON: {"schema": key_map[(operation.response, "serialization")]}}}
    if operation.name in LINK_SOURCES:
        answer["links"] = links(operation)
    errors: list[type[AppError]] = [*operation.errors]
    if operation.caller == "maintainer":
        errors += [Unauthorized, RateLimited]
    if operation.method == "POST":
        errors.append(PayloadTooLarge)
    if operation.method == "POST" and operation.body is None:  # a visitor's request: new, or an earlier one
        found = {"200": {"description": "An earlier request, or none was needed", **answer}}
        return {str(operation.status): {"description": "Created", **answer}, **found, **error_responses(tuple(errors))}
    return {str(operation.status): {"description": "OK", **answer}, **error_responses(tuple(errors))}


def json_operation(operation: Operation, key_map: KeyMap) -> dict[str, Any]:
    described: dict[str, Any] = {
        "operationId": operation.name,
        "summary": operation.summary,
        "description": operation.description,
    }
    if operation.method == "GET" or operation.body is not None:  # a POST without `body` takes its input as JSON
        described["parameters"] = parameters(operation.query, operation.path)
    body = request_body(operation, key_map)
    if body is not None:
        described["requestBody"] = body
    described["responses"] = responses(operation, key_map)
    if operation.caller == "maintainer":
        described.update(security=[{"bearer": []}], tags=["review"])
    return described


def schema_models() -> list[tuple[type[BaseModel], JsonSchemaMode]]:
    """Every model the document names: each entry's response, JSON body and upload form, errors, the beacon."""
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [(op.response, "serialization") for op in OPERATIONS]
    models += [(model, "validation") for op in OPERATIONS for model in (op.body, op.upload) if model is not None]
    return [*models, (ErrorBody, "serialization"), (Beacon, "validation")]


def file_operations() -> dict[str, Any]:
    board = table_entry("leaderboard")  # the CSV is the leaderboard capability's answer in another format
    return {
        "/v1/leaderboard.csv": {
            "get": {
                "operationId": "leaderboard_csv",
                "summary": "The leaderboard of one task version as CSV (counts as a download)",
                "parameters": parameters(board.query, "/v1/leaderboard.csv"),
                "responses": {
                    "200": {"description": "CSV", "content": {"text/csv": {"schema": {"type": "string"}}}},
                    **error_responses(board.errors),
                },
            }
        },
        "/artifacts/{run_id}/predictions.parquet": {
            "get": {
                "operationId": "predictions_file",
                "summary": "Per-item predictions of one result, as a parquet file (counts as a download)",
                "parameters": [{"name": "run_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {
                    "200": {
                        "description": "Parquet file",
                        "content": {
                            "application/vnd.apache.parquet": {"schema": {"type": "string", "format": "binary"}}
                        },
                    },
                    **error_responses((RunNotFound,)),
                },
            }
        },
    }


def beacon_operation() -> dict[str, Any]:
    return {
        "post": {
            "operationId": "beacon",
            "summary": "Sent once by each page's script: a real browser opened this page (counted as a visit)",
            "description": "The body is the page's path, as text or as JSON, at most "
            f"{MAX_BEACON_BYTES} bytes. Only paths of this site's pages are accepted; a query string is ignored. "
            "Visits are counted once per page, daily visitor hash and Korea-time day; known crawlers are not "
            "counted. No cookie is set and nothing identifying is sent.",
            "requestBody": {
                "required": True,
                "content": {
                    "text/plain": {
                        "schema": {"type": "string", "pattern": PATH_PATTERN, "example": "/tasks/clinicalqa"}
                    },
                    "application/json": {"schema": {"$ref": REF.format(model="Beacon")}},
                },
            },
            "responses": {
                "204": {"description": "Received"},
                **error_responses((PayloadTooLarge, NotFound)),
            },
        }
    }


def openapi_document(base_url: str) -> dict[str, Any]:
    key_map, definitions = models_json_schema(schema_models(), ref_template=REF)
    paths: dict[str, Any] = {}
    for op in OPERATIONS:
        paths.setdefault(op.path, {})[op.method.lower()] = json_operation(op, key_map)
    paths.update(file_operations())
    paths["/v1/beacon"] = beacon_operation()
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "BenchToward API",
            "version": HARNESS_VERSION,
            "description": "Medical-AI evaluation results, computed once per model and task version. "
            "Call /v1/lookup before you run an evaluation yourself. An empty query parameter counts as absent. "
            "Guide: /llms.txt",
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "servers": [{"url": base_url}],
        "paths": paths,
        "components": {"schemas": definitions.get("$defs", {}), "securitySchemes": {"bearer": BEARER}},
    }
