"""The catalog entry format: one benchmark's research page as JSON, accepted exactly as it is written.

The models below type the fields BenchToward reads (to display, filter and search an entry) and allow any
other field at every level (`extra="allow"`), so nothing an entry carries is dropped. Validation is strict:
a number written as "5" or a list written as a string is refused, not coerced. An absent or null optional
field reads as empty. What is stored and exported is the entry's own JSON in canonical form (sorted keys,
no whitespace, UTF-8), never a re-dump of these models: a re-dump would turn 1 into 1.0 and add defaults.

Two fields are BenchToward's own additions, optional for everyone else: `page.name_collision` (a note that
another benchmark uses the same name) and `page.citation` / `page.dataset.license_url` (credit and licence
links for the entries BenchToward writes itself).

Limits (an entry beyond any of them is refused and nothing is stored):
- an entry file: at most MAX_FILE_BYTES (8 MiB) on disk;
- one entry: at most MAX_ENTRY_BYTES (1,000,000 bytes) of canonical JSON;
- any one text (a string value or key, anywhere in the entry): at most MAX_TEXT_CHARS (100,000 characters);
- nesting: at most MAX_DEPTH (32) levels; integers must fit in 64 bits; NaN and infinities are not JSON;
- an object may not repeat a key (the second value would silently replace the first).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Annotated, Any

import orjson
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from evaluator.canonical import sha256_hex
from tools import inputs
from tools.errors import BadRequest
from tools.schemas import Shape

MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_ENTRY_BYTES = 1_000_000
MAX_TEXT_CHARS = 100_000
MAX_DEPTH = 32
ENTRY_ID = r"^[a-z0-9][a-z0-9._-]{0,79}$"


def empty_when_null(default: Any) -> BeforeValidator:
    return BeforeValidator(lambda value: default() if value is None else value)


Text = Annotated[str, empty_when_null(str)]
Texts = Annotated[list[str], empty_when_null(list)]
Items = Annotated[list[Any], empty_when_null(list)]


class Open(BaseModel):
    """A part of an entry: typed where BenchToward reads it, every other field kept as written."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)

    def extras(self) -> dict[str, Any]:
        """The fields this model does not type, as written."""
        return dict(self.__pydantic_extra__ or {})


class Contamination(Open):
    risk: Text = ""
    note: Text = ""


class CatalogDataset(Open):
    languages: Texts = []
    license: Text = ""
    license_url: Text = ""
    modalities: Texts = []
    public_test_set: bool | None = None
    size: int | None = None
    size_note: Text = ""
    splits: Text = ""
    url: Text = ""


class Freshness(Open):
    researched: Text = ""
    researched_by: Text = ""
    reviewed: Text = ""
    reviewed_by: Text = ""


class Harness(Open):
    """Where the benchmark is implemented: one text per evaluation harness (empty when none was found)."""

    bigbench: Text = ""
    helm: Text = ""
    inspect_evals: Text = ""
    lm_eval: Text = ""
    opencompass: Text = ""
    other: Text = ""


class Lineage(Open):
    family: Text = ""
    predecessor: Text = ""
    successors: Texts = []
    variants: Texts = []


class Metric(Open):
    name: Text = ""
    direction: Text = ""
    unit: Text = ""
    max_score: float | None = None
    random_baseline: float | None = None
    human_baseline: float | None = None
    baseline_note: Text = ""


class Paper(Open):
    arxiv: Text = ""
    title: Text = ""
    url: Text = ""
    year: int | None = None


class Publisher(Open):
    authors: Texts = []
    org: Text = ""
    url: Text = ""


class Saturation(Open):
    status: Text = ""
    top_score: float | None = None
    as_of: Text = ""
    note: Text = ""


class Source(Open):
    title: Text = ""
    url: Text = ""
    accessed: Text = ""


