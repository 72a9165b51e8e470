"""What every capability needs: the store, the public URL it builds links with, the artifacts folder."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from store.db import Store
from tools.usage import UsageCounter

T = TypeVar("T")
MAX_CACHED = 4096
RECHECK_SECONDS = 0.05


@dataclass
class ReadCache:
    """Answers computed from the store, kept until the store changes (SQLite's data_version moves on every
    commit by another connection: our writer, a CLI run, another worker process). Values must be immutable."""

    version: int = -1
    values: dict[Hashable, Any] = field(default_factory=dict)
    commits: int = -1
    checked_at: float = 0.0

    def current_version(self, store: Store) -> int:
        """SQLite's data_version, asked again after any commit of ours, else at most every RECHECK_SECONDS:
        a write by another process (a CLI run, another worker) shows within that time."""
        now = time.monotonic()
        if store.commits != self.commits or now - self.checked_at >= RECHECK_SECONDS:
            self.commits, self.checked_at = store.commits, now
            return store.data_version()
        return self.version

    def get(self, store: Store, key: Hashable, compute: Callable[[], T]) -> T:
        version = self.current_version(store)
        if version != self.version:
            self.values.clear()
            self.version = version
        if key in self.values:
            return self.values[key]  # type: ignore[no-any-return]
        value = compute()
        if len(self.values) >= MAX_CACHED:
            self.values.clear()
        self.values[key] = value
        return value


@dataclass(frozen=True)
class Registry:
    store: Store
    public_url: str
    artifacts_dir: Path
    usage: UsageCounter = field(default_factory=UsageCounter)
    cache: ReadCache = field(default_factory=ReadCache)

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
