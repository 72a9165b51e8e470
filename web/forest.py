"""A forest plot of a leaderboard: each result's score as a dot with its 95% CI as a line, drawn as SVG on
the server (readable without JavaScript). This module computes the geometry; `task.html` draws it.

The plot scales to its container (a viewBox, no minimum width), so it is drawn narrow: each model's name sits
above its interval instead of in a label column beside it, and a phone shows the whole plot at a legible size.
Baselines are no rows: they are references, drawn as dashed vertical lines labelled at the top."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 480
LEFT = 14
RIGHT_MARGIN = 18
ROW_HEIGHT = 40  # a name line above an interval line
REFERENCE_HEIGHT = 18  # one label line per reference at the top
TOP = 6
AXIS_HEIGHT = 44
LABEL_CHARS = 44
NICE_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)


@dataclass(frozen=True)
class Point:
    """One model's row: its label, the dot and the interval (x in SVG units)."""

    label: str
    title: str
    y: float
    x: float
    x_low: float
    x_high: float


@dataclass(frozen=True)
class Reference:
    """A baseline's value as a vertical line; its label sits on its own line at the top."""

    label: str
    title: str
    x: float
    label_y: float
    anchor: str  # "start" or "end": the label runs away from the plot's nearer edge


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class ForestPlot:
    width: int
    height: int
    plot_left: int
    plot_right: int
    axis_y: float
    points: list[Point]
    ticks: list[Tick]
    metric: str
    omitted: int  # rows without a value, not drawn
    references: list[Reference]
    rows_top: float  # where the first row starts (below the references' labels)


@dataclass(frozen=True)
class Estimate:
    """What the plot needs of a leaderboard row."""

    name: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    reference: bool = False  # a baseline: drawn as a vertical line, not as a row


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values within [low, high], about `count` of them (never more than a few times that)."""
    raw = (high - low) / max(count, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(s * magnitude for s in NICE_STEPS if s * magnitude >= raw)
    first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)]


def domain(estimates: Sequence[Estimate]) -> tuple[float, float]:
    """The x range: every interval, padded a little; kept within [0, 1] when all values are proportions."""
    values = [v for e in estimates for v in (e.value, e.ci_low, e.ci_high) if v is not None]
    low, high = min(values), max(values)
    scale = max(abs(low), abs(high), 1.0)
    pad = max((high - low) * 0.05, scale * 0.01)  # identical values still get an axis around them
    low, high = low - pad, high + pad
    if all(0.0 <= v <= 1.0 for v in values):
        low, high = max(low, 0.0), min(high, 1.0)
    return low, high


def short_label(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def interval_text(estimate: Estimate, digits: int) -> str:
    text = f"{estimate.name}: {estimate.value:.{digits}f}"
    if estimate.ci_low is not None and estimate.ci_high is not None:
        text += f" (95% CI {estimate.ci_low:.{digits}f}–{estimate.ci_high:.{digits}f})"
    return text


def forest_plot(estimates: Sequence[Estimate], metric: str, digits: int = 3) -> ForestPlot | None:
    """The plot's geometry, or None when no row has a value."""
    drawn = [e for e in estimates if e.value is not None]
    if not drawn:
        return None
    low, high = domain(drawn)
    left, right = LEFT, WIDTH - RIGHT_MARGIN

    def x_of(value: float) -> float:
        return round(left + (value - low) / (high - low) * (right - left), 1)

    rows = [e for e in drawn if not e.reference]
    references = []
    for index, estimate in enumerate(e for e in drawn if e.reference):
        assert estimate.value is not None  # filtered above
        x = x_of(estimate.value)
        references.append(
            Reference(
                label=f"{short_label(estimate.name)} {estimate.value:.{digits}f}",
                title=f"Reference (baseline, unranked): {interval_text(estimate, digits)}",
                x=x,
                label_y=TOP + index * REFERENCE_HEIGHT + 12,
                anchor="end" if x > (left + right) / 2 else "start",
            )
        )
    rows_top = TOP + len(references) * REFERENCE_HEIGHT
    points = [
        Point(
            label=short_label(estimate.name),
            title=interval_text(estimate, digits),
            y=rows_top + index * ROW_HEIGHT + ROW_HEIGHT - 10,
            x=x_of(estimate.value),
            x_low=x_of(estimate.ci_low if estimate.ci_low is not None else estimate.value),
            x_high=x_of(estimate.ci_high if estimate.ci_high is not None else estimate.value),
        )
        for index, estimate in enumerate(rows)
        if estimate.value is not None
    ]
    axis_y = rows_top + len(points) * ROW_HEIGHT + 4
    ticks = [Tick(x=x_of(t), label=f"{t:g}") for t in nice_ticks(low, high)]
    return ForestPlot(
        width=WIDTH,
        height=int(axis_y + AXIS_HEIGHT),
        plot_left=left,
        plot_right=right,
        axis_y=axis_y,
        points=points,
        ticks=ticks,
        metric=metric,
        omitted=len(estimates) - len(drawn),
        references=references,
        rows_top=rows_top,
    )
