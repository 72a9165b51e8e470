"""Server-rendered pages (Jinja2, autoescaped). Each page is a thin adapter over the same tools/ capabilities
as /v1 and MCP; the templates and the filters in web/format.py decide only how things read."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from functools import cache
from typing import Any, Protocol, TypeVar
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import BaseModel
from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.staticfiles import StaticFiles

from tools import catalog, datasets, inputs, leaderboard, models, results, stats, tasks
from tools.errors import AppError, BadRequest, TaskNotFound
from tools.registry import Registry
from tools.schemas import TIER_MEANINGS
from tools.usage import Visitor
from web.boards import BoardView, board_view, clean_params, is_reference, task_view
from web.forest import Estimate, forest_plot
from web.format import FILTERS, money, number
from web.friendly import Wording, nearest, wording
from web.markdown import render_inline
from web.plots import cost_plot_for

__all__ = ["Site", "environment", "error_page", "known_page", "money", "number", "page_routes", "render"]
Q = TypeVar("Q", bound=BaseModel)
MAINTAINER_TEMPLATES = ("review_",)
MINI_ROWS = 5  # rows of each task's leaderboard on the home page
PLOT_ROWS = 30  # the forest plot draws the first rows of the view: past ~30 rows a plot no longer reads
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
    env.filters["md"] = render_inline
    env.globals["tier_meanings"] = TIER_MEANINGS
    env.globals["status_meanings"] = STATUS_MEANINGS
    env.globals["cost_plot_for"] = cost_plot_for  # _task_features.html
    return env


def render(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    # Public pages that exist announce a visit; the maintainers' pages (review_*) are no public visits and
    # carry no script at all.
    context.setdefault("beacon", status == 200 and not template.startswith(MAINTAINER_TEMPLATES))
    return HTMLResponse(environment().get_template(template).render(**context), status_code=status)


def error_page(request: Request, status: int, code: str, message: str) -> Response:
    words = wording(status, code, request.url.path)
    return render(
        "error.html", status=status, http_status=status, code=code, message=message, title=words.heading, words=words
    )


async def missing_task(site: Site, slug: str, version: str | None, status: int) -> Response:
    """A task page that does not exist: the versions that do, or the nearest task names."""
    task_list = (await tasks.list_tasks(site.registry, tasks.ListTasksQuery())).tasks
    versions = [t for t in task_list if t.slug == slug]
    if versions:
        words = Wording("No such version", f"{versions[0].title} has no version {version[:20] if version else ''}.")
        suggestions = versions
    else:
        words = Wording("No such task", f"There is no task called “{slug[:80]}”.")
        names = nearest(slug, sorted({t.slug for t in task_list} | {t.title for t in task_list}))
        suggestions = [t for t in task_list if t.slug in names or t.title in names]
    return render(
        "error.html",
        status=status,
        http_status=status,
        code="task_not_found" if status == 404 else "bad_request",
        message=f"no task {slug[:80]}" + (f"@{version[:20]}" if version else ""),
        title=words.heading,
        words=words,
        suggestions=suggestions,
    )


def parse(query: type[Q], values: Mapping[str, object]) -> Q:
    """A capability's query from page parameters, by the one parse path of /v1 and MCP; a page ignores names it
    does not take (links carry tracking tags), where /v1 refuses them."""
    return inputs.parse(query, values, strict=False)


def page(site: Site, template: str, title: str) -> Callable[[Request], Awaitable[Response]]:
    """A page with no data of its own (About, For authors, Privacy, Disclaimer)."""

    async def handle(request: Request) -> Response:
        return render(template, title=title, demo_only=await site_demo_only(site))

    return handle


def page_routes(site: Site) -> list[BaseRoute]:
    async def home(request: Request) -> Response:
        counts = await stats.stats(site.registry, stats.StatsQuery())
        task_list = (await tasks.list_tasks(site.registry, tasks.ListTasksQuery())).tasks
        latest = await results.search_results(site.registry, results.SearchResultsQuery(limit=10))
        return render(
            "home.html",
            title="BenchToward",
            full_title="BenchToward: open leaderboards of medical AI, with confidence intervals",
            stats=counts,
            tasks=task_list,
            boards=await mini_boards(site, task_list),
            real_results=sum(t.n_results for t in task_list if not t.demo),
            demo_results=sum(t.n_results for t in task_list if t.demo),
            latest=latest.results,
            mcp_url=site.registry.url("/mcp"),
            demo_only=demo_only(task_list),
        )

    async def task_index(request: Request) -> Response:
        task_list = await tasks.list_tasks(site.registry, tasks.ListTasksQuery())
        params = request.query_params
        if any(not value.strip() for value in params.values()):
            return RedirectResponse(f"/tasks?{urlencode(clean_params(params))}", 303)
        view = task_view(task_list.tasks, params)
        return render(
            "tasks.html", title="Tasks", tasks=task_list.tasks, view=view, demo_only=demo_only(task_list.tasks)
        )

    async def task_page(request: Request) -> Response:
        params = request.query_params
        if any(not value.strip() for value in params.values()):  # "&tier=" from a form: the same view, clean URL
            return RedirectResponse(f"{request.url.path}?{urlencode(clean_params(params), safe='@')}", 303)
        slug = request.path_params["slug"]
        try:
            detail = await tasks.get_task(
                site.registry, parse(tasks.GetTaskQuery, {"slug": slug, "version": params.get("version")})
            )
        except TaskNotFound:
            return await missing_task(site, slug, params.get("version"), 404)
        except BadRequest:  # a version that is no number
            return await missing_task(site, slug, params.get("version"), 400)
        query = leaderboard.LeaderboardQuery(task=detail.task, limit=leaderboard.MAX_LIMIT)
        board = await leaderboard.leaderboard(site.registry, query)
        view = board_view(board, params, f"/tasks/{detail.slug}", {"version": str(detail.version)})
        task_list = await tasks.list_tasks(site.registry, tasks.ListTasksQuery())
        return render(
            "task.html",
            title=detail.title,
            description=detail.summary,
            task=detail,
            board=board,
            view=view,
            plot=forest_plot([estimate(r) for r in view.rows[:PLOT_ROWS]], board.primary_metric),
            plot_rows=PLOT_ROWS,
            catalog_entry=await catalog.benchmark_link(site.registry, detail.catalog_id),
            board_query=board_query(detail.task, view),
            demo_task=next((t for t in task_list.tasks if t.demo and t.n_results), None),
            demo_only=demo_only(task_list.tasks),
        )

    async def dataset_index(request: Request) -> Response:
        dataset_list = await datasets.list_datasets(site.registry, datasets.ListDatasetsQuery())
        task_list = await tasks.list_tasks(site.registry, tasks.ListTasksQuery())
        return render(
            "datasets.html",
            title="Datasets",
            datasets=sorted(dataset_list.datasets, key=lambda d: d.demo),
            notes={d.slug: split_provenance(d.notes) for d in dataset_list.datasets},
            tasks=task_list.tasks,
            demo_only=demo_only(task_list.tasks),
        )

    return [
        Route("/", home, name="home"),
        Route("/tasks", task_index, name="task_index"),
        Route("/tasks/{slug}", task_page, name="task_page"),
        # /r/{run_id}, /models, /models/{slug} and /compare: web/feature_pages.py
        Route("/datasets", dataset_index, name="dataset_index"),
        Route("/about", page(site, "about.html", "About"), name="about"),
        Route("/authors", page(site, "authors.html", "For authors"), name="authors"),
        Route("/privacy", page(site, "privacy.html", "Privacy"), name="privacy"),
        Route("/disclaimer", page(site, "disclaimer.html", "Disclaimer"), name="disclaimer"),
        Mount("/static", StaticFiles(packages=[("web", "static")]), name="static"),
    ]


def board_query(task: str, view: BoardView) -> str:
    """The query string of the leaderboard's CSV and JSON links: the task and the filters the API knows."""
    parts = [("task", task), ("model_type", view.model_type), ("tier", view.tier)]
    return urlencode([(name, value) for name, value in parts if value], safe="@")


