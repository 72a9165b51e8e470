"""Catalog pages: /benchmarks (search and filters) and /benchmarks/{id} (one entry, every section), thin
adapters over tools/catalog.py like the other pages."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from tools import catalog, inputs, leaderboard
from tools.catalog_entry import CatalogEntry
from web.markdown import is_web_url, render_inline, render_markdown
from web.pages import Site, render

Query = TypeVar("Query", bound=BaseModel)
LEADERBOARD_PREVIEW = 5
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
        query = parse(catalog.ListBenchmarksQuery, dict(request.query_params))
        found = await catalog.list_benchmarks(site.registry, query)
        return render("benchmarks.html", title="Benchmark catalog", query=query, found=found)

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
            body=render_markdown(entry.body),
            boards=await benchmark_tasks(site, detail),
            lineage_ids={link.name: link.id for link in detail.lineage if link.id},
            harness=harness_rows(entry),
            is_web_url=is_web_url,
            md=render_inline,
        )

    return [
        Route("/benchmarks", benchmark_list, name="benchmark_list"),
        Route("/benchmarks/{id}", benchmark_page, name="benchmark_page"),
    ]
