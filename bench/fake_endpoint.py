"""An OpenAI-compatible chat endpoint with a fixed latency, for benchmarks (run as its own process).

    python bench/fake_endpoint.py PORT LATENCY_SECONDS

Every POST gets the same chat-completion reply ("정답: A", fixed token usage) after the latency. It is a
bare asyncio HTTP/1.1 server with keep-alive rather than a web framework, so that the endpoint's own CPU
time (on a 2-core machine it shares the CPU with the harness it serves) stays out of the harness's figures.
"""

from __future__ import annotations

import asyncio
import sys

import orjson

REPLY = orjson.dumps(
    {
        "id": "bench",
        "object": "chat.completion",
        "created": 0,
        "model": "fixed",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "정답: A"}}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 5, "total_tokens": 305},
    }
)
RESPONSE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
    + str(len(REPLY)).encode()
    + b"\r\n\r\n"
    + REPLY
)


async def serve_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, latency: float) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            await asyncio.sleep(latency)
            writer.write(RESPONSE)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main(port: int, latency: float) -> None:
    server = await asyncio.start_server(lambda r, w: serve_connection(r, w, latency), "127.0.0.1", port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2])))