PROVENANCE = re.compile(r"\s*Provenance:\s*(\S+?)\.?\s*$")


def split_provenance(notes: str) -> tuple[str, str | None]:
    """A dataset's notes without a closing "Provenance: <repository path>." (a maintainer's pointer, shown apart)."""
    found = PROVENANCE.search(notes)
    return (notes[: found.start()], found.group(1)) if found else (notes, None)


async def mini_boards(
    site: Site, task_list: list[tasks.TaskSummary]
) -> list[tuple[tasks.TaskSummary, leaderboard.Leaderboard]]:
    """The top of each task's newest published leaderboard, real tasks before demo ones (the home page)."""
    newest: dict[str, tasks.TaskSummary] = {}
    for task in task_list:
        if task.status == "published" and (task.slug not in newest or task.version > newest[task.slug].version):
            newest[task.slug] = task
    ordered = sorted(newest.values(), key=lambda t: (t.demo, t.n_results == 0, t.title.casefold()))
    query = leaderboard.LeaderboardQuery
    return [(t, await leaderboard.leaderboard(site.registry, query(task=t.task, limit=MINI_ROWS))) for t in ordered]


def estimate(row: leaderboard.LeaderboardRow) -> Estimate:
    return Estimate(row.model.name, row.metric.value, row.metric.ci_low, row.metric.ci_high, is_reference(row))


async def site_demo_only(site: Site) -> bool:
    """Whether pages show the site-wide "Demo instance" notice (pass it to render as `demo_only`)."""
    return demo_only((await tasks.list_tasks(site.registry, tasks.ListTasksQuery())).tasks)


def demo_only(task_list: list[tasks.TaskSummary]) -> bool:
    """Whether the only published results are on demo tasks (the site then says so at the top of its pages)."""
    return any(t.n_results for t in task_list if t.demo) and not any(t.n_results for t in task_list if not t.demo)


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
