"""Reading an untrusted document in a separate process, with limits the operating system enforces.

A PDF's parser can be made to work for hours by a few kilobytes: every page may point at one stream that
inflates to megabytes of text operators, which pypdf parses once per page and in more than linear time (the
security review's 27.8 KB, 3-page PDF took 111 s of CPU). Run in the server's threads, such documents held the
shared thread pool and every request behind it. So a document is read here: in a child process, at a lower
scheduling priority, with `RLIMIT_CPU` (CPU seconds), `RLIMIT_AS` (address space) and a wall-clock deadline, at
most `MAX_PAGES` pages and `MAX_TEXT_CHARS` characters of text, and no more than `MAX_READERS` at once per
server process. A child that passes a limit is killed and the reading fails with `bad_document`; the server's
own process never parses the document.

The child gets a JSON header line and the document's bytes on stdin and answers one JSON object on stdout.
"""

from __future__ import annotations

import asyncio
import os
import resource
import sys
from typing import Any

import orjson

from evaluator.papers.errors import BadDocument, DocumentTooLarge, PaperError
from evaluator.papers.text import DEFAULT_MAX_BYTES, DEFAULT_MAX_PAGES, Document, load_document

CPU_SECONDS = 10
MEMORY_BYTES = 1024 * 1024 * 1024
WALL_SECONDS = 30.0
MAX_PAGES = DEFAULT_MAX_PAGES
MAX_TEXT_CHARS = 5_000_000  # a long paper is a few hundred thousand characters
MAX_READERS = 2
NICENESS = 10
ERRORS: dict[str, type[PaperError]] = {"bad_document": BadDocument, "document_too_large": DocumentTooLarge}


class Sandbox:
    """Runs document readings in child processes, at most `readers` at once (one per server process)."""

    def __init__(self, readers: int = MAX_READERS) -> None:
        self._slots = asyncio.Semaphore(readers)

    async def load(self, content: bytes, *, name: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Document:
        """The document's text, read in a limited child process; `BadDocument` when it passes a limit."""
        if len(content) > max_bytes:
            raise DocumentTooLarge(f"{len(content)} bytes is over the limit of {max_bytes} bytes")
        header = orjson.dumps({"name": name, "max_bytes": max_bytes, "max_pages": MAX_PAGES})
        async with self._slots:
            return answer_of(*await run_child(header + b"\n" + content), name=name)


async def run_child(payload: bytes) -> tuple[int, bytes]:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "evaluator.papers.sandbox",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        output, _ = await asyncio.wait_for(child.communicate(payload), WALL_SECONDS)
    except TimeoutError:
        child.kill()
        await child.wait()
        return -1, b""
    finally:
        if child.returncode is None:  # cancelled (the client went away): the child goes too
            child.kill()
            await child.wait()
    return child.returncode or 0, output


def answer_of(returncode: int, output: bytes, *, name: str) -> Document:
    try:
        answer: dict[str, Any] = orjson.loads(output) if returncode == 0 else {}
    except orjson.JSONDecodeError:
        answer = {}
    if "text" in answer:
        return Document(text=answer["text"], kind=answer["kind"], source=answer["source"])
    if "error" in answer:
        raise ERRORS.get(answer["error"], BadDocument)(answer["message"])
    raise BadDocument(
        f"{name[:200]} could not be read within the limits ({CPU_SECONDS} s of CPU, "
        f"{MEMORY_BYTES // 2**20} MiB, {WALL_SECONDS:g} s): it is malformed or built to be expensive"
    )


def limit_this_process() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.nice(NICENESS)


def child_main() -> int:
    """In the child: limits first, then read stdin, then answer on stdout."""
    limit_this_process()
    header, _, content = sys.stdin.buffer.read().partition(b"\n")
    request = orjson.loads(header)
    try:
        document = load_document(
            content, name=request["name"], max_bytes=request["max_bytes"], max_pages=request["max_pages"]
        )
        if len(document.text) > MAX_TEXT_CHARS:
            raise BadDocument(f"{request['name'][:200]} holds over {MAX_TEXT_CHARS} characters of text")
        answer: dict[str, Any] = {"text": document.text, "kind": document.kind, "source": document.source}
    except PaperError as error:
        answer = {"error": error.code, "message": error.message}
    except MemoryError:
        answer = {"error": "bad_document", "message": f"{request['name'][:200]} needs more memory than allowed"}
    sys.stdout.buffer.write(orjson.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(child_main())
