"""Server-rendered pages (Jinja2, autoescaped). Each page is a thin adapter over the same tools/ capabilities
as /v1 and MCP; the website issue fills them out."""

from __future__ import annotations

from functools import cache
from typing import Any, Protocol

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from tools import catalog, leaderboard, results, stats, tasks
from tools.registry import Registry
from tools.schemas import TIER_MEANINGS
from tools.usage import Visitor


class Site(Protocol):
    """What pages need from the running server."""

    @property
    def registry(self) -> Registry: ...

    def visitor(self, connection: HTTPConnection) -> Visitor: ...


def number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}"


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("web", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["number"] = number
    env.filters["money"] = money
    env.globals["tier_meanings"] = TIER_MEANINGS
    return env


def render(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(environment().get_template(template).render(**context), status_code=status)


def error_page(request: Request, status: int, code: str, message: str) -> Response:
    return render("error.html", status=status, code=code, message=message, title=f"{status} {code}")


def page_routes(site: Site) -> list[BaseRoute]:
    async def home(request: Request) -> Response:
        counts = await stats.stats(site.registry, stats.StatsQuery())
        task_list = await tasks.list_tasks(site.registry, tasks.ListTasksQuery())
        latest = await results.search_results(site.registry, results.SearchResultsQuery(limit=10))
        return render("home.html", title="BenchToward", stats=counts, tasks=task_list.tasks, latest=latest.results)

    async def task_page(request: Request) -> Response:
        version = request.query_params.get("version")
        query = tasks.GetTaskQuery(
            slug=request.path_params["slug"][:80],
            version=int(version) if version and version.isdigit() else None,
        )
        detail = await tasks.get_task(site.registry, query)
        board = await leaderboard.leaderboard(
            site.registry, leaderboard.LeaderboardQuery(task=detail.task, limit=leaderboard.MAX_LIMIT)
        )
        catalog_entry = await catalog.benchmark_link(site.registry, detail.catalog_id)
        return render("task.html", title=detail.title, task=detail, board=board, catalog_entry=catalog_entry)

    async def result_page(request: Request) -> Response:
        query = results.GetResultQuery(run_id=request.path_params["run_id"][:64])
        result = await results.get_result(site.registry, query)
        return render("result.html", title=f"{result.model.name} on {result.task}", result=result)

    return [
        Route("/", home, name="home"),
        Route("/tasks/{slug}", task_page, name="task_page"),
        Route("/r/{run_id}", result_page, name="result_page"),
        Mount("/static", StaticFiles(packages=[("web", "static")]), name="static"),
    ]
