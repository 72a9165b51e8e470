"""What every capability needs: the store, the public URL it builds links with, the artifacts folder, the task kinds."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from evaluator.kinds import BUILTIN_KINDS, Kinds, TaskKind, UnknownKind, kind_of
from evaluator.papers.sandbox import Sandbox
from store.db import Store
from tools.endpoints import EndpointPolicy
from tools.errors import BadRequest
from tools.usage import UsageCounter

T = TypeVar("T")
MAX_CACHED = 4096
RECHECK_SECONDS = 0.05


@dataclass
class ReadCache:
    """Answers computed from the store, kept until the store changes in a way that may change them: the store's
    generation moves on every write to a table answers come from, by our writer, a CLI run or another worker
    process (not on an evaluation's per-item cache writes). Values must be immutable."""

    version: int = -1
    values: dict[Hashable, Any] = field(default_factory=dict)
    held: set[int] = field(default_factory=set)  # ids of the values, cleared with them
    commits: int = -1
    checked_at: float = 0.0

    def current_version(self, store: Store) -> int:
        """The store's generation, asked again after any commit of ours, else at most every RECHECK_SECONDS:
        a write by another process (a CLI run, another worker) shows within that time."""
        now = time.monotonic()
        if store.commits != self.commits or now - self.checked_at >= RECHECK_SECONDS:
            self.commits, self.checked_at = store.commits, now
            return store.generation()
        return self.version

    def get(self, store: Store, key: Hashable, compute: Callable[[], T]) -> T:
        self.peek(store, key)  # drops answers from before a change
        if key in self.values:  # a cached None is an answer too
            return self.values[key]  # type: ignore[no-any-return]
        value = compute()
        self.put(store, key, value)
        return value

    def settle(self, store: Store) -> int:
        """The generation cached answers belong to from now on (older ones are dropped): any answer served
        after this call was computed at this generation or a later one, so it may be labelled with it."""
        self.peek(store, None)
        return self.version

    def peek(self, store: Store, key: Hashable) -> Any | None:
        """The cached answer for `key`, or None; for answers computed off the loop (then `put`)."""
        version = self.current_version(store)
        if version != self.version:
            self.values.clear()
            self.held.clear()
            self.version = version
        return self.values.get(key)

    def put(self, store: Store, key: Hashable, value: Any) -> None:
        self.peek(store, key)  # drops answers from before a change
        if len(self.values) >= MAX_CACHED:
            self.values.clear()
            self.held.clear()
        self.values[key] = value
        self.held.add(id(value))

    def holds(self, value: Any) -> bool:
        """Whether `value` is one of the cached answers (the very object, not an equal one)."""
        return id(value) in self.held


@dataclass(frozen=True)
class Registry:
    store: Store
    public_url: str
    artifacts_dir: Path
    usage: UsageCounter = field(default_factory=UsageCounter)
    cache: ReadCache = field(default_factory=ReadCache)
    endpoints: EndpointPolicy = field(default_factory=EndpointPolicy)  # which keys an approved run may send where
    sandbox: Sandbox = field(default_factory=Sandbox)  # where documents are read (limited child processes)
    # How this server reads a requested model's source URL (fetch and read the document); None: it does not
    # (offline, or the stdio server). Set by the server from its settings.
    source_reader: Callable[[str], Awaitable[Any]] | None = None
    kinds: Kinds = field(default_factory=lambda: BUILTIN_KINDS)  # the task kinds known here; tests may add one

    def kind(self, name: str) -> TaskKind:
        """The task kind called `name`; BadRequest when this process does not know it."""
        try:
            return kind_of(self.kinds, name)
        except UnknownKind as error:
            raise BadRequest(str(error)) from None

    def remember(self, key: Hashable, compute: Callable[[], T]) -> T:
        """`compute()`, or its answer from before if nothing was written to the store since."""
        return self.cache.get(self.store, key, compute)

    def url(self, path: str) -> str:
        return self.public_url.rstrip("/") + path

    def result_url(self, run_id: str) -> str:
        return self.url(f"/r/{run_id}")

    def predictions_url(self, run_id: str) -> str:
        return self.url(f"/artifacts/{run_id}/predictions.parquet")

    def predictions_path(self, relative: str) -> Path:
        return self.artifacts_dir / relative
