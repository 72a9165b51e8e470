"""Capabilities: list and search the benchmark catalog, and get one entry with the tasks that run it.

The catalog has a research page for every medical benchmark a score may come from, run here or not: what it
measures, its metric, data and licence, harnesses, contamination, saturation, lineage, sources, and
BenchToward's disposition. Entries come from `benchtoward catalog import` and the shipped entries
(`evaluator/specs/catalog/`); see tools/catalog_entry.py for the format and tools/catalog_files.py for imports.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Literal

import orjson
from pydantic import Field

from store import catalog as catalog_store
from store import tasks as task_store
from store.catalog import Filters, Revision
from store.db import Store
from store.tasks import Task
from tools import paging
from tools.catalog_entry import ENTRY_ID, CatalogEntry, NameCollision, name_collision
from tools.errors import BadRequest, BenchmarkNotFound
from tools.inputs import Query
from tools.paging import cursor_field, next_field, total_field
from tools.registry import Registry
from tools.schemas import ROW_ID_MAX, Shape

MAX_LIMIT = 1000
MAX_SEARCH_WORDS = 12
WORD = re.compile(r"\w+")
# Regular expressions that Python, Rust (pydantic) and JSON Schema (ECMA 262) read alike: \w and \p{L} are
# read differently by each, so a character class names the ASCII characters it refuses and admits the rest.
TAG_PATTERN = r"^[^\x00-\x2a\x2c\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]+$"  # letters, digits, _ . + -, non-ASCII
SEARCHABLE = re.compile(r"[^\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]")  # an ASCII letter/digit/_, or non-ASCII


Standing = Literal["building", "in_review", "published"]
# Seed 002's words for where a benchmark stands, most advanced first (in_review reads "in review" on pages).
STANDINGS: tuple[Standing, ...] = ("published", "in_review", "building")
STANDING_HELP = "building, in_review or published (its furthest non-demo task); null when none (see `disposition`)."
RUNS_HERE_HELP = "True when a non-demo BenchToward task runs it."


class ListBenchmarksQuery(Query):
    tag: str | None = Field(
        default=None,
        max_length=80,
        pattern=TAG_PATTERN,
        description="Only entries with this tag (any case).",
    )
    language: str | None = Field(
        default=None,
        max_length=20,
        pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$",
        description="Dataset language code, e.g. ko, zh, en.",
    )
    status: str | None = Field(
        default=None,
        max_length=40,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="Only entries with this disposition, e.g. runs_here, not_run_here, unassessed.",
    )
    runs_here: bool | None = Field(default=None, description="true: only benchmarks run here; false: only the others.")
    q: str | None = Field(
        default=None,
        max_length=200,
        description="Words (as prefixes) in name, aliases, tags or summary; best match first.",
        json_schema_extra={"pattern": SEARCHABLE.pattern},  # at least one letter or digit
    )
    limit: int = Field(default=100, ge=1, le=MAX_LIMIT, description="Entries per page.")
    cursor: str | None = cursor_field()


class GetBenchmarkQuery(Query):
    id: str = Field(max_length=80, pattern=ENTRY_ID, description="Catalog entry id, e.g. medbench.")
    revision: int | None = Field(default=None, ge=1, le=ROW_ID_MAX, description="A stored revision; default: newest.")


class CatalogTask(Shape):
    """A task version that runs it."""

    task: str = Field(description="slug@version")
    title: str
    status: str
    preview: bool
    demo: bool
    n_results: int = Field(description="Published results.")
    url: str = Field(description="Its page, with the leaderboard.")
    leaderboard_url: str = Field(description="The leaderboard as JSON.")


class BenchmarkSummary(Shape):
    """A catalog entry (its newest revision)."""

    id: str
    name: str
    revision: int
    summary: str
    aliases: list[str]
    tags: list[str]
    languages: list[str]
    benchmark_status: str = Field(description="The benchmark's own status, e.g. active.")
    disposition: str = Field(description="BenchToward's disposition, e.g. runs_here or unassessed.")
    runs_here: bool = Field(description=RUNS_HERE_HELP)
    standing: Standing | None = Field(description=STANDING_HELP)
    tasks: list[str] = Field(description="Task versions (slug@version) that run it.")
    name_collision: bool = Field(description="Another benchmark has this name (see get_benchmark).")
    url: str


class BenchmarkList(Shape):
    total: int = total_field()
    next: str | None = next_field()
    benchmarks: list[BenchmarkSummary]


class RevisionInfo(Shape):
    revision: int
    sha256: str = Field(description="sha256 of the revision's canonical JSON.")
    origin: str = Field(description="shipped or import (benchtoward catalog import).")
    imported_at: str


class LineageLink(Shape):
    """A benchmark in the entry's lineage."""

    relation: str = Field(description="family | predecessor | successor | variant")
    name: str = Field(description="As the entry writes it.")
    id: str | None = Field(description="Its catalog id, when it has an entry.")
    url: str | None


