"""Catalog pages: /benchmarks (search and filters) and /benchmarks/{id} (one entry, every section), thin
adapters over tools/catalog.py like the other pages."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, TypeVar
from urllib.parse import urlencode

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from tools import catalog, inputs, leaderboard
from tools.catalog_entry import CatalogEntry
from tools.errors import BadRequest
from web.boards import Sortable, parse_sort, sort_links, sorted_rows
from web.markdown import is_web_url, render_inline, render_markdown
from web.pages import Site, render, site_demo_only

Query = TypeVar("Query", bound=BaseModel)
LEADERBOARD_PREVIEW = 5
BOOLEANS = {"true": "true", "yes": "true", "1": "true", "on": "true", "false": "false", "no": "false", "0": "false"}
BOOLEANS |= {"off": "false"}
COLLISION_POINTER = "*The naming collision with another benchmark is described at the top of this page.*"
# Language names a visitor may type for a code (ISO 639-1), and how a code reads in the filter's choices.
LANGUAGE_NAMES = {
    "ar": "Arabic", "de": "German", "en": "English", "es": "Spanish", "fr": "French", "hi": "Hindi",
    "it": "Italian", "ja": "Japanese", "ko": "Korean", "nl": "Dutch", "pl": "Polish", "pt": "Portuguese",
    "ru": "Russian", "sv": "Swedish", "th": "Thai", "tr": "Turkish", "vi": "Vietnamese", "zh": "Chinese",
}  # fmt: skip
LANGUAGE_ALIASES = {
    **{name.casefold(): code for code, name in LANGUAGE_NAMES.items()},
    "한국어": "ko", "中文": "zh", "日本語": "ja", "mandarin": "zh", "hangul": "ko",
}  # fmt: skip


def language_code(value: str) -> str:
    """A language filter as typed ("Korean", "KO", "ko-KR", "한국어") as the code entries carry."""
    text = value.strip().casefold()
    return LANGUAGE_ALIASES.get(text, text)


def status_code(value: str) -> str:
    """A disposition status as typed ("Runs here", "runs-here") as the code entries carry ("runs_here")."""
    return "_".join(value.strip().casefold().replace("-", " ").split())


def lenient(params: dict[str, str]) -> dict[str, str]:
    """The catalog's filters read leniently: names for language codes, words for status codes, tags in any case."""
    out = {k: v.strip() for k, v in params.items() if v.strip()}
    if "language" in out:
        out["language"] = language_code(out["language"])
    if "status" in out:
        out["status"] = status_code(out["status"])
    if "runs_here" in out:  # yes/no in any case; anything else means "any"
        answer = BOOLEANS.get(out.pop("runs_here").casefold())
        if answer is not None:
            out["runs_here"] = answer
    return out


def facet_counts(values: list[str]) -> list[tuple[str, int]]:
    counts = Counter(values)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


HARNESS_NAMES = {
    "opencompass": "OpenCompass",
    "lm_eval": "lm-evaluation-harness",
    "helm": "HELM",
    "inspect_evals": "inspect_evals",
    "bigbench": "BIG-bench",
    "other": "Other",
}


def parse(model: type[Query], values: dict[str, Any]) -> Query:
    """Page input validated by the capability's query model, by the one parse path of /v1 and MCP (a page
    ignores names it does not take); a bad value becomes a 400 error page."""
    return inputs.parse(model, values, strict=False)


CATALOG_SORTS: dict[str, Sortable] = {  # without `sort`, the API's order: relevance to the search, names first
    "name": ("Benchmark", lambda b: b.name.casefold(), False),
    "languages": ("Languages", lambda b: ", ".join(b.languages) or None, False),
    "here": ("At BenchToward", lambda b: (not b.runs_here, b.name.casefold()), False),
}


def body_without(body: str, note: str | None) -> str:
    """The body with the naming-collision paragraph the page's banner already shows replaced by a pointer to it,
    so that the page says it once."""
    if not note:
        return body
    wanted = " ".join(note.split())
    paragraphs = re.split(r"\n[ \t]*\n", body.replace("\r\n", "\n"))
    kept = [COLLISION_POINTER if " ".join(p.split()) == wanted else p for p in paragraphs]
    return "\n\n".join(kept)


