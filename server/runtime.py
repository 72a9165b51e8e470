"""What the presenters share once the app has started: the registry, the keys and the daily visitor keys."""

from __future__ import annotations

import functools
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from evaluator.papers import LLMConfig
from server.settings import Settings
from tools.auth import Keys
from tools.jobs import JobWorker
from tools.ratelimit import Limiters
from tools.registry import Registry
from tools.usage import Visitor, korea_day, visitor_for
from tools.visitor_keys import DailyKeys

SECRET_BYTES = 32
VISITORS_REMEMBERED = 8192


def load_secret(path: Path) -> bytes:
    """The visitor-hash secret: generated once, kept beside the database, readable only by the service."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another worker process made it first
        return path.read_bytes()
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(secrets.token_bytes(SECRET_BYTES))
    return path.read_bytes()


def paper_llm(settings: Settings) -> LLMConfig | None:
    """The paper reader's LLM, when one is configured (else the offline rule-based reader is used)."""
    if not settings.paper_llm_endpoint:
        return None
    model = settings.paper_llm_model or "default"
    return LLMConfig(base_url=settings.paper_llm_endpoint, model=model, api_key_env=settings.paper_llm_key_env)


class Runtime:
    """Filled in by the app's lifespan; the route adapters and MCP tools read it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._registry: Registry | None = None
        self.visitor_keys = DailyKeys()  # the daily visitor keys (tools/visitor_keys.py), not the server secret
        self._keys: Keys | None = None
        self._limiters: Limiters | None = None
        self.worker: JobWorker | None = None
        self.paper_llm = paper_llm(settings)
        # recent visitors' hashes, by day: a new day is a new key, so yesterday's entries are never answered again
        self._visitor_of = functools.lru_cache(maxsize=VISITORS_REMEMBERED)(self._hash_visitor)
        self._visitor_day = ""

    def start(self, registry: Registry, secret: bytes) -> None:
        self._registry = registry
        self._keys = Keys(secret)
        self._limiters = Limiters.of(registry.store)

    @property
    def keys(self) -> Keys:
        """Keys derived from the server secret: token hashes, session signatures, CSRF and form tokens."""
        if self._keys is None:
            raise RuntimeError("the app has not started: run it with its lifespan")
        return self._keys

    @property
    def limiters(self) -> Limiters:
        """The rate limits, counted in the store: one limit for every worker process on the database."""
        if self._limiters is None:
            raise RuntimeError("the app has not started: run it with its lifespan")
        return self._limiters

    @property
    def origin(self) -> str:
        """scheme://host[:port] of the public URL: the only Origin a maintainer's form may come from."""
        parts = urlsplit(self.settings.base_url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def secure_cookies(self) -> bool:
        return self.settings.base_url.startswith("https://")

    @property
    def data(self) -> Path | None:
        return self.settings.data

    @property
    def offline(self) -> bool:
        return self.settings.offline

    def wake_worker(self) -> None:
        if self.worker is not None:
            self.worker.wake()

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            raise RuntimeError("the app has not started: run it with its lifespan")
        return self._registry

    def settled_generation(self) -> int:
        """The store generation every answer from now on is computed at or after (the registry ETags)."""
        registry = self.registry
        return registry.cache.settle(registry.store)

    def local_visitor(self) -> Visitor:
        """The one caller of a stdio session (counted as one visitor a day, under today's visitor key)."""
        return Visitor.local(self.visitor_keys.key(self.registry.store, korea_day(datetime.now(UTC))))

    def visitor(self, connection: HTTPConnection) -> Visitor:
        """The daily visitor hash of the caller, keyed by today's visitor key; the address is used here and
        nowhere else (and, for the day, in this process's memory only: the hash of an address seen a moment ago is
        not computed again, which was a third of a lookup's cost)."""
        address = connection.client.host if connection.client else None
        user_agent = next((value for name, value in connection.scope["headers"] if name == b"user-agent"), b"")
        day = korea_day(datetime.now(UTC))
        if day != self._visitor_day:  # a new day: yesterday's addresses and hashes leave this process's memory
            self._visitor_of.cache_clear()
            self._visitor_day = day
        return self._visitor_of(day, address, user_agent)

    def _hash_visitor(self, day: str, address: str | None, user_agent: bytes) -> Visitor:
        key = self.visitor_keys.key(self.registry.store, day)
        return visitor_for(key, address, user_agent.decode("latin-1") or None, datetime.now(UTC))
