"""Server-rendered pages (Jinja2, autoescaped). Each page is a thin adapter over the same tools/ capabilities
as /v1 and MCP; the templates and the filters in web/format.py decide only how things read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import cache
from typing import Any, Protocol, TypeVar
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import BaseModel
from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.staticfiles import StaticFiles

from tools import catalog, datasets, inputs, leaderboard, models, results, stats, tasks
from tools.errors import AppError
from tools.models import MODEL_TYPES
from tools.registry import Registry
from tools.schemas import TIER_MEANINGS
from tools.usage import Visitor
from web.forest import Estimate, forest_plot
from web.format import FILTERS, money, number

__all__ = ["Site", "environment", "error_page", "known_page", "money", "number", "page_routes", "render"]
Q = TypeVar("Q", bound=BaseModel)
TIERS = tuple(TIER_MEANINGS)
MAINTAINER_TEMPLATES = ("review_",)
STATUS_MEANINGS = {
    "building": "The task builder is preparing the protocol, data, code or baselines.",
    "in_review": "Built and waiting for its check: reference models are compared with the baselines, then the "
    "maintainers decide whether to publish.",
    "published": "Public, with a leaderboard. A preview version is published but may still change as a new version.",
    "evaluating": "A model's status while the model evaluator reads its paper, sets it up or runs it.",
}


class Site(Protocol):
    """What pages need from the running server."""

    @property
    def registry(self) -> Registry: ...

    def visitor(self, connection: HTTPConnection) -> Visitor: ...


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("web", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(FILTERS)
    env.globals["tier_meanings"] = TIER_MEANINGS
    env.globals["status_meanings"] = STATUS_MEANINGS
    return env


def render(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    # Public pages that exist announce a visit; the maintainers' pages (review_*) are no public visits and
    # carry no script at all.
    context.setdefault("beacon", status == 200 and not template.startswith(MAINTAINER_TEMPLATES))
    return HTMLResponse(environment().get_template(template).render(**context), status_code=status)


def error_page(request: Request, status: int, code: str, message: str) -> Response:
    return render("error.html", status=status, code=code, message=message, title=f"{status} {code}")


def parse(query: type[Q], values: Mapping[str, object]) -> Q:
    """A capability's query from page parameters, by the one parse path of /v1 and MCP; a page ignores names it
    does not take (links carry tracking tags), where /v1 refuses them."""
    return inputs.parse(query, values, strict=False)


def page(template: str, title: str) -> Callable[[Request], Awaitable[Response]]:
    """A page with no data of its own (About, For authors, Privacy, Disclaimer)."""

    async def handle(request: Request) -> Response:
        return render(template, title=title)

    return handle


def page_routes(site: Site) -> list[BaseRoute]:
    async def home(request: Request) -> Response:
        counts = await stats.stats(site.registry, stats.StatsQuery())
        task_list = await tasks.list_tasks(site.registry, tasks.ListTasksQuery())
        latest = await results.search_results(site.registry, results.SearchResultsQuery(limit=10))
        return render(
            "home.html",
            title="BenchToward",
            stats=counts,
            tasks=task_list.tasks,
            latest=latest.results,
            mcp_url=site.registry.url("/mcp"),
        )

    async def task_index(request: Request) -> Response:
        task_list = await tasks.list_tasks(site.registry, tasks.ListTasksQuery())
        return render("tasks.html", title="Tasks", tasks=task_list.tasks)

    async def task_page(request: Request) -> Response:
        params = request.query_params
        detail = await tasks.get_task(
            site.registry,
            parse(tasks.GetTaskQuery, {"slug": request.path_params["slug"], "version": params.get("version")}),
        )
        filters = {"model_type": params.get("model_type"), "tier": params.get("tier")}
        query = parse(leaderboard.LeaderboardQuery, {**filters, "task": detail.task, "limit": leaderboard.MAX_LIMIT})
        board = await leaderboard.leaderboard(site.registry, query)
        plot = forest_plot(
            [Estimate(r.model.name, r.metric.value, r.metric.ci_low, r.metric.ci_high) for r in board.rows],
            board.primary_metric,
        )
        catalog_entry = await catalog.benchmark_link(site.registry, detail.catalog_id)
        return render(
            "task.html",
            title=detail.title,
            task=detail,
            board=board,
            plot=plot,
            catalog_entry=catalog_entry,
            filters=query,
            model_types=MODEL_TYPES,
            tiers=TIERS,
            board_query=board_query(query),
        )

    async def result_page(request: Request) -> Response:
        query = parse(results.GetResultQuery, request.path_params)
        result = await results.get_result(site.registry, query)  # no visitor: reading the page is no download
        return render("result.html", title=f"{result.model.name} on {result.task}", result=result)

    async def model_page(request: Request) -> Response:
        detail = await models.get_model(
            site.registry, parse(models.GetModelQuery, {"model": request.path_params["slug"]})
        )
        return render("model.html", title=detail.name, model=detail)

    async def dataset_index(request: Request) -> Response:
        dataset_list = await datasets.list_datasets(site.registry, datasets.ListDatasetsQuery())
        task_list = await tasks.list_tasks(site.registry, tasks.ListTasksQuery())
        return render("datasets.html", title="Datasets", datasets=dataset_list.datasets, tasks=task_list.tasks)

    return [
        Route("/", home, name="home"),
        Route("/tasks", task_index, name="task_index"),
        Route("/tasks/{slug}", task_page, name="task_page"),
        Route("/r/{run_id}", result_page, name="result_page"),
        Route("/models/{slug:path}", model_page, name="model_page"),
        Route("/datasets", dataset_index, name="dataset_index"),
        Route("/about", page("about.html", "About"), name="about"),
        Route("/authors", page("authors.html", "For authors"), name="authors"),
        Route("/privacy", page("privacy.html", "Privacy"), name="privacy"),
        Route("/disclaimer", page("disclaimer.html", "Disclaimer"), name="disclaimer"),
        Mount("/static", StaticFiles(packages=[("web", "static")]), name="static"),
    ]


def board_query(query: leaderboard.LeaderboardQuery) -> str:
    """The query string of the leaderboard's CSV and JSON links: the task and the filters shown."""
    parts = [("task", query.task), ("model_type", query.model_type), ("tier", query.tier)]
    return urlencode([(name, value) for name, value in parts if value], safe="@")


async def page_exists(site: Site, route_name: str, params: Mapping[str, Any]) -> bool:
    """Whether a page with these parameters exists: the same capability the page calls must find it."""
    lookups: dict[str, Callable[[], Awaitable[object]]] = {
        "task_page": lambda: tasks.get_task(site.registry, parse(tasks.GetTaskQuery, params)),
        "result_page": lambda: results.get_result(site.registry, parse(results.GetResultQuery, params)),
        "model_page": lambda: models.get_model(site.registry, parse(models.GetModelQuery, {"model": params["slug"]})),
        "benchmark_page": lambda: catalog.get_benchmark(site.registry, parse(catalog.GetBenchmarkQuery, params)),
    }
    lookup = lookups.get(route_name)
    if lookup is None:
        return True
    try:
        await lookup()
    except AppError:
        return False
    return True


async def known_page(site: Site, routes: list[BaseRoute], path: str) -> bool:
    """Whether `path` is one of the site's pages (the beacon counts visits to these only)."""
    scope = {"type": "http", "method": "GET", "path": path, "root_path": ""}
    for route in routes:
        if not isinstance(route, Route):
            continue
        match, child = route.matches(scope)
        if match is Match.FULL:
            return await page_exists(site, route.name, child.get("path_params", {}))
    return False
