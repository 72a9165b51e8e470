"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1: the boundary the harness talks to, replaced by a
real HTTP server the test starts. It counts every request per prompt, can answer 429/500 first, reply
slowly, send garbage, or hold every request past the first N until the test releases them."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from dataclasses import dataclass, field

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.conftest import free_port


@dataclass
class Reply:
    text: str
    errors: list[int] = field(default_factory=list)  # statuses to answer first, one per attempt
    delay: float = 0.0
    garbage: bool = False


@dataclass
class Script:
    replies: dict[str, Reply]  # keyed by the user message's content
    default: Reply = field(default_factory=lambda: Reply("모르겠습니다"))
    requests: Counter[str] = field(default_factory=Counter)
    delay: float = 0.0  # added to every reply
    lock: threading.Lock = field(default_factory=threading.Lock)
    hold_after: int | None = None  # requests past this many wait for `release` (a run held half way)
    release: threading.Event = field(default_factory=threading.Event)

    def total(self) -> int:
        return sum(self.requests.values())


def completion(text: str, model: str) -> dict:  # type: ignore[type-arg]
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


def build_app(script: Script) -> Starlette:
    attempts: Counter[str] = Counter()

    async def chat(request: Request) -> Response:
        body = await request.json()
        prompt = body["messages"][-1]["content"]
        reply = script.replies.get(prompt, script.default)
        with script.lock:
            script.requests[prompt] += 1
            attempt = attempts[prompt]
            attempts[prompt] += 1
            held = script.hold_after is not None and script.total() > script.hold_after
        if held:
            await asyncio.to_thread(script.release.wait, 120)  # bounded: a test that forgets to release ends
        if script.delay or reply.delay:
            await asyncio.sleep(script.delay + reply.delay)
        if attempt < len(reply.errors):
            status = reply.errors[attempt]
            return JSONResponse(
                {"error": {"message": "scripted", "type": "test"}}, status_code=status, headers={"retry-after-ms": "5"}
            )
        if reply.garbage:
            return Response(b"<html>not json", media_type="application/json")
        return JSONResponse(completion(reply.text, body["model"]))

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


class FakeLLM:
    """Serves `script` on a free loopback port until the context exits."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        config = uvicorn.Config(build_app(script), host="127.0.0.1", port=self.port, log_level="error")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                return self
            threading.Event().wait(0.02)
        raise TimeoutError("the fake endpoint did not start")

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