class BenchmarkDetail(Shape):
    """One catalog entry: its JSON exactly as imported, with what BenchToward derives from it."""

    id: str
    name: str
    revision: int = Field(description="The revision shown.")
    latest_revision: int
    revisions: list[RevisionInfo]
    runs_here: bool = Field(description=RUNS_HERE_HELP)
    standing: Standing | None = Field(description=STANDING_HELP)
    tasks: list[CatalogTask] = Field(description="Demo tasks last.")
    name_collision: NameCollision | None = Field(description="Read it before comparing scores.")
    lineage: list[LineageLink]
    url: str
    entry: dict[str, Any] = Field(
        description="The entry JSON as imported (page, body in markdown, disposition), unknown fields kept."
    )


class BenchmarkLink(Shape):
    id: str
    name: str
    url: str


def match_expression(text: str) -> str:
    """An FTS5 expression from free text: each word as a quoted prefix term, any of them enough (OR), so a
    phrase such as "korean medical question answering" finds the entries that share some of its words, and
    bm25 ranks those sharing more, and rarer, words first. Quoting makes FTS5 operators and punctuation in the
    input plain words, so no input is an FTS5 syntax error."""
    if SEARCHABLE.search(text) is None:
        raise BadRequest("q must contain at least one letter or digit")
    words = list(dict.fromkeys(word.lower() for word in WORD.findall(text)))
    if not words:  # only non-ASCII punctuation or symbols: no word to find, so nothing matches
        return '""'
    return " OR ".join(f'"{word}"*' for word in words[:MAX_SEARCH_WORDS])


def standing_of(tasks: Sequence[Task]) -> Standing | None:
    """The most advanced status among the non-demo task versions that run a benchmark; None when none runs it."""
    statuses = {task.status for task in tasks if not task.demo}
    return next((status for status in STANDINGS if status in statuses), None)


def name_key(name: str) -> str:
    """A benchmark name as compared: case, width, spacing and punctuation ignored ("MedQA-USMLE" = "medqa usmle")."""
    return "".join(character for character in unicodedata.normalize("NFKC", name).casefold() if character.isalnum())


def catalog_entry_for(store: Store, name: str) -> str | None:
    """The catalog id of the benchmark a paper names, or None: the entry whose id, name or one of whose aliases
    equals `name` once case, spacing and punctuation are ignored. An id or a name wins over an alias; a name
    that two entries claim at the same level is ambiguous and gives None (a claim is better left unlinked
    than linked to the wrong benchmark, e.g. two benchmarks both called MedBench)."""
    key = name_key(name)
    if not key:
        return None
    keyed = [
        (id, ({name_key(id)}, {name_key(entry_name)}, {name_key(alias) for alias in aliases}))
        for id, entry_name, aliases in catalog_store.entry_names(store)
    ]
    for level in range(3):  # the id, then the name, then an alias
        found = {id for id, keys in keyed if key in keys[level]}
        if found:
            return found.pop() if len(found) == 1 else None
    return None


def catalog_tasks(registry: Registry, id: str) -> list[Task]:
    return task_store.tasks_for_catalog(registry.store, id)


def entry_url(registry: Registry, id: str) -> str:
    return registry.url(f"/benchmarks/{id}")


def summary_of(registry: Registry, stored: Revision, tasks: Sequence[Task]) -> BenchmarkSummary:
    entry = CatalogEntry.model_validate(orjson.loads(stored.entry_json))
    return BenchmarkSummary(
        id=stored.id,
        name=entry.page.name,
        revision=stored.revision,
        summary=entry.page.summary,
        aliases=entry.page.aliases,
        tags=entry.page.tags,
        languages=entry.page.dataset.languages,
        benchmark_status=entry.page.status,
        disposition=entry.disposition.status,
        runs_here=any(not task.demo for task in tasks),
        standing=standing_of(tasks),
        tasks=[task.ref for task in tasks],
        name_collision=name_collision(entry) is not None,
        url=entry_url(registry, stored.id),
    )


