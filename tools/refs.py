"""Names callers use for tasks and models, and how they resolve to stored rows.

Names are matched as people write them: surrounding spaces are stripped, model names (slugs, provider model ids,
aliases, Hugging Face repo ids such as `HuggingFaceTB/SmolLM2-135M-Instruct`) match without regard to case and
keep the form they were stored in, and a name that matches nothing comes back with up to three close ones.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from pydantic.config import JsonDict

from store import models as model_store
from store import tasks as task_store
from store.db import Store
from store.models import Model
from store.tasks import Task
from tools.errors import BadRequest, ModelNotFound, TaskNotFound

TASK_REF = re.compile(r"^(?P<slug>[a-z0-9][a-z0-9-]{0,63})(?:@(?P<version>[0-9]{1,6}))?$")
MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/+-]{0,199}$")
# A model's BenchToward slug: provider/name, as a Hugging Face repo id is written (mixed case allowed).
MODEL_SLUG = r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$"
# The same rules as JSON Schema patterns, for the OpenAPI document (checked with fullmatch here, so a
# trailing newline is refused as the schema says).
TASK_REF_SCHEMA: JsonDict = {"pattern": "^[a-z0-9][a-z0-9-]{0,63}(@[0-9]{1,6})?$"}
TASK_VERSION_SCHEMA: JsonDict = {"pattern": "^[a-z0-9][a-z0-9-]{0,63}@[0-9]{1,6}$"}  # the version required
MODEL_NAME_SCHEMA: JsonDict = {"pattern": MODEL_NAME.pattern}
MODEL_HELP = "Slug, Hugging Face repo id or provider model id (any case)."
TASK_HELP = "slug@version, or slug for the latest published version."
MAX_SUGGESTIONS = 3
SIMILARITY = 0.6  # difflib's ratio: clinicaqa@0 ~ clinicalqa@0 is 0.96; unrelated names stay under 0.5


def is_model_slug(text: str) -> bool:
    return len(text) <= 200 and re.fullmatch(MODEL_SLUG, text) is not None


def suggest(word: str, names: Iterable[str]) -> list[str]:
    """Up to three known names closest to `word`, compared without regard to case, in their stored form."""
    by_lower: dict[str, str] = {}
    for name in names:
        by_lower.setdefault(name.lower(), name)
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=MAX_SUGGESTIONS, cutoff=SIMILARITY)
    return [by_lower[match] for match in close]


def did_you_mean(suggestions: list[str]) -> str:
    return f"; did you mean {', '.join(suggestions)}?" if suggestions else ""


def parse_task_ref(text: str) -> tuple[str, int | None]:
    """`slug@version` or `slug` (any case, surrounding spaces ignored) → (slug, version or None)."""
    match = TASK_REF.fullmatch(text.strip().lower())
    if match is None:
        raise BadRequest(f"task must be 'slug' or 'slug@version' (e.g. clinicalqa@0), got {text[:80]!r}")
    version = match.group("version")
    return match.group("slug"), int(version) if version is not None else None


def task_not_found(store: Store, wanted: str, hint: str) -> TaskNotFound:
    """task_not_found naming up to three known task refs or slugs close to `wanted`."""
    tasks = task_store.list_tasks(store)
    names = [task.ref for task in tasks] + sorted({task.slug for task in tasks})
    suggestions = suggest(wanted, names)
    return TaskNotFound(f"no task {wanted}{did_you_mean(suggestions)}; {hint}", suggestions)


def resolve_task(store: Store, text: str) -> Task:
    """A task version from `slug@version`, or the latest published version of `slug`."""
    slug, version = parse_task_ref(text)
    if version is None:
        version = task_store.latest_version(store, slug)
        if version is None:
            raise task_not_found(store, slug, "GET /v1/tasks lists the tasks")
    task = task_store.get_task(store, slug, version)
    if task is None:
        known = [t.version for t in task_store.task_versions(store, slug)]
        hint = f"versions of {slug}: {known}" if known else "GET /v1/tasks lists the tasks"
        raise task_not_found(store, f"{slug}@{version}", hint)
    return task


def model_name(text: str) -> str:
    """A model name as given, surrounding spaces stripped; bad_request when it cannot name a model."""
    name = text.strip()
    if MODEL_NAME.fullmatch(name) is None:
        raise BadRequest(f"model must be a model slug or provider model id, got {text[:80]!r}")
    return name


def find_model(store: Store, text: str) -> Model | None:
    """The model that answers to a name (slug, provider model id, alias; any case), or None if none does."""
    name = model_name(text)
    slugs = model_store.find_models(store, name)
    if not slugs:
        return None
    if len(slugs) > 1 and name not in slugs:
        raise BadRequest(f"{name!r} names several models ({', '.join(slugs)}); use a full slug")
    return model_store.get_model(store, name if name in slugs else slugs[0])


def model_not_found(store: Store, text: str) -> ModelNotFound:
    """model_not_found naming up to three registered slugs or aliases close to `text`."""
    aliases = model_store.all_aliases(store)
    names = [model.slug for model in model_store.list_models(store)] + [n for ns in aliases.values() for n in ns]
    suggestions = suggest(text.strip(), names)
    return ModelNotFound(
        f"no model {text.strip()[:200]!r}{did_you_mean(suggestions)}; GET /v1/models lists the models", suggestions
    )


def resolve_model(store: Store, text: str) -> Model:
    """A model from its BenchToward slug (`kgpu/medgemma-27b`) or a provider model id (`medgemma-27b`)."""
    model = find_model(store, text)
    if model is None:
        raise model_not_found(store, text)
    return model


def registered_slug(store: Store, slug: str) -> str | None:
    """The stored form of a slug that matches `slug` without regard to case (the first form registered wins)."""
    if model_store.get_model(store, slug) is not None:
        return slug
    return next((found for found in model_store.find_models(store, slug) if found.lower() == slug.lower()), None)
