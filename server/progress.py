"""A terminal progress bar for long runs: items done, rate and time left, on standard error."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30
MIN_INTERVAL_SECONDS = 0.25


class ProgressBar:
    def __init__(self, label: str, stream: TextIO = sys.stderr) -> None:
        self.label = label
        self.stream = stream
        self.started = time.monotonic()
        self.first_done: int | None = None
        self.shown = 0.0
        self.interactive = stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.first_done is None:
            self.first_done = done  # items already cached do not count towards the rate
        finished = done >= total
        if not finished and now - self.shown < (MIN_INTERVAL_SECONDS if self.interactive else 10.0):
            return
        self.shown = now
        elapsed = max(now - self.started, 1e-9)
        rate = (done - self.first_done) / elapsed
        left = (total - done) / rate if rate > 0 else float("inf")
        filled = int(WIDTH * done / total) if total else WIDTH
        eta = "--" if left == float("inf") else f"{left:.0f}s"
        line = f"{self.label} [{'#' * filled}{'.' * (WIDTH - filled)}] {done}/{total} {rate:.1f} items/s ETA {eta}"
        self.stream.write(
            ("\r" if self.interactive else "") + line + ("\n" if finished or not self.interactive else "")
        )
        self.stream.flush()
