"""The pages that look inside results and models: a result (with its categories, ROC curve and items), a model,
the model index and the comparison of two results. Thin adapters over tools/, like every page."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from store import results as result_store
from store import tasks as task_store
from tools import compare, evidence, insights, leaderboard, model_card, model_index, models, results, tasks
from tools.errors import RunNotFound
from tools.models import MODEL_TYPES
from tools.registry import Registry
from tools.schemas import ResultDetail
from web.pages import Site, parse, render
from web.plots import roc_plot
from web.result_view import human_versions, p_value, signed, token_figures

MAX_SEARCH = 100
MODEL_STATUS_MEANINGS = {
    "building": "BenchToward is registering this model.",
    "evaluating": "BenchToward's model evaluator is reading its paper, setting it up or running it.",
    "in_review": "Its results are computed and wait for a maintainer's check.",
    "published": "Registered; its published results are on the task leaderboards.",
}


def feature_page_routes(site: Site) -> list[BaseRoute]:
    async def result_page(request: Request) -> Response:
        query = parse(results.GetResultQuery, request.path_params)
        detail = await results.get_result(site.registry, query)  # no visitor: reading the page is no download
        return render(
            "result.html",
            title=f"{detail.model.name} on {detail.task}",
            **await result_context(site.registry, detail, request),
        )

    async def model_page(request: Request) -> Response:
        detail = await models.get_model(
            site.registry, parse(models.GetModelQuery, {"model": request.path_params["slug"]})
        )
        ranks = await board_positions(site.registry, {row.task for row in detail.results})
        found = await evidence.list_evidence(site.registry, evidence.ListEvidenceQuery(model=detail.slug))
        return render(
            "model.html",
            evidence=found.evidence,
            title=detail.name,
            model=detail,
            card=model_card.model_card(site.registry, detail.slug),
            ranks=ranks,
            model_status_meanings=MODEL_STATUS_MEANINGS,
        )

    async def model_index_page(request: Request) -> Response:
        query = parse(
            model_index.ModelIndexQuery, {"q": request.query_params.get("q"), "type": request.query_params.get("type")}
        )
        found = await model_index.model_index(site.registry, query)
        return render("models.html", title="Models", found=found, query=query, model_types=MODEL_TYPES)

    async def compare_page(request: Request) -> Response:
        params = {name: request.query_params.get(name) for name in ("task", "a", "b")}
        comparison = None
        if all(params.values()):
            comparison = await compare.compare(site.registry, parse(compare.CompareQuery, params))
        listed = await tasks.list_tasks(site.registry, tasks.ListTasksQuery())  # the list_tasks capability's data
        published = [t for t in listed.tasks if t.status == "published"]
        rows: list[leaderboard.LeaderboardRow] = []
        if params["task"]:
            query = parse(leaderboard.LeaderboardQuery, {"task": params["task"], "limit": leaderboard.MAX_LIMIT})
            rows = (await leaderboard.leaderboard(site.registry, query)).rows
        title = f"{comparison.a.model.name} vs {comparison.b.model.name}" if comparison else "Compare two results"
        return render(
            "compare.html",
            title=title,
            comparison=comparison,
            params=params,
            tasks=published,
            rows=rows,
            signed=signed,
            p_value=p_value,
        )

    return [
        Route("/r/{run_id}", result_page, name="result_page"),
        Route("/models", model_index_page, name="model_index"),
        Route("/models/", model_index_page, name="model_index_slash"),
        Route("/models/{slug:path}", model_page, name="model_page"),
        Route("/compare", compare_page, name="compare_page"),
    ]


async def board_positions(registry: Registry, task_refs: set[str]) -> dict[str, leaderboard.LeaderboardRow]:
    """Each published result's leaderboard row (rank and rank range), by run id, over the given tasks."""
    positions = {}
    for ref in sorted(task_refs):
        board = await leaderboard.leaderboard(
            registry, leaderboard.LeaderboardQuery(task=ref, limit=leaderboard.MAX_LIMIT)
        )
        positions.update({row.run_id: row for row in board.rows})
    return positions


async def result_context(registry: Registry, detail: ResultDetail, request: Request) -> dict[str, Any]:
    stored = result_store.get_result(registry.store, detail.run_id)
    task = task_store.get_task(registry.store, stored.task_slug, stored.task_version) if stored else None
    if stored is None or task is None:  # the result was read a moment ago
        raise RunNotFound(f"no result with run_id {detail.run_id!r}")
    kind = registry.kinds.get(task.kind)
    sections = kind.display.sections if kind is not None else frozenset()
    found = await insights.result_insights(registry, stored, sections)
    items = None
    if "items" in sections:
        params = request.query_params
        page = params.get("page", "1")
        items = insights.item_page(
            registry,
            stored,
            page=int(page) if page.isascii() and page.isdigit() and len(page) < 7 else 1,
            wrong_only=params.get("wrong") == "1",
            search=(params.get("item") or "")[:MAX_SEARCH],
            items_public=found.items_public,
        )
    positions = await board_positions(registry, {detail.task}) if detail.status == "published" else {}
    return {
        "result": detail,
        "card": model_card.model_card(registry, detail.model.slug),
        "position": positions.get(detail.run_id),
        "board_size": len(positions),
        "insights": found,
        "roc": roc_plot(found.roc) if found.roc else None,
        "items": items,
        "items_base": items_base(detail.run_id, items),
        "tokens": token_figures(detail.versions),
        "versions": human_versions(detail.versions, detail.config),
        "evidence": await evidence.evidence_beside(registry, stored),
    }


def items_base(run_id: str, items: insights.ItemPage | None) -> str:
    """The item browser's link without its page number: the search and filter kept, ready for `page=`."""
    kept = {"item": items.search, "wrong": "1" if items.wrong_only else ""} if items else {}
    query = urlencode([(name, value) for name, value in kept.items() if value])
    return f"/r/{run_id}?{query}&" if query else f"/r/{run_id}?"
