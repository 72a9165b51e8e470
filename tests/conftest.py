"""Shared fixtures: a real SQLite file per test, the real app with its lifespan, a real uvicorn on loopback."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from asgi_lifespan import LifespanManager

from evaluator.kinds import BUILTIN_KINDS, Kinds
from server.app import build_app
from server.http_limits import uvicorn_options
from server.settings import Settings
from store import Store
from tests.populate import populate
from tools.registry import Registry
from tools.seed import sync_specs

PUBLIC_URL = "http://testserver"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(db=tmp_path / "benchtoward.db", public_url=PUBLIC_URL)


@pytest.fixture
async def registry(settings: Settings) -> AsyncIterator[Registry]:
    """The tools' view of a fresh store with the shipped specs loaded (no server)."""
    store = await Store.open(settings.db)
    await sync_specs(store)
    try:
        yield Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
    finally:
        await store.close()


@pytest.fixture
async def run_ids(settings: Settings, tmp_path: Path) -> dict[str, str]:
    """Fixture results imported into the test's database before the app starts: {slug@task: run_id}."""
    store = await Store.open(settings.db)
    await sync_specs(store)
    try:
        registry = Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)
        return await populate(registry, tmp_path / "bundles")
    finally:
        await store.close()


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The real app with its lifespan, in process, and a client for it."""
    application = build_app(settings)
    async with LifespanManager(application):
        transport = httpx.ASGITransport(app=application, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url=PUBLIC_URL) as http:
            yield http


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The app on an empty store (only the shipped specs)."""
    async with running(settings) as http:
        yield http


@pytest.fixture
async def data_client(settings: Settings, run_ids: dict[str, str]) -> AsyncIterator[httpx.AsyncClient]:
    """The app on a store holding the fixture results of tests/populate.py."""
    async with running(settings) as http:
        yield http


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LiveServer:
    """A real uvicorn serving the app on 127.0.0.1, in a thread; stopped at teardown."""

    def __init__(self, settings: Settings, public_url: str | None = None, kinds: Kinds = BUILTIN_KINDS) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        overrides = {"host": "127.0.0.1", "port": self.port, "public_url": public_url or self.url}
        self.settings = Settings(**{**vars(settings), **overrides})
        options = {**uvicorn_options(self.settings), "log_level": "warning"}  # as `benchtoward serve` runs it,
        del options["log_config"]  # but leaving the test process's own logging (pytest's capture) as it is
        config = uvicorn.Config(build_app(self.settings, kinds=kinds), **options)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        for _ in range(500):  # bounded wait for the socket, ~10 s
            if self.server.started:
                return self
            if not self.thread.is_alive():
                raise RuntimeError("uvicorn exited before it started")
            threading.Event().wait(0.02)
        raise TimeoutError("uvicorn did not start within 10 s")

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def live_server(settings: Settings) -> Iterator[LiveServer]:
    with LiveServer(settings) as server:
        yield server


def run(coroutine):  # type: ignore[no-untyped-def]
    """Run a coroutine from sync test code (fixtures building data before a live server starts)."""
    return asyncio.run(coroutine)


@pytest.fixture
def data_live_server(settings: Settings, run_ids: dict[str, str]) -> Iterator[LiveServer]:
    """A live server on a store holding the fixture results."""
    with LiveServer(settings) as server:
        yield server


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Keep each phase's report on the test item, so fixtures (a browser page) can tell that a test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report