class Page(Open):
    """The research page: what the benchmark is, its data, metric, harnesses, risks and sources."""

    id: str = Field(pattern=ENTRY_ID, description="The entry's id: lowercase letters, digits, '.', '_', '-'.")
    name: str = Field(min_length=1, max_length=300)
    aliases: Texts = []
    summary: Text = ""
    tags: Texts = []
    status: Text = ""
    category: Text = ""
    subcategory: Text = ""
    page_kind: Text = ""
    measures: Text = ""
    task_format: Text = ""
    released: Text = ""
    last_updated: Text = ""
    leaderboard_url: Text = ""
    repo_url: Text = ""
    citation: Text = ""
    name_collision: Text = ""
    contamination: Contamination = Contamination()
    dataset: CatalogDataset = CatalogDataset()
    freshness: Freshness = Freshness()
    harness: Harness = Harness()
    lineage: Lineage = Lineage()
    metric: Metric = Metric()
    paper: Paper = Paper()
    publisher: Publisher = Publisher()
    saturation: Saturation = Saturation()
    sources: Annotated[list[Source], empty_when_null(list)] = []


class Disposition(Open):
    """BenchToward's decision about the benchmark: its canonical id, a status such as unassessed, the results
    it has verified."""

    canonical_id: Text = ""
    status: Text = ""
    reasons: Items = []
    verified_results: Items = []


class CatalogEntry(Open):
    """One catalog entry: the research page, its markdown body and BenchToward's disposition."""

    page: Page
    body: Text = ""
    disposition: Disposition = Disposition()
    models_covered: Items = []


@dataclass(frozen=True)
class ParsedEntry:
    """A validated entry with its canonical JSON (what is stored) and that JSON's sha256."""

    entry: CatalogEntry
    canonical: str
    sha256: str

    @property
    def id(self) -> str:
        return self.entry.page.id


