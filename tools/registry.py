"""What every capability needs: the store, the public URL it builds links with, the artifacts folder."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from store.db import Store
from tools.usage import UsageCounter

T = TypeVar("T")
MAX_CACHED = 4096


@dataclass
class ReadCache:
    """Answers computed from the store, kept until the store changes (SQLite's data_version moves on every
    commit by another connection: our writer, a CLI run, another worker process). Values must be immutable."""

    version: int = -1
    values: dict[Hashable, Any] = field(default_factory=dict)

    def get(self, store: Store, key: Hashable, compute: Callable[[], T]) -> T:
        version = store.data_version()
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
