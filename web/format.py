"""Jinja filters: how numbers, money, statuses and rank ranges read on the pages."""

from __future__ import annotations

from typing import Any

import orjson
from markupsafe import Markup

from evaluator.kinds import BUILTIN_KINDS

STATUS_LABELS = {"in_review": "in review"}
# How metric names read to a person; a name not listed reads with its underscores as spaces, first letter capital.
METRIC_LABELS = {
    "accuracy": "Accuracy",
    "auroc": "AUROC",
    "auprc": "AUPRC",
    "f1": "F1",
    "macro_f1": "Macro F1",
    "brier": "Brier score",
    "ece": "ECE",
    "parse_rate": "Parse rate",
}


def number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def kind_label(kind: str) -> str:
    """A task kind as people read it: the shipped kind's own label, else its name with spaces."""
    known = BUILTIN_KINDS.get(kind)
    return known.display.label if known is not None else kind.replace("_", " ")


def money(value: float | None) -> str:
    return "—" if value is None else f"${value:,.2f}"


def count(value: int | None) -> str:
    """A count with thousands separators ("20,756"), "—" when unknown."""
    return "—" if value is None else f"{value:,}"


def metric_label(name: str | None) -> str:
    if not name:
        return "—"
    return METRIC_LABELS.get(name.lower(), name.replace("_", " ")[:1].upper() + name.replace("_", " ")[1:])


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def interval(low: float | None, high: float | None, digits: int = 3) -> str:
    return "—" if low is None or high is None else f"{low:.{digits}f}–{high:.{digits}f}"


def status_label(status: str) -> str:
    return STATUS_LABELS.get(status, status.replace("_", " "))


def rank_span(value: list[int] | None) -> str:
    """A 95% rank range as it reads inline: "2–3", or "1" when it is one rank; "" when not computed."""
    if not value:
        return ""
    best, worst = value
    return str(best) if best == worst else f"{best}–{worst}"


def rank_range(value: list[int] | None) -> str:
    """The text a rank's tooltip shows and screen readers announce."""
    if not value:
        return "95% rank range: not computed yet"
    return f"95% rank range: {rank_span(value)}"


def pretty_json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def text_only(value: str) -> Markup:
    """Escape text for an element's content (not an attribute): only &, < and > need it, so the quotes of a
    long JSON document stay as they are instead of growing to &#34; each."""
    return Markup(value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


FILTERS = {
    "number": number,
    "money": money,
    "count": count,
    "kind_label": kind_label,
    "metric_label": metric_label,
    "rank_span": rank_span,
    "percent": percent,
    "interval": interval,
    "status_label": status_label,
    "rank_range": rank_range,
    "pretty_json": pretty_json,
    "text_only": text_only,
}
