"""Names callers use for tasks and models, and how they resolve to stored rows."""

from __future__ import annotations

import re

from pydantic.config import JsonDict

from store import models as model_store
from store import tasks as task_store
from store.db import Store
from store.models import Model
from store.tasks import Task
from tools.errors import BadRequest, ModelNotFound, TaskNotFound

TASK_REF = re.compile(r"^(?P<slug>[a-z0-9][a-z0-9-]{0,63})(?:@(?P<version>[0-9]{1,6}))?$")
MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/+-]{0,199}$")
# The same rules as JSON Schema patterns, for the OpenAPI document (checked with fullmatch here, so a
# trailing newline is refused as the schema says).
TASK_REF_SCHEMA: JsonDict = {"pattern": "^[a-z0-9][a-z0-9-]{0,63}(@[0-9]{1,6})?$"}
TASK_VERSION_SCHEMA: JsonDict = {"pattern": "^[a-z0-9][a-z0-9-]{0,63}@[0-9]{1,6}$"}  # the version required
MODEL_NAME_SCHEMA: JsonDict = {"pattern": MODEL_NAME.pattern}


def parse_task_ref(text: str) -> tuple[str, int | None]:
    """`slug@version` or `slug` → (slug, version or None)."""
    match = TASK_REF.fullmatch(text)
    if match is None:
        raise BadRequest(f"task must be 'slug' or 'slug@version' (e.g. clinicalqa@0), got {text[:80]!r}")
    version = match.group("version")
    return match.group("slug"), int(version) if version is not None else None


def resolve_task(store: Store, text: str) -> Task:
    """A task version from `slug@version`, or the latest published version of `slug`."""
    slug, version = parse_task_ref(text)
    if version is None:
        version = task_store.latest_version(store, slug)
        if version is None:
            raise TaskNotFound(f"no task {slug!r}; GET /v1/tasks lists the tasks")
    task = task_store.get_task(store, slug, version)
    if task is None:
        known = [t.version for t in task_store.task_versions(store, slug)]
        hint = f"versions of {slug}: {known}" if known else "GET /v1/tasks lists the tasks"
        raise TaskNotFound(f"no task {slug}@{version}; {hint}")
    return task


def resolve_model(store: Store, text: str) -> Model:
    """A model from its BenchToward slug (`kgpu/medgemma-27b`) or a provider model id (`medgemma-27b`)."""
    if MODEL_NAME.fullmatch(text) is None:
        raise BadRequest(f"model must be a model slug or provider model id, got {text[:80]!r}")
    slugs = model_store.find_models(store, text)
    if not slugs:
        raise ModelNotFound(f"no model {text!r}; GET /v1/results or /v1/leaderboard lists evaluated models")
    if len(slugs) > 1 and text not in slugs:
        raise BadRequest(f"{text!r} names several models ({', '.join(slugs)}); use a full slug")
    model = model_store.get_model(store, text if text in slugs else slugs[0])
    if model is None:  # removed between the two reads
        raise ModelNotFound(f"no model {text!r}")
    return model
