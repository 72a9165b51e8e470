"""Capability: verify local data against a task's spec (count, hashes, schema) and say exactly what differs."""

from __future__ import annotations

import asyncio

from evaluator import clinicalqa
from evaluator.vitaldb.check import check_data_dir
from tools.errors import BadRequest
from tools.evaluate import EvalRequest, data_location, spec_of
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
    data = data_location(request, spec)
    if not data.exists():
        raise BadRequest(f"no data at {data}")
    if spec.kind == "mcq":
        items = await asyncio.to_thread(clinicalqa.check_data, data, spec)
        ok, differences = items.ok, [f"{d.kind}: {d.message}" for d in items.differences]
        notes = [f"{items.n_items} items; instance set sha256 {items.instance_set_sha256}"]
    else:
        cases = await asyncio.to_thread(check_data_dir, data, spec, deep=deep)
        ok, differences, notes = cases.ok, list(cases.differences), list(cases.notes)
    return DataCheck(
        task=task.ref, spec_hash=task.spec_hash, data=str(data), ok=ok, differences=differences, notes=notes
    )
