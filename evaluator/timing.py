"""Where a run's time goes: wall and CPU seconds per phase, and each request's send, first byte and end.

`evaluate` laps its phases into a `Timings` (start-up, data load, run key and claim, the model's outputs or the
requests and the item cache, parse/score/bootstrap, predictions write, store commit, result read); the chat adapter
records every attempt it makes and every HTTP connection it opens. A lap costs two clock reads and a request three,
so it is always on; bench/harness_bench.py prints the breakdown beside its ratio. CPU seconds are the whole
process's (`time.process_time`, every thread), so on a machine shared with other work they say what the harness
itself spent, where wall seconds also carry everyone else's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Phase:
    wall: float = 0.0
    cpu: float = 0.0
    count: int = 0


@dataclass(frozen=True)
class Attempt:
    """One HTTP attempt, in perf_counter seconds: sent, response headers in (first byte), body read."""

    sent: float
    first_byte: float | None
    done: float
    status: int | None  # None: no response (timeout, refused or dropped connection)
    attempt: int  # 0 for the first try of an item, 1.. for its retries


@dataclass
class Timings:
    phases: dict[str, Phase] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)
    connections: int = 0  # TCP connections the adapter opened (with keep-alive, at most its concurrency)
    concurrency: int = 1
    mark: tuple[float, float] = field(default_factory=lambda: (time.perf_counter(), time.process_time()))

    def restart(self) -> None:
        """Start the next lap now (what came before it is not counted anywhere)."""
        self.mark = (time.perf_counter(), time.process_time())

    def lap(self, name: str) -> None:
        """Count the time since the previous lap (or restart) under `name`."""
        wall, cpu = time.perf_counter(), time.process_time()
        phase = self.phases.setdefault(name, Phase())
        phase.wall += wall - self.mark[0]
        phase.cpu += cpu - self.mark[1]
        phase.count += 1
        self.mark = (wall, cpu)

    def record(self, attempt: Attempt) -> None:
        self.attempts.append(attempt)

    def retries(self) -> int:
        return sum(1 for a in self.attempts if a.attempt > 0)

    def slot_gaps(self) -> float:
        """Seconds a concurrency slot stood free between one attempt ending and the next starting: the k-th send
        after the first `concurrency` takes the slot the k-th end freed. Backoff before a retry counts here."""
        sends = sorted(a.sent for a in self.attempts)[self.concurrency :]
        ends = sorted(a.done for a in self.attempts)
        return sum(max(0.0, sent - ended) for sent, ended in zip(sends, ends, strict=False))

    def waiting(self) -> tuple[float, float]:
        """Seconds summed over attempts: send to first byte, and first byte to the whole body read."""
        answered = [a for a in self.attempts if a.first_byte is not None]
        head = sum(a.first_byte - a.sent for a in answered if a.first_byte is not None)
        body = sum(a.done - a.first_byte for a in answered if a.first_byte is not None)
        return head, body

    def summary(self) -> list[str]:
        """One line per phase, then the requests' figures, for a benchmark to print."""
        lines = [f"{name:<28} wall {p.wall:8.3f} s  cpu {p.cpu:7.3f} s" for name, p in self.phases.items()]
        head, body = self.waiting()
        lines.append(
            f"{'requests':<28} {len(self.attempts)} attempts ({self.retries()} retries) over {self.connections} "
            f"connection(s); send->first byte {head:.3f} s, first byte->done {body:.3f} s summed; "
            f"free-slot gaps {self.slot_gaps():.3f} s"
        )
        return lines
