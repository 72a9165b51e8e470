"""Capability: verify local data against a task's spec (count, hashes, schema) and say exactly what differs."""

from __future__ import annotations

import asyncio

from tools.errors import BadRequest
from tools.eval_plan import EvalRequest, data_location, spec_of
from tools.refs import resolve_task
from tools.registry import Registry
from tools.schemas import Shape


class DataCheck(Shape):
    task: str
    spec_hash: str
    data: str
    ok: bool
    differences: list[str]
    notes: list[str]

    def describe(self) -> str:
        head = f"{self.task} (spec {self.spec_hash[:12]}) data at {self.data}: " + ("OK" if self.ok else "DIFFERS")
        return "\n".join([head, *(f"  - {d}" for d in self.differences), *(f"  note: {n}" for n in self.notes)])


async def check(registry: Registry, request: EvalRequest, *, deep: bool = False) -> DataCheck:
    """Compare the data `request` points at with the task's declared instance set; nothing is generated.
    `deep` (time-series tasks): read every record of every case file, not only headers and signatures."""
    task = resolve_task(registry.store, request.task)
    spec = spec_of(task)
    data = data_location(registry, request, spec)
    kind = registry.kind(spec.kind)
    if not data.exists():
        raise BadRequest(f"no data at {data}")
    report = await asyncio.to_thread(kind.check, data, spec, deep=deep)
    return DataCheck(
        task=task.ref,
        spec_hash=task.spec_hash,
        data=str(data),
        ok=report.ok,
        differences=report.differences,
        notes=report.notes,
    )
