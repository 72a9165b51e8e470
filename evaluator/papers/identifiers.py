"""Identifiers and model-card facts: Hugging Face repo ids, arXiv ids, DOIs, licences, YAML front matter,
named models, providers and base models. Pure functions of the text; every pattern is bounded."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evaluator.papers.record import Identifiers
from evaluator.papers.vocabulary import strip_markup

_REPO_PART = r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}"
_HF_URL = re.compile(
    r"(?<![\w-])(?:huggingface\.co|hf\.co)/(datasets/|spaces/)?(" + _REPO_PART + r")/(" + _REPO_PART + r")"
)
# first path segments of huggingface.co URLs that are site pages, not organisations
_HF_RESERVED = frozenset(
    {
        "docs",
        "blog",
        "papers",
        "learn",
        "models",
        "tasks",
        "pricing",
        "settings",
        "join",
        "login",
        "collections",
        "organizations",
        "api",
        "new",
        "search",
        "posts",
        "enterprise",
        "changelog",
        "chat",
    }
)
_REPO_ID = re.compile(r"(?<![\w./-])(" + _REPO_PART + r"/" + _REPO_PART + r")(?![\w/-])")
_MODEL_NAME_LINE = re.compile(
    r"(?im)^[ \t>*+-]{0,6}Model[ \t]?(?:Name|ID|Repo(?:sitory)?)[ \t*_]{0,4}:[ \t*_`]{0,6}([^\n]{1,200})$"
)
_ARXIV = re.compile(r"(?:arxiv\.org/(?:abs|pdf|html)/|arXiv:[ \t]?|10\.48550/arXiv\.)(\d{4}\.\d{4,5})(v\d{1,3})?", re.I)
_DOI = re.compile(r"(?<![\w/.])(10\.\d{4,9}/[^\s\"'<>\[\]{}]{1,200})")
_LICENSE_LINE = re.compile(r"(?im)^[ \t*_-]{0,6}Licen[sc]e[ \t*_]{0,4}:[ \t*_]{0,4}([^\n]{1,100})$")
_LICENSED_UNDER = re.compile(r"licen[sc]ed under (?:the )?([^\n.;,()]{2,80})", re.I)
_UNDER_LICENSE = re.compile(
    r"\bunder (?:the |an? )?((?:[\w.+-]{1,20} ){0,4}licen[sc]e(?: (?:version )?\d{1,2}(?:\.\d{1,2})?)?)", re.I
)
_KNOWN_LICENSES = (
    (re.compile(r"apache(?:[- ]license)?[- ,]{0,3}(?:version[ ])?2(?:\.0)?", re.I), "Apache-2.0"),
    (re.compile(r"\bMIT\b"), "MIT"),
    (re.compile(r"CC[- ]BY[- ]NC[- ]SA[- ]4\.0", re.I), "CC-BY-NC-SA-4.0"),
    (re.compile(r"CC[- ]BY[- ]NC[- ]4\.0", re.I), "CC-BY-NC-4.0"),
    (re.compile(r"CC[- ]BY[- ]SA[- ]4\.0", re.I), "CC-BY-SA-4.0"),
    (re.compile(r"CC[- ]BY[- ]4\.0", re.I), "CC-BY-4.0"),
    (re.compile(r"\bGPL[- ]?v?3|GNU General Public License v(?:ersion )?3", re.I), "GPL-3.0"),
    (re.compile(r"\bBSD[- ]3", re.I), "BSD-3-Clause"),
)
_BASED_ON = re.compile(
    r"(?:fine-?tuned|trained|built|based|initiali[sz]ed) (?:from|on|upon) (?:the )?`?("
    + _REPO_PART
    + "/"
    + _REPO_PART
    + r")`?",
    re.I,
)
_NAMED_MODEL = (
    # "KMed.ai, a large language model", "MediMind-7B, an open medical LLM"
    re.compile(
        r"(?<![\w.-])([A-Z][A-Za-z0-9]{0,30}(?:[.-][A-Za-z0-9]{1,20}){0,4})[\u2019'\u201d\"]?, "
        r"(?:a|an|the|our) "
        r"(?:[\w-]{1,30} ){0,5}(?:model|LLM|language model)s?\b"
    ),
    # "LLM, 'KMed.ai'" or "the model "X""
    re.compile(r"(?:model|LLM)s?,? [\u2018'\u201c\"]([A-Za-z][A-Za-z0-9._-]{1,40})[\u2019'\u201d\"]"),
    # "we release / introduce / present X" followed by a model word within a few words
    re.compile(
        r"(?:we|They|and) (?:release|introduce|present|unveil(?:ed)?|announce(?:d)?) (?:the )?"
        r"([A-Z][A-Za-z0-9]{0,30}(?:[.-][A-Za-z0-9]{1,20}){0,4})(?:,| is) (?:a|an|our) (?:[\w-]{1,30} ){0,5}"
        r"(?:model|LLM)s?\b",
        re.I,
    ),
)
# a name with a digit, a dot, a hyphen or a capital after the first letter ("KMed.ai", "GPT-4", "HARI"),
# so that sentence openers such as "Recently, a model ..." are not taken for names
_MODEL_LIKE = re.compile(r"^.[^\n]{0,80}?[A-Z0-9.-]")
_DEVELOPED_BY = re.compile(r"developed by (?:the )?([^\n.;:]{3,150})", re.I)
_ANNOUNCED = re.compile(
    r"(?:^|[.\u2014\u2013] )([A-Z][\w&.-]{1,30}(?: (?:and )?[A-Z][\w&.-]{1,30}){0,4}) (?:today )?"
    r"(?:announced|unveil(?:s|ed)?|released|launch(?:es|ed))\b",
    re.M,
)
# matched backwards from the rare phrase, on a short window: a forward lazy scan from every capital letter
# would cost 120 steps per capital
_PARTNERED_PHRASE = re.compile(r" (?:has|have) partnered to develop")
_PARTNERS_BEFORE = re.compile(r"([A-Z][^\n.;:,]{1,120})$")
_YAML_KEY = re.compile(r"^([A-Za-z_][\w-]{0,40}):[ \t]?(.{0,300})$")


@dataclass
class FrontMatter:
    """The YAML front matter of a Hugging Face model card (only the keys the reader uses)."""

    license: str | None = None
    base_models: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)
    end: int = 0


def read_front_matter(text: str) -> FrontMatter:
    """Parse a leading `---` YAML block line by line (scalars and simple lists; no YAML library needed)."""
    matter = FrontMatter()
    stripped = text.lstrip("\ufeff")
    if not stripped.startswith("---"):
        return matter
    lines = stripped.split("\n", 200)
    key: str | None = None
    offset = len(text) - len(stripped) + len(lines[0]) + 1
    for line in lines[1:200]:
        offset += len(line) + 1
        if line.strip() == "---":
            matter.end = offset
            return matter
        item = re.match(r"^[ \t]{0,8}-[ \t]{1,4}(.{1,200})$", line)
        pair = _YAML_KEY.match(line)
        if pair:
            key, value = pair.group(1).lower(), _unquote(pair.group(2))
            if value:
                _add_front_matter_value(matter, key, value)
        elif item and key:
            _add_front_matter_value(matter, key, _unquote(item.group(1)))
    return FrontMatter()  # no closing line: not front matter


def _unquote(value: str) -> str:
    return value.strip().strip("\"'").strip()


def _add_front_matter_value(matter: FrontMatter, key: str, value: str) -> None:
    values = [v.strip().strip("\"'") for v in value.strip("[]").split(",")] if value.startswith("[") else [value]
    for item in filter(None, values):
        if key == "license":
            matter.license = normalise_license(item)
        elif key == "base_model":
            matter.base_models.append(item)
        elif key == "datasets":
            matter.datasets.append(item)


def normalise_license(written: str) -> str:
    """A licence as an SPDX id when it is a well-known one, else as written (trimmed)."""
    for pattern, spdx in _KNOWN_LICENSES:
        if pattern.search(written):
            return spdx
    return " ".join(written.split())[:100]


def find_license(text: str, matter: FrontMatter) -> str | None:
    """The licence: front matter, a `License:` line, "licensed under ...", or "under the X License"."""
    if matter.license:
        return matter.license
    for pattern in (_LICENSE_LINE, _LICENSED_UNDER, _UNDER_LICENSE):
        match = pattern.search(text)
        if match:
            written = strip_markup(match.group(1)).rstrip(" .")
            if written:
                return normalise_license(written)
    return None


def find_identifiers(text: str, matter: FrontMatter, model_ids: list[str]) -> Identifiers:
    """arXiv ids, DOIs and Hugging Face repo ids (models and datasets) found in the text."""
    hf_models: list[str] = list(model_ids)
    hf_datasets: list[str] = list(matter.datasets)
    for kind, repo in _hf_links(text):
        if kind == "datasets/":
            hf_datasets.append(repo)
        elif kind is None:
            hf_models.append(repo)
    hf_models.extend(matter.base_models)
    arxiv = (
        [match.group(1) + (match.group(2) or "") for match in _ARXIV.finditer(text)] if "arxiv" in text.lower() else []
    )
    dois = [_trim_doi(match.group(1)) for match in _DOI.finditer(text)] if "10." in text else []
    return Identifiers(
        arxiv=_unique(arxiv),
        dois=_unique(dois),
        hf_models=_unique(hf_models),
        hf_datasets=_unique(hf_datasets),
    )


def _hf_links(text: str) -> list[tuple[str | None, str]]:
    """(kind: None for a model, "datasets/" or "spaces/"; org/name) of each Hugging Face URL, site pages
    such as huggingface.co/docs left out. The substring test first spares a regex pass over most texts."""
    lowered = text.lower()
    if "huggingface.co/" not in lowered and "hf.co/" not in lowered:
        return []
    links = []
    for match in _HF_URL.finditer(text):
        kind, org, name = match.groups()
        if kind or org.lower() not in _HF_RESERVED:
            links.append((kind, f"{org}/{_trim_repo(name)}"))
    return links


def model_name_ids(text: str) -> list[str]:
    """Repo ids given on a "Model Name: `org/name`" line."""
    ids = []
    for match in _MODEL_NAME_LINE.finditer(text):
        found = _REPO_ID.search(strip_markup(match.group(1)))
        if found:
            ids.append(_trim_repo(found.group(1)))
    return _unique(ids)


def named_models(text: str) -> list[str]:
    """Model names introduced in prose ("X, a large language model ...", "LLM, 'X'")."""
    lowered = text.lower()
    if "model" not in lowered and "llm" not in lowered:
        return []  # every pattern ends or starts with one of these words
    names = [match.group(1).rstrip(".-") for pattern in _NAMED_MODEL for match in pattern.finditer(text)]
    return _unique([name for name in names if _MODEL_LIKE.search(name)])


# a card's labelled base model: "- **Base Model**: [Qwen3-0.6B](...)", "| **Base Model** | [nvidia/X](...) |"
_BASE_LABEL = re.compile(
    r"\bbase[ _-]?model\*{0,2} ?(?::|\||=)\*{0,2} ?\[?`?"
    # a name with a letter and a digit or an organisation ("Qwen3-0.6B", "nvidia/X"), not the next header cell of a
    # table comparing "| Base Model | Fine-tuned |" nor a value "| Base Model | 0.925 |"
    r"((?=[\w./-]*[A-Za-z])(?=[\w.-]*[\d/])[A-Za-z0-9][A-Za-z0-9._-]{1,95}(?:/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?)",
    re.I,
)


def find_base_model(text: str, matter: FrontMatter) -> str | None:
    if matter.base_models:
        return matter.base_models[0]
    match = _BASED_ON.search(text) or _BASE_LABEL.search(text)
    return _trim_repo(match.group(1)) if match else None


def find_provider(text: str) -> str | None:
    """Who built the model, from "developed by X", "X and Y have partnered to develop" or "X announced"
    (each within one line)."""
    developed = _DEVELOPED_BY.search(text)
    if developed:
        return strip_markup(developed.group(1)).strip(" ,") or None
    for phrase in _PARTNERED_PHRASE.finditer(text):
        partners = _PARTNERS_BEFORE.search(text[max(0, phrase.start() - 121) : phrase.start()])
        if partners:
            return strip_markup(partners.group(1)).strip(" ,") or None
    announced = _ANNOUNCED.search(text)
    return strip_markup(announced.group(1)).strip(" ,") or None if announced else None


def _trim_repo(name: str) -> str:
    name = name.rstrip(".-_")
    return name[: -len(".git")] if name.endswith(".git") else name


def _trim_doi(doi: str) -> str:
    doi = doi.rstrip(".,;:")
    while doi.endswith(")") and doi.count(")") > doi.count("("):
        doi = doi[:-1].rstrip(".,;:")
    return doi


def _unique(items: list[str]) -> list[str]:
    """Items in first-seen order, without case-insensitive repeats."""
    seen: dict[str, str] = {}
    for item in items:
        if item:
            seen.setdefault(item.lower(), item)
    return list(seen.values())
