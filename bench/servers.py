"""What the HTTP benchmarks share: a database of N models x task results built through the import path,
a `benchtoward serve` process on a free port, and wrk as the load generator."""

from __future__ import annotations

import asyncio
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from store import Store  # noqa: E402
from tests.factory import FakeModel, write_bundle  # noqa: E402  (results computed, not typed in)
from tools.bundles import import_result  # noqa: E402
from tools.registry import Registry  # noqa: E402
from tools.seed import sync_specs  # noqa: E402


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def build_database(db: Path, models: int, tasks: list[str]) -> list[str]:
    """`models` synthetic models on each task, imported as bundles; returns the model slugs."""
    store = await Store.open(db)
    await sync_specs(store)
    registry = Registry(store=store, public_url="http://127.0.0.1", artifacts_dir=db.parent / f"{db.stem}-artifacts")
    slugs = []
    try:
        for index in range(models):
            model = FakeModel(
                f"bench/model-{index:03d}", f"Bench model {index}", provider_model_id=f"model-{index:03d}"
            )
            slugs.append(model.slug)
            for task in tasks:
                bundle = write_bundle(
                    db.parent / "bundles" / f"{index}-{task}",
                    task=task,
                    model=model,
                    quality=0.3 + 0.5 * index / models,
                )
                await import_result(registry, bundle)
    finally:
        await store.close()
    return slugs


def ensure_database(db: Path, models: int, tasks: list[str]) -> None:
    if not db.exists():
        started = time.perf_counter()
        asyncio.run(build_database(db, models, tasks))
        print(f"built {db.name}: {models} models x {len(tasks)} tasks in {time.perf_counter() - started:.0f} s")


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {seconds} s")


@contextmanager
def served(
    db: Path, workers: int = 1, log: Path | None = None, cpus: str | None = None, options: tuple[str, ...] = ()
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`benchtoward serve` on a free port: (its URL, the process); with one worker the process is the server.
    `cpus` pins it (taskset), e.g. "0", so that load generators on the other core do not take its time;
    `options` are more flags of `serve`."""
    port = free_port()
    command = [
        *pinned(cpus),
        str(Path(sys.executable).parent / "benchtoward"),
        "serve",
        "--db",
        str(db),
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--workers",
        str(workers),
        *options,
    ]
    output = log.open("wb") if log else subprocess.DEVNULL
    process = subprocess.Popen(command, stdout=output, stderr=output)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{url}/healthz")
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=30)
        if log:
            output.close()  # type: ignore[union-attr]


@contextmanager
def benchtoward(db: Path, workers: int = 1) -> Iterator[str]:
    with served(db, workers) as (url, _):
        yield url


def pinned(cpus: str | None) -> list[str]:
    return ["taskset", "-c", cpus] if cpus else []


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, stdout=subprocess.DEVNULL)
    return shutil.which("wrk") or "wrk"


def requests_per_second(
    url: str, connections: int = 32, seconds: int = 8, threads: int = 1, cpus: str | None = None
) -> float:
    """wrk's Requests/sec for `url` (non-2xx responses make the run fail loudly); `cpus` pins wrk (taskset)."""
    output = subprocess.run(
        [*pinned(cpus), ensure_wrk(), f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if "Non-2xx" in output or "Socket errors" in output:
        raise RuntimeError(f"errors while loading {url}:\n{output}")
    match = re.search(r"Requests/sec:\s+([0-9.]+)", output)
    if match is None:
        raise RuntimeError(f"no Requests/sec in wrk output:\n{output}")
    return float(match.group(1))
