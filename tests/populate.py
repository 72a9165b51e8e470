"""A populated store for route tests: a few models on both seed tasks, imported as bundles."""

from __future__ import annotations

from pathlib import Path

from tests.factory import FakeModel, write_bundle
from tools.bundles import import_result
from tools.registry import Registry

MEDGEMMA = FakeModel("kgpu/medgemma-27b", "MedGemma 27B", provider_model_id="medgemma-27b")
HARI = FakeModel("snuh/hari-q3-8b", "HARI Q3 8B", provider_model_id="hari-q3-8b")
GPT_OSS = FakeModel("openai/gpt-oss-20b", "gpt-oss-20b", provider_model_id="gpt-oss-20b")
MAJORITY = FakeModel("baseline/majority", "Most common answer", type="baseline", version="1")
LAST_MAP = FakeModel("baseline/last-map", "Last MAP", type="baseline", version="1")
PENDING = FakeModel("acme/pending-7b", "Pending 7B", provider_model_id="pending-7b")

CLINICALQA = [
    (MEDGEMMA, 0.72, "standard"),
    (HARI, 0.66, "standard"),
    (GPT_OSS, 0.55, "standard"),
    (MAJORITY, 0.35, "baseline"),
]
VITALDB = [(LAST_MAP, 1.2, "baseline")]


async def populate(registry: Registry, workdir: Path) -> dict[str, str]:
    """Import the fixture results; return {model slug@task: run_id}."""
    run_ids = {}
    plans = [(m, "clinicalqa@0", q, t, "published") for m, q, t in CLINICALQA]
    plans += [(m, "vitaldb-ioh@0", q, t, "published") for m, q, t in VITALDB]
    plans.append((PENDING, "clinicalqa@0", 0.5, "standard", "in_review"))
    for model, task, quality, tier, status in plans:
        directory = write_bundle(
            workdir / f"{model.slug.replace('/', '_')}-{task}",
            task=task,
            model=model,
            quality=quality,
            tier=tier,
            status=status,
        )
        stored = await import_result(registry, directory)
        run_ids[f"{model.slug}@{task}"] = stored.run_id
    return run_ids