class DuplicateKey(ValueError):
    pass


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKey(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def file_too_large(where: str, size: int) -> str:
    return f"{where}: {size:,} bytes; a catalog file may hold at most {MAX_FILE_BYTES:,} bytes"


def parse_json(data: bytes, where: str) -> Any:
    """Strict JSON from bytes: UTF-8, no repeated keys, no NaN or Infinity."""
    if len(data) > MAX_FILE_BYTES:
        raise BadRequest(file_too_large(where, len(data)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest(f"{where}: not UTF-8 text (byte {error.start})") from None
    try:
        return json.loads(text, object_pairs_hook=unique_keys, parse_constant=refuse_constant)
    except json.JSONDecodeError as error:
        raise BadRequest(f"{where}: invalid JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except ValueError as error:  # a repeated key, NaN or Infinity
        raise BadRequest(f"{where}: invalid JSON: {error}") from None
    except RecursionError:
        raise BadRequest(f"{where}: invalid JSON: nested too deeply") from None


def check_limits(value: Any, where: str, path: str = "", depth: int = 0) -> None:
    """Refuse what the limits forbid or what canonical JSON could not keep exactly."""
    if depth > MAX_DEPTH:
        raise BadRequest(f"{where}: {path or 'the entry'} is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        if len(value) > MAX_TEXT_CHARS:
            raise BadRequest(
                f"{where}: {path or 'a text'} is {len(value):,} characters long; "
                f"the limit for one text field is {MAX_TEXT_CHARS:,}"
            )
    elif isinstance(value, float) and not math.isfinite(value):
        raise BadRequest(f"{where}: {path} is a number too large for JSON")
    elif isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        raise BadRequest(f"{where}: {path} is an integer beyond 64 bits")
    elif isinstance(value, dict):
        for key, item in value.items():
            if len(key) > MAX_TEXT_CHARS:
                raise BadRequest(
                    f"{where}: a key in {path or 'the entry'} is longer than {MAX_TEXT_CHARS:,} characters"
                )
            check_limits(item, where, f"{path}.{key}".lstrip("."), depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_limits(item, where, f"{path}[{index}]", depth + 1)


def validation_problems(error: ValidationError) -> str:
    return inputs.problems(error, where="entry")


def parse_entry(value: Any, where: str) -> ParsedEntry:
    """Validate one entry (already parsed JSON) and compute its canonical form; BadRequest when it is refused."""
    if not isinstance(value, dict):
        raise BadRequest(f"{where}: a catalog entry is a JSON object, not {type(value).__name__}")
    check_limits(value, where)
    canonical = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    if len(canonical) > MAX_ENTRY_BYTES:
        raise BadRequest(
            f"{where}: the entry is {len(canonical):,} bytes as canonical JSON; the limit is {MAX_ENTRY_BYTES:,}"
        )
    try:
        entry = CatalogEntry.model_validate(value)
    except ValidationError as error:
        raise BadRequest(f"{where}: not a valid catalog entry: {validation_problems(error)}") from None
    return ParsedEntry(entry=entry, canonical=canonical.decode(), sha256=sha256_hex(canonical))


def entry_file_text(entry: Any) -> str:
    """An entry as a file: one-space indent and sorted keys, the layout of the upstream catalog's files."""
    return json.dumps(entry, indent=1, sort_keys=True, ensure_ascii=False)


COLLISION_PHRASES = re.compile(
    r"is not a unique name|different,? unrelated benchmark|unrelated benchmark (?:of|with|sharing) "
    r"(?:the|this) (?:exact )?same name|naming collision",
    re.IGNORECASE,
)
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


class SourceLink(Shape):
    title: str
    url: str
    accessed: str = Field(description="Date read (YYYY-MM-DD), or empty.")


class NameCollision(Shape):
    """Another benchmark with this name."""

    note: str = Field(description="The entry's words on it.")
    detected_from: str = Field(
        description="page.name_collision, or where the text rule found it ('body: <section>' or a page field)."
    )
    other_sources: list[SourceLink] = Field(default=[], description="Sources about the other, same-named benchmark.")


def body_paragraphs(body: str) -> list[tuple[str, str]]:
    """(section heading, paragraph text) for each paragraph of a markdown body."""
    found: list[tuple[str, str]] = []
    lines: list[str] = []
    section = ""
    for line in [*body.splitlines(), ""]:
        heading = HEADING.match(line)
        if heading or not line.strip():
            if lines:
                found.append((section, " ".join(part.strip() for part in lines)))
                lines = []
            if heading:
                section = heading.group(1)
            continue
        lines.append(line)
    return found


def name_collision(entry: CatalogEntry) -> NameCollision | None:
    """Whether another benchmark shares this entry's name, derived from the entry's own content.

    1. `page.name_collision`, when non-empty, states it (BenchToward's own entries use this field).
    2. Otherwise a text rule: the first paragraph of the markdown body, sections named "Lineage" first,
       then `page.measures` and `page.summary`, that says "is not a unique name", "different, unrelated
       benchmark" or "naming collision". A collision phrased otherwise is missed by the rule; stating it in
       `page.name_collision` is the reliable way.
    """
    page = entry.page
    others = [
        SourceLink(title=source.title, url=source.url, accessed=source.accessed)
        for source in page.sources
        if COLLISION_PHRASES.search(source.title)
    ]
    if page.name_collision.strip():
        return NameCollision(
            note=page.name_collision.strip(), detected_from="page.name_collision", other_sources=others
        )
    paragraphs = body_paragraphs(entry.body)
    ordered = [p for p in paragraphs if "lineage" in p[0].lower()] + [
        p for p in paragraphs if "lineage" not in p[0].lower()
    ]
    candidates = [(f"body: {section or 'introduction'}", text) for section, text in ordered]
    candidates += [("page.measures", page.measures), ("page.summary", page.summary)]
    for where, text in candidates:
        if COLLISION_PHRASES.search(text):
            return NameCollision(note=" ".join(text.split()), detected_from=where, other_sources=others)
    return None