def harness_rows(entry: CatalogEntry) -> list[tuple[str, str]]:
    """(harness, implementation) for every non-empty harness text, known harnesses first and "other" last."""
    values = entry.page.harness.model_dump()
    order = [name for name in HARNESS_NAMES if name != "other"]
    order += [name for name in values if name not in HARNESS_NAMES] + ["other"]
    return [
        (HARNESS_NAMES.get(name, name), values[name])
        for name in order
        if isinstance(values.get(name), str) and values[name].strip()
    ]


async def benchmark_tasks(site: Site, detail: catalog.BenchmarkDetail) -> list[tuple[catalog.CatalogTask, Any]]:
    """Each task that runs the benchmark, with the top of its leaderboard."""
    boards = []
    for task in detail.tasks:
        board = await leaderboard.leaderboard(
            site.registry, leaderboard.LeaderboardQuery(task=task.task, limit=LEADERBOARD_PREVIEW)
        )
        boards.append((task, board))
    return boards


def benchmark_page_routes(site: Site) -> list[BaseRoute]:
    async def benchmark_list(request: Request) -> Response:
        params = dict(request.query_params)
        if any(not value.strip() for value in params.values()):  # empty form fields: the same view, clean URL
            return RedirectResponse(f"/benchmarks?{urlencode(lenient(params))}", 303)
        everything = await catalog.list_benchmarks(site.registry, catalog.ListBenchmarksQuery(limit=catalog.MAX_LIMIT))
        wanted = lenient(params)
        sort, descending = parse_sort(wanted.get("sort", ""), CATALOG_SORTS, "relevance")
        try:
            query = parse(catalog.ListBenchmarksQuery, wanted)
            found = await catalog.list_benchmarks(site.registry, query)
        except BadRequest:  # a value no entry can have (a language no code reads as): nothing matches, said plainly
            query, found = catalog.ListBenchmarksQuery(), catalog.BenchmarkList(total=0, next=None, benchmarks=[])
        return render(
            "benchmarks.html",
            title="Benchmark catalog",
            description="Research pages for medical AI benchmarks: what each measures, metric, licence, "
            "contamination, saturation and lineage.",
            query=query,
            typed=wanted,
            found=found,
            rows=sorted_rows(found.benchmarks, CATALOG_SORTS[sort][1], descending)
            if sort in CATALOG_SORTS
            else found.benchmarks,
            sorts=sort_links(
                "/benchmarks",
                {k: v for k, v in wanted.items() if k != "sort"},
                CATALOG_SORTS,
                sort,
                descending,
                "relevance",
            ),
            languages=facet_counts([lang for b in everything.benchmarks for lang in b.languages]),
            statuses=facet_counts([b.disposition for b in everything.benchmarks]),
            tags=facet_counts([tag for b in everything.benchmarks for tag in b.tags]),
            language_names=LANGUAGE_NAMES,
            total=everything.total,
            demo_only=await site_demo_only(site),
        )

    async def benchmark_page(request: Request) -> Response:
        query = parse(catalog.GetBenchmarkQuery, {**dict(request.query_params), **request.path_params})
        detail = await catalog.get_benchmark(site.registry, query)
        entry = CatalogEntry.model_validate(detail.entry)
        return render(
            "benchmark.html",
            title=detail.name,
            detail=detail,
            entry=entry,
            page=entry.page,
            body=render_markdown(
                body_without(entry.body, detail.name_collision.note if detail.name_collision else None)
            ),
            boards=await benchmark_tasks(site, detail),
            lineage_ids={link.name: link.id for link in detail.lineage if link.id},
            harness=harness_rows(entry),
            is_web_url=is_web_url,
            md=render_inline,
            demo_only=await site_demo_only(site),
        )

    return [
        Route("/benchmarks", benchmark_list, name="benchmark_list"),
        Route("/benchmarks/{id}", benchmark_page, name="benchmark_page"),
    ]
