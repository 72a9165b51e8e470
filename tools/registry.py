"""What every capability needs: the store, the public URL it builds links with, the artifacts folder."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from store.db import Store
from tools.usage import UsageCounter


@dataclass(frozen=True)
class Registry:
    store: Store
    public_url: str
    artifacts_dir: Path
    usage: UsageCounter = field(default_factory=UsageCounter)

    def url(self, path: str) -> str:
        return self.public_url.rstrip("/") + path

    def result_url(self, run_id: str) -> str:
        return self.url(f"/r/{run_id}")

    def predictions_url(self, run_id: str) -> str:
        return self.url(f"/artifacts/{run_id}/predictions.parquet")

    def predictions_path(self, relative: str) -> Path:
        return self.artifacts_dir / relative
