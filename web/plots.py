"""Small server-drawn SVG plots (viewBox only, so they scale to their container): a result's ROC curve and a
task's cost-versus-score scatter. This module computes the geometry; `_plots.html` draws it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tools.insights import Roc
from tools.leaderboard import Leaderboard
from web.forest import nice_ticks

SIZE = 320  # the ROC plot's square: the plot area plus room for the axes on the left and below
PAD = 44
PAD_FAR = 12  # above and to the right
COST_WIDTH, COST_HEIGHT = 440, 300  # small enough that its 11-12 px text stays legible scaled to a phone
COST_LEFT, COST_BOTTOM, COST_RIGHT, COST_TOP = 64, 44, 16, 12


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class RocPlot:
    size: int
    pad: int  # the plot area runs from pad to far on x, and from size - pad up to size - far on y
    far: int
    span: int
    path: str
    ticks: list[Tick]  # the same ticks on both axes


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    label: str
    title: str
    baseline: bool


@dataclass(frozen=True)
class CostPlot:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    dots: list[Dot]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    metric: str
    log_cost: bool


@dataclass(frozen=True)
class Costed:
    """What the cost plot needs of a leaderboard row."""

    name: str
    cost_usd: float | None
    value: float | None
    baseline: bool


def roc_plot(roc: Roc) -> RocPlot:
    span = SIZE - PAD - PAD_FAR

    def point(fpr: float, tpr: float) -> str:
        return f"{PAD + fpr * span:.1f},{SIZE - PAD - tpr * span:.1f}"

    path = "M" + " L".join(point(f, t) for f, t in zip(roc.fpr, roc.tpr, strict=True))
    ticks = [Tick(at=PAD + v * span, label=f"{v:g}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)]
    return RocPlot(size=SIZE, pad=PAD, far=SIZE - PAD_FAR, span=span, path=path, ticks=ticks)


def cost_plot(rows: Sequence[Costed], metric: str) -> CostPlot | None:
    """The scatter of known costs against scores, or None when fewer than two rows have both.

    Costs spanning more than a factor of 100 go on a log axis (zero-cost baselines are then left out)."""
    known = [r for r in rows if r.cost_usd is not None and r.value is not None]
    positive = [r.cost_usd for r in known if r.cost_usd]
    log_cost = bool(positive) and max(positive) / min(positive) > 100
    if log_cost:
        known = [r for r in known if r.cost_usd]
    if len(known) < 2 or not positive:  # nothing to see when every known cost is zero
        return None

    def cost_axis(value: float) -> float:
        return math.log10(value) if log_cost else value

    xs = [cost_axis(r.cost_usd or 0.0) for r in known]
    ys = [r.value or 0.0 for r in known]
    x_low, x_high = _padded(min(xs), max(xs), floor_zero=not log_cost)
    y_low, y_high = _padded(min(ys), max(ys), floor_zero=False)
    plot_right, plot_bottom = COST_WIDTH - COST_RIGHT, COST_HEIGHT - COST_BOTTOM

    def x_of(value: float) -> float:
        return round(COST_LEFT + (value - x_low) / (x_high - x_low) * (plot_right - COST_LEFT), 1)

    def y_of(value: float) -> float:
        return round(plot_bottom - (value - y_low) / (y_high - y_low) * (plot_bottom - COST_TOP), 1)

    dots = [
        Dot(
            x=x_of(x),
            y=y_of(y),
            label=r.name if len(r.name) <= 20 else r.name[:19] + "…",
            title=f"{r.name}: {metric} {y:.3f}, cost ${r.cost_usd:,.2f}",
            baseline=r.baseline,
        )
        for r, x, y in zip(known, xs, ys, strict=True)
    ]
    x_ticks = [Tick(x_of(t), f"${10**t:,.2g}" if log_cost else f"${t:,.2f}") for t in nice_ticks(x_low, x_high, 4)]
    y_ticks = [Tick(y_of(t), f"{t:g}") for t in nice_ticks(y_low, y_high, 6)]
    return CostPlot(
        COST_WIDTH, COST_HEIGHT, COST_LEFT, plot_right, COST_TOP, plot_bottom, dots, x_ticks, y_ticks, metric, log_cost
    )


def _padded(low: float, high: float, *, floor_zero: bool) -> tuple[float, float]:
    pad = max((high - low) * 0.08, abs(high) * 0.02, 1e-6)
    low, high = low - pad, high + pad
    return (max(low, 0.0) if floor_zero else low), high


def cost_plot_for(board: Leaderboard) -> CostPlot | None:
    """The cost plot of a leaderboard's rows (task.html includes it through `_task_features.html`)."""
    rows = [Costed(r.model.name, r.cost_usd, r.metric.value, r.tier == "baseline") for r in board.rows]
    return cost_plot(rows, board.primary_metric)
