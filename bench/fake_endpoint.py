"""An OpenAI-compatible chat endpoint with a fixed latency, for benchmarks (run as its own process).

    python bench/fake_endpoint.py PORT LATENCY_SECONDS

Every reply is "정답: A" after the latency, with a fixed token usage.
"""

from __future__ import annotations

import asyncio
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


def build(latency: float) -> Starlette:
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        await asyncio.sleep(latency)
        return JSONResponse({
            "id": "bench", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "정답: A"}}],
            "usage": {"prompt_tokens": 300, "completion_tokens": 5, "total_tokens": 305},
        })

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


if __name__ == "__main__":
    uvicorn.run(build(float(sys.argv[2])), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
                access_log=False)
