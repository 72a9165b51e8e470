"""Jinja filters: how numbers, money, statuses and rank ranges read on the pages."""

from __future__ import annotations

from typing import Any

import orjson
from markupsafe import Markup

STATUS_LABELS = {"in_review": "in review"}


def number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def interval(low: float | None, high: float | None, digits: int = 3) -> str:
    return "—" if low is None or high is None else f"{low:.{digits}f}–{high:.{digits}f}"


def status_label(status: str) -> str:
    return STATUS_LABELS.get(status, status.replace("_", " "))


def rank_range(value: list[int] | None) -> str:
    """The text a rank's tooltip shows and screen readers announce."""
    if not value:
        return "95% rank range: not computed yet"
    best, worst = value
    return f"95% rank range: {best}–{worst}"


def pretty_json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def text_only(value: str) -> Markup:
    """Escape text for an element's content (not an attribute): only &, < and > need it, so the quotes of a
    long JSON document stay as they are instead of growing to &#34; each."""
    return Markup(value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


FILTERS = {
    "number": number,
    "money": money,
    "percent": percent,
    "interval": interval,
    "status_label": status_label,
    "rank_range": rank_range,
    "pretty_json": pretty_json,
    "text_only": text_only,
}
