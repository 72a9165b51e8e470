"""How a leaderboard reads on a page: search, filters with counts, sorting and reference rows, all from query
parameters so that a view works without JavaScript and its URL can be shared.

The rows are the capability's (tools/leaderboard.py): ranks stay those of the full leaderboard whatever the view.
Baselines are reference rows on the page: unranked, drawn as vertical lines in the forest plot. (The API keeps
ranking them as places, so a model below a baseline keeps the rank the API gives it.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

from tools.leaderboard import Leaderboard, LeaderboardRow
from tools.tasks import TaskSummary

Row = TypeVar("Row")
Sortable = tuple[str, Callable[[Any], Any], bool]
REFERENCE_TYPES = frozenset({"baseline"})
SEARCH_MAX = 100
# sort name → (heading, key, whether its first click sorts descending)
SORTS: dict[str, Sortable] = {
    "rank": ("Rank", lambda r: r.rank, False),
    "model": ("Model", lambda r: r.model.name.casefold(), False),
    "score": ("Score", lambda r: r.metric.value, True),
    "n": ("n", lambda r: r.n, True),
    "parse_rate": ("Parse rate", lambda r: r.parse_rate, True),
    "cost": ("Cost", lambda r: r.cost_usd, False),
    "date": ("Date", lambda r: r.eval_date, True),
}
FILTERS = ("q", "model_type", "tier")


def is_reference(row: LeaderboardRow) -> bool:
    return row.model.type in REFERENCE_TYPES or row.tier == "baseline"


@dataclass(frozen=True)
class Facet:
    value: str
    count: int
    selected: bool


@dataclass(frozen=True)
class SortLink:
    name: str
    heading: str
    href: str
    current: str | None  # "ascending" | "descending" when the table is sorted by this column


@dataclass(frozen=True)
class BoardView:
    rows: list[LeaderboardRow]
    total: int
    q: str
    model_type: str
    tier: str
    sort: str
    descending: bool
    model_types: list[Facet]
    tiers: list[Facet]
    sorts: dict[str, SortLink]
    filtered: bool


def clean_params(params: Mapping[str, str]) -> dict[str, str]:
    """The parameters that carry a value (an empty `&tier=` from a form means "any")."""
    return {name: value.strip() for name, value in params.items() if value.strip()}


def facets(values: list[str], selected: str) -> list[Facet]:
    """Only the values that occur, with their counts, most frequent first."""
    counts = Counter(values)
    return [Facet(v, n, v == selected) for v, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def matches(row: LeaderboardRow, q: str) -> bool:
    words = q.casefold().split()
    text = " ".join([row.model.name, row.model.slug, row.model.provider or "", row.run_id]).casefold()
    return all(word in text for word in words)


def sorted_rows(rows: list[Row], key: Callable[[Row], Any], descending: bool) -> list[Row]:
    """Rows by one column, ties in their given order; unknown values (no cost, no parse rate) go last either way."""
    known = [r for r in rows if key(r) is not None]
    unknown = [r for r in rows if key(r) is None]
    return sorted(known, key=key, reverse=descending) + unknown


def parse_sort(raw: str, sorts: Mapping[str, object], default: str) -> tuple[str, bool]:
    """("score", True) from "-score"; an unknown name falls back to the default order."""
    name = raw.lstrip("-")
    return (name, raw.startswith("-")) if name in sorts else (default, False)


def sort_links(
    base: str,
    params: dict[str, str],
    sorts: Mapping[str, Sortable],
    sort: str,
    descending: bool,
    default: str,
    anchor: str = "",
) -> dict[str, SortLink]:
    links = {}
    for name, (heading, _, first_descending) in sorts.items():
        current = None
        next_descending = first_descending
        if name == sort:
            current = "descending" if descending else "ascending"
            next_descending = not descending
        wanted = {**params, "sort": ("-" if next_descending else "") + name}
        if wanted["sort"] == default:
            wanted.pop("sort")
        links[name] = SortLink(name, heading, f"{base}?{urlencode(wanted, safe='@')}{anchor}", current)
    return links


def board_view(board: Leaderboard, params: Mapping[str, str], base: str, keep: Mapping[str, str]) -> BoardView:
    """The rows a page shows for these parameters, and the links and choices around them.

    `keep` are parameters every link keeps (the task version); unknown sort names fall back to rank, and a
    filter value that occurs in no row simply matches nothing (the choices offered are only those that occur).
    """
    params = clean_params(params)
    q = params.get("q", "")[:SEARCH_MAX]
    model_type, tier = params.get("model_type", ""), params.get("tier", "")
    sort, descending = parse_sort(params.get("sort", "rank"), SORTS, "rank")
    rows = [
        r for r in board.rows if (not q or matches(r, q)) and model_type in ("", r.model.type) and tier in ("", r.tier)
    ]
    state = {**keep, **{k: v for k, v in (("q", q), ("model_type", model_type), ("tier", tier)) if v}}
    return BoardView(
        rows=sorted_rows(sorted(rows, key=lambda r: r.rank), SORTS[sort][1], descending),
        total=len(board.rows),
        q=q,
        model_type=model_type,
        tier=tier,
        sort=sort,
        descending=descending,
        model_types=facets([r.model.type for r in board.rows], model_type),
        tiers=facets([r.tier for r in board.rows], tier),
        sorts=sort_links(base, state, SORTS, sort, descending, "rank", "#board-heading"),
        filtered=bool(q or model_type or tier),
    )


TASK_SORTS: dict[str, Sortable] = {
    "title": ("Task", lambda t: (t.title.casefold(), -t.version), False),
    "version": ("Version", lambda t: t.version, True),
    "metric": ("Primary metric", lambda t: t.primary_metric, False),
    "status": ("Status", lambda t: t.status, False),
    "results": ("Results", lambda t: t.n_results, True),
}


@dataclass(frozen=True)
class TaskView:
    rows: list[TaskSummary]
    total: int
    q: str
    status: str
    kind: str
    statuses: list[Facet]
    kinds: list[Facet]
    sorts: dict[str, SortLink]
    filtered: bool


def task_view(task_list: list[TaskSummary], params: Mapping[str, str]) -> TaskView:
    """The task versions /tasks shows for its search (title, slug, dataset), status and kind filters and sort."""
    params = clean_params(params)
    q, status, kind = params.get("q", "")[:SEARCH_MAX], params.get("status", ""), params.get("kind", "")
    sort, descending = parse_sort(params.get("sort", "title"), TASK_SORTS, "title")
    words = q.casefold().split()
    rows = [
        t
        for t in task_list
        if all(w in f"{t.title} {t.task} {t.dataset}".casefold() for w in words) and status in ("", t.status)
        if kind in ("", t.kind)
    ]
    state = {k: v for k, v in (("q", q), ("status", status), ("kind", kind)) if v}
    return TaskView(
        rows=sorted_rows(sorted(rows, key=TASK_SORTS["title"][1]), TASK_SORTS[sort][1], descending),
        total=len(task_list),
        q=q,
        status=status,
        kind=kind,
        statuses=facets([t.status for t in task_list], status),
        kinds=facets([t.kind for t in task_list], kind),
        sorts=sort_links("/tasks", state, TASK_SORTS, sort, descending, "title"),
        filtered=bool(q or status or kind),
    )
