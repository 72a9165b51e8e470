"""The LLM extractor against a real OpenAI-compatible HTTP server on 127.0.0.1 (port 0), started by the test:
retry on invalid JSON with the error fed back, a clean typed failure when the answer never validates, the
deterministic mapping applied to the model's claims, and numbers not in the text dropped."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from evaluator.papers import (
    Extraction,
    ExtractionFailed,
    Extractor,
    ExtractorNotConfigured,
    ExtractorUnavailable,
    LLMConfig,
    LLMExtractor,
    RuleExtractor,
    read_paper,
)
from evaluator.papers.llm import decoding_schema

DATA = Path(__file__).parent / "data" / "papers"
HARI = (DATA / "snuh_hari-q3-8b_modelcard_excerpt.md").read_text()

VALID = {
    "models": [
        {
            "name": "snuh/hari-q3-8b",
            "role": "subject",
            "weights": "snuh/hari-q3-8b",
            "base_model": "Qwen/Qwen3-8B-Base",
            "license": "apache-2.0",
        }
    ],
    "claims": [
        {
            "model": "snuh/hari-q3-8b",
            "dataset": "KorMedMCQA",
            "task_variant": "doctor",
            "metric": "accuracy",
            "value": 0.7678,
            "raw_value": "0.7678",
            "unit": "fraction",
            "setting": "5-shot",
            "evidence": "|Doctor|0.7333|0.7632|0.7678|",
        },
        {
            "model": "snuh/hari-q3-8b",
            "dataset": "ClinicalQA",
            "metric": "accuracy",
            "value": 0.91,
            "raw_value": "91%",
            "unit": "fraction",
            "evidence": "Achieves 91% accuracy on ClinicalQA",
        },
    ],
    "identifiers": {"hf_models": ["snuh/hari-q3-8b"]},
}


@dataclass
class FakeEndpoint:
    """Answers chat-completion requests with scripted message contents (the last one repeats); `refused_formats`
    are response_format types it answers 422, as an engine that does not know them does."""

    answers: list[str]
    status: int = 200
    refused_formats: tuple[str, ...] = ()
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def respond(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            content = self.answers[min(len(self.requests), len(self.answers)) - 1]
        if self.status != 200:
            return self.status, {"error": {"message": "scripted failure", "type": "server_error"}}
        if body.get("response_format", {}).get("type") in self.refused_formats:
            return 422, {"detail": [{"loc": ["body", "response_format", "type"], "msg": "unexpected value"}]}
        return 200, {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


@pytest.fixture
def serve() -> Iterator[Any]:
    """Start a real HTTP server on 127.0.0.1:0 in a thread for an endpoint; stop it after the test."""
    servers: list[tuple[ThreadingHTTPServer, threading.Thread]] = []

    def start(endpoint: FakeEndpoint) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                status, payload = endpoint.respond(body, {k.lower(): v for k, v in self.headers.items()})
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                return

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        assert not thread.is_alive()


def config(base_url: str, **overrides: Any) -> LLMConfig:
    settings: dict[str, Any] = {"model": "test-model", "api_key_env": "BT_PAPERS_KEY", "transport_retries": 0}
    return LLMConfig(base_url=base_url, **(settings | overrides))


def extract(endpoint_url: str, text: str = HARI, **overrides: Any) -> Any:
    extractor = LLMExtractor(config(endpoint_url, **overrides), environ={"BT_PAPERS_KEY": "sk-test"})
    return asyncio.run(extractor.extract(text, source="card.md"))


def test_invalid_json_then_valid_is_retried_with_the_error_fed_back(serve: Any) -> None:
    endpoint = FakeEndpoint(answers=["Sure! Here is the JSON: {models: [", json.dumps(VALID)])
    record = extract(serve(endpoint))
    assert len(endpoint.requests) == 2
    retry_messages = endpoint.requests[1]["messages"]
    assert retry_messages[-2] == {"role": "assistant", "content": "Sure! Here is the JSON: {models: ["}
    assert "does not validate" in retry_messages[-1]["content"]
    assert "Invalid JSON" in retry_messages[-1]["content"]
    assert record.extractor == "llm:test-model"
    assert record.models[0].name == "snuh/hari-q3-8b"


def test_a_schema_violation_is_also_retried(serve: Any) -> None:
    wrong = json.dumps({"claims": [{"value": "high", "evidence": "x"}]})
    endpoint = FakeEndpoint(answers=[wrong, json.dumps(VALID)])
    extract(serve(endpoint))
    assert len(endpoint.requests) == 2
    assert "claims.0.value" in endpoint.requests[1]["messages"][-1]["content"]


def test_always_invalid_answers_fail_cleanly_after_max_attempts(serve: Any) -> None:
    endpoint = FakeEndpoint(answers=["not json", json.dumps({"models": "many"}), "[]"])
    with pytest.raises(ExtractionFailed) as caught:
        extract(serve(endpoint), max_attempts=3)
    assert caught.value.code == "extraction_failed"
    assert len(endpoint.requests) == 3
    assert "after 3 attempts" in str(caught.value)


def test_a_valid_answer_is_used_once_and_the_request_has_the_agreed_shape(serve: Any) -> None:
    endpoint = FakeEndpoint(answers=[json.dumps(VALID)])
    extract(serve(endpoint))
    assert len(endpoint.requests) == 1
    request = endpoint.requests[0]
    assert (request["model"], request["temperature"]) == ("test-model", 0)
    schema = decoding_schema()
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "extraction", "schema": schema},
    }
    assert "maxLength" not in json.dumps(schema) and "maxLength" in json.dumps(Extraction.model_json_schema())
    system = request["messages"][0]["content"]
    assert '"ExtractedClaim"' in system and '"ModelInfo"' in system  # the record's JSON schema is sent
    assert "hari-q3-8b" in request["messages"][1]["content"]
    assert endpoint.headers[0]["authorization"] == "Bearer sk-test"


def test_an_engine_that_refuses_the_json_schema_form_is_asked_in_its_json_object_form_from_then_on(
    serve: Any,
) -> None:
    endpoint = FakeEndpoint(answers=["(refused)", "not json", json.dumps(VALID)], refused_formats=("json_schema",))
    extract(serve(endpoint))
    kinds = [request["response_format"]["type"] for request in endpoint.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]  # refused once, then one retry for "not json"
    assert endpoint.requests[-1]["response_format"]["schema"] == decoding_schema()


def test_the_form_an_engine_refused_is_not_asked_again_by_the_same_reader_for_the_next_text(serve: Any) -> None:
    endpoint = FakeEndpoint(answers=["(refused)", json.dumps(VALID)], refused_formats=("json_schema",))
    extractor = LLMExtractor(config(serve(endpoint)), environ={"BT_PAPERS_KEY": "sk-test"})
    for name in ("first.md", "second.md", "third.md"):
        asyncio.run(extractor.extract(HARI, source=name))
    kinds = [request["response_format"]["type"] for request in endpoint.requests]
    assert kinds == ["json_schema", "json_object", "json_object", "json_object"]  # a corpus costs one refusal


def test_an_engine_that_refuses_every_form_is_unavailable(serve: Any) -> None:
    endpoint = FakeEndpoint(answers=[json.dumps(VALID)], refused_formats=("json_schema", "json_object"))
    with pytest.raises(ExtractorUnavailable, match="UnprocessableEntityError"):
        extract(serve(endpoint))
    assert len(endpoint.requests) == 2


def test_the_mapping_of_llm_claims_is_the_deterministic_rule_mapping(serve: Any) -> None:
    record = extract(serve(FakeEndpoint(answers=[json.dumps(VALID)])))
    kormed, clinicalqa = record.claims
    assert kormed.mapping.task is None
    assert "KorMedMCQA (doctor subset) is a different dataset" in kormed.mapping.reason
    assert clinicalqa.mapping.task == "clinicalqa@0"


def test_a_number_that_is_not_in_the_text_is_dropped_to_null(serve: Any) -> None:
    record = extract(serve(FakeEndpoint(answers=[json.dumps(VALID)])))
    kormed, invented = record.claims
    assert kormed.value == 0.7678 and kormed.notes == []
    assert invented.value is None  # "91%" appears nowhere in the card
    assert "value 0.91 not found in the text; dropped" in invented.notes
    assert "evidence not found verbatim in the text" in invented.notes


def test_an_llm_answer_carrying_its_own_mapping_does_not_validate(serve: Any) -> None:
    with_mapping = json.loads(json.dumps(VALID))
    with_mapping["claims"][0]["mapping"] = {"task": "clinicalqa@0", "reason": "trust me"}
    endpoint = FakeEndpoint(answers=[json.dumps(with_mapping), json.dumps(VALID)])
    record = extract(serve(endpoint))
    assert len(endpoint.requests) == 2
    assert record.claims[0].mapping.task is None


def test_an_http_error_from_the_endpoint_is_extractor_unavailable(serve: Any) -> None:
    endpoint = FakeEndpoint(answers=["{}"], status=500)
    with pytest.raises(ExtractorUnavailable) as caught:
        extract(serve(endpoint))
    assert caught.value.code == "extractor_unavailable"
    assert len(endpoint.requests) == 1


def test_an_unreachable_endpoint_is_extractor_unavailable() -> None:
    with socket.socket() as probe:  # a port the system just handed out and nobody listens on any more
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ExtractorUnavailable):
        extract(f"http://127.0.0.1:{port}/v1", timeout_s=5)


def test_a_missing_api_key_variable_is_a_configuration_error() -> None:
    with pytest.raises(ExtractorNotConfigured) as caught:
        LLMExtractor(config("http://127.0.0.1/v1"), environ={})
    assert caught.value.code == "extractor_not_configured"


def test_read_paper_uses_the_llm_extractor_when_an_endpoint_is_configured(serve: Any) -> None:
    endpoint = FakeEndpoint(answers=[json.dumps(VALID)])
    llm = LLMConfig(base_url=serve(endpoint), model="test-model", api_key_env=None, transport_retries=0)
    record = asyncio.run(read_paper(DATA / "snuh_hari-q3-8b_modelcard_excerpt.md", llm=llm))
    assert record.extractor == "llm:test-model"
    assert len(endpoint.requests) == 1
    assert asyncio.run(read_paper(DATA / "snuh_hari-q3-8b_modelcard_excerpt.md")).extractor == "rules"


SCALOGRAM = (DATA / "ioh_scalogram_preprint_abstract.md").read_text()


def test_llm_claims_on_the_scalogram_preprint_get_the_rule_mapping_and_normalised_metrics(serve: Any) -> None:
    answer = {
        "claims": [
            {
                "dataset": "private intraoperative IBP waveform dataset",
                "metric": "AUROC",
                "value": 0.94,
                "raw_value": "0.94",
                "evidence": "the model demonstrated an AUROC of 0.94",
            }
        ]
    }
    record = extract(serve(FakeEndpoint(answers=[json.dumps(answer)])), text=SCALOGRAM)
    (claim,) = record.claims
    assert claim.metric == "auroc"
    assert claim.mapping.task is None
    assert "different hypotension definition" in claim.mapping.reason
    assert "not stated to be VitalDB" in claim.mapping.reason
    assert record.identifiers.dois == ["10.21203/rs.3.rs-8666700/v1"]  # found by the rules, added


def test_both_extractors_implement_the_extractor_protocol() -> None:
    extractors: list[Extractor] = [
        RuleExtractor(),
        LLMExtractor(config("http://127.0.0.1/v1"), environ={"BT_PAPERS_KEY": "k"}),
    ]
    assert all(callable(extractor.extract) for extractor in extractors)
