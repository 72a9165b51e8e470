"""Who a text is about, as the evaluator agent would register them: a released model's Hugging Face repository and
revision, its slug, the claims that name it, and its model type (see `tools.proposals` for the rules)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator.papers import Claim, ModelInfo, PaperRecord
from store import models as model_store
from store import tasks as task_store
from store.models import Model
from tools.refs import is_model_slug
from tools.registry import Registry

HF_WEIGHTS = re.compile(
    r"(?:https?://)?(?:huggingface\.co|hf\.co)/(?P<org>[A-Za-z0-9][\w.-]*)/(?P<name>[A-Za-z0-9][\w.-]*)"
    r"(?:/(?:tree|commit|blob)/(?P<revision>[\w.-]+))?"
)
REPO_ID = re.compile(r"^(?P<org>[A-Za-z0-9][\w.-]*)/(?P<name>[A-Za-z0-9][\w.-]*)$")
LLM_FAMILIES = re.compile(
    r"qwen|llama|gemma|mistral|mixtral|phi-?\d|gpt|deepseek|exaone|solar|\byi\b|internlm|olmo|falcon|"
    r"baichuan|glm|kanana|hyperclova|bert",
    re.IGNORECASE,
)
QA_DATASETS = re.compile(r"clinicalqa|kormedmcqa|kmle|medqa|medmcqa|pubmedqa|mmlu|usmle|licens", re.IGNORECASE)


@dataclass(frozen=True)
class Subject:
    """A released model as the agent would register it."""

    info: ModelInfo
    slug: str
    name: str
    provider_model_id: str
    version: str
    type: str | None
    registered: Model | None


def repo_parts(weights: str) -> tuple[str, str, str] | None:
    """(org, name, revision) of a Hugging Face link or repo id."""
    match = HF_WEIGHTS.search(weights) or REPO_ID.match(weights.strip())
    if match is None:
        return None
    revision = match.groupdict().get("revision") or ""
    return match.group("org"), match.group("name"), revision


def revision_in(text: str, org: str, name: str) -> str:
    """A weights revision the text names in a link to the same repository (…/tree/<rev>, …/commit/<rev>)."""
    for match in HF_WEIGHTS.finditer(text):
        if (match.group("org"), match.group("name")) == (org, name) and match.group("revision"):
            return match.group("revision")
    return ""


def slug_for(org: str, name: str) -> str | None:
    slug = f"{org.lower()}/{name}"
    return slug if is_model_slug(slug) else None


def claims_of(record: PaperRecord, info: ModelInfo) -> list[Claim]:
    """The claims about one model (an unnamed claim belongs to the only subject, if there is one)."""
    subjects = [m for m in record.models if m.role == "subject"]
    names = {info.name.lower(), info.name.rsplit("/", 1)[-1].lower()}
    return [
        c
        for c in record.claims
        if (c.model and (c.model.lower() in names or c.model.rsplit("/", 1)[-1].lower() in names))
        or (c.model is None and len(subjects) == 1)
    ]


def model_type(info: ModelInfo, claims: list[Claim], registry: Registry) -> str | None:
    """llm, timeseries (or another kind's model type), or None when the text does not tell. A claim mapped to a
    task implies the model type of the task's kind."""
    types = set()
    for claim in claims:
        if claim.mapping.task:
            slug, version = claim.mapping.task.split("@")
            task = task_store.get_task(registry.store, slug, int(version))
            kind = registry.kinds.get(task.kind) if task is not None else None
            if kind is not None:
                types.add(kind.model_type)
        elif claim.task_variant and "hypotension" in claim.task_variant:
            types.add("timeseries")
        elif claim.dataset and QA_DATASETS.search(claim.dataset):
            types.add("llm")
    if "llm" in types or (info.base_model and LLM_FAMILIES.search(info.base_model)):
        return "llm"
    return min(types) if types else None


def registered_model(registry: Registry, *names: str) -> Model | None:
    for name in names:
        found = model_store.get_model(registry.store, name)
        if found is not None:
            return found
        slugs = model_store.find_models(registry.store, name)
        if len(slugs) == 1:
            return model_store.get_model(registry.store, slugs[0])
    return None


def subject_of(registry: Registry, record: PaperRecord, info: ModelInfo) -> Subject | None:
    """The model as it would be registered; None when its weights are not a usable link."""
    parts = repo_parts(info.weights or "")
    if parts is None:
        return None
    org, name, revision = parts
    revision = revision or revision_in(info.evidence or "", org, name)
    slug = slug_for(org, name)
    if slug is None:
        return None
    repo_id = f"{org}/{name}"
    display = name if info.name in {repo_id, slug} else info.name
    claims = claims_of(record, info)
    existing = registered_model(registry, slug, repo_id, info.name)
    return Subject(info, slug, display[:200], repo_id, revision, model_type(info, claims, registry), existing)