async def list_benchmarks(registry: Registry, query: ListBenchmarksQuery) -> BenchmarkList:
    """Use to find which benchmark a score name refers to, or which medical benchmarks exist (run here or not).
    On `name_collision`, read get_benchmark first."""
    status = known_status(registry, query.status)
    offset = paging.offset_of(query)
    filters = Filters(
        tag=query.tag,
        language=query.language,
        status=status,
        runs_here=query.runs_here,
        match=match_expression(query.q) if query.q is not None else None,
        exact=" ".join(query.q.split()) if query.q is not None else None,
        limit=query.limit,
        offset=offset,
    )
    found, total = catalog_store.list_entries(registry.store, filters)
    tasks: dict[str, list[Task]] = defaultdict(list)
    for task in task_store.list_tasks(registry.store):
        if task.catalog_id:
            tasks[task.catalog_id].append(task)
    # Validating each entry costs ~0.5 ms: a long list is summarised in a worker thread, off the event loop.
    summaries = await asyncio.to_thread(lambda: [summary_of(registry, stored, tasks[stored.id]) for stored in found])
    following = paging.next_cursor(query, offset, len(summaries), total)
    return BenchmarkList(total=total, next=following, benchmarks=summaries)


def known_status(registry: Registry, status: str | None) -> str | None:
    """A disposition status as entries spell it (any case); bad_request listing the known ones otherwise."""
    if status is None:
        return None
    known = registry.remember(("dispositions",), lambda: catalog_store.dispositions(registry.store))
    for name in known:
        if name.lower() == status.lower():
            return name
    raise BadRequest(f"status: {status[:40]!r} is no disposition status; the catalog has: {', '.join(known)}")


def catalog_task(registry: Registry, task: Task) -> CatalogTask:
    return CatalogTask.from_row(
        task,
        task=task.ref,
        url=registry.url(f"/tasks/{task.slug}?version={task.version}"),
        leaderboard_url=registry.url(f"/v1/leaderboard?task={task.ref}"),
    )


def lineage_links(registry: Registry, entry: CatalogEntry) -> list[LineageLink]:
    lineage = entry.page.lineage
    named = [("family", lineage.family), ("predecessor", lineage.predecessor)]
    named += [("successor", name) for name in lineage.successors] + [("variant", name) for name in lineage.variants]
    named = [(relation, name.strip()) for relation, name in named if name.strip()]
    known = catalog_store.find_entries(registry.store, [name for _, name in named])
    links = []
    for relation, name in named:
        id = known[name][0] if name in known and known[name][0] != entry.page.id else None
        links.append(
            LineageLink(relation=relation, name=name, id=id, url=entry_url(registry, id) if id is not None else None)
        )
    return links


async def get_benchmark(registry: Registry, query: GetBenchmarkQuery) -> BenchmarkDetail:
    """Use to learn which benchmark a score came from and how far to trust it: one catalog entry and the tasks
    that run it."""
    revisions = catalog_store.list_revisions(registry.store, query.id)
    if not revisions:
        raise BenchmarkNotFound(f"no catalog entry {query.id!r}; GET /v1/benchmarks lists the catalog")
    number = revisions[-1].revision if query.revision is None else query.revision
    shown = next((stored for stored in revisions if stored.revision == number), None)
    if shown is None:
        raise BenchmarkNotFound(f"no revision {number} of {query.id!r}; its revisions are 1-{revisions[-1].revision}")
    raw = orjson.loads(shown.entry_json)
    entry = CatalogEntry.model_validate(raw)
    tasks = catalog_tasks(registry, query.id)
    return BenchmarkDetail(
        id=query.id,
        name=entry.page.name,
        revision=shown.revision,
        latest_revision=revisions[-1].revision,
        revisions=[
            RevisionInfo(revision=r.revision, sha256=r.entry_sha256, origin=r.origin, imported_at=r.imported_at)
            for r in revisions
        ],
        runs_here=any(not task.demo for task in tasks),
        standing=standing_of(tasks),
        tasks=[catalog_task(registry, task) for task in tasks],
        name_collision=name_collision(entry),
        lineage=lineage_links(registry, entry),
        url=entry_url(registry, query.id),
        entry=raw,
    )


async def benchmark_link(registry: Registry, id: str | None) -> BenchmarkLink | None:
    """The catalog entry a task names (its `catalog_id`), or None when the task names none or it is not in the
    catalog."""
    if not id:
        return None
    return registry.remember(("benchmark_link", id), lambda: build_benchmark_link(registry, id))


def build_benchmark_link(registry: Registry, id: str) -> BenchmarkLink | None:
    stored = catalog_store.get_revision(registry.store, id)  # the whole entry (up to 1 MB): once per change
    if stored is None:
        return None
    name = orjson.loads(stored.entry_json)["page"]["name"]
    return BenchmarkLink(id=id, name=name, url=entry_url(registry, id))
