"""The forest plot's geometry and the page filters: pure functions, checked without a server."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from web.forest import LABEL_CHARS, Estimate, forest_plot, nice_ticks
from web.format import count, metric_label, money, rank_range, rank_span, text_only


def test_each_estimate_is_a_row_with_its_interval_around_its_dot() -> None:
    plot = forest_plot([Estimate("A", 0.7, 0.65, 0.75), Estimate("B", 0.5, 0.45, 0.55)], "accuracy")
    assert plot is not None and [p.label for p in plot.points] == ["A", "B"]
    for point in plot.points:
        assert plot.plot_left <= point.x_low < point.x < point.x_high <= plot.plot_right
    assert plot.points[0].x > plot.points[1].x and plot.points[0].y < plot.points[1].y
    assert plot.points[0].title == "A: 0.700 (95% CI 0.650–0.750)"


def test_rows_without_a_value_are_counted_not_drawn_and_no_value_means_no_plot() -> None:
    plot = forest_plot([Estimate("A", 0.7, None, None), Estimate("B", None, None, None)], "auroc")
    assert plot is not None and len(plot.points) == 1 and plot.omitted == 1
    assert plot.points[0].x_low == plot.points[0].x == plot.points[0].x_high
    assert forest_plot([Estimate("B", None, None, None)], "auroc") is None
    assert forest_plot([], "auroc") is None


def test_long_names_are_shortened_in_the_plot_but_kept_whole_in_the_title() -> None:
    name = "A model with a very long name indeed, longer than the label column"
    plot = forest_plot([Estimate(name, 0.5, 0.4, 0.6)], "accuracy")
    assert plot is not None and len(plot.points[0].label) == LABEL_CHARS and plot.points[0].label.endswith("…")
    assert plot.points[0].title.startswith(name)


@given(
    st.lists(
        st.tuples(st.floats(0, 1), st.floats(0, 0.2), st.floats(0, 0.2)),
        min_size=1,
        max_size=30,
    )
)
def test_every_interval_stays_inside_the_plot_area(rows: list[tuple[float, float, float]]) -> None:
    estimates = [Estimate(f"m{i}", v, max(v - lo, 0.0), min(v + hi, 1.0)) for i, (v, lo, hi) in enumerate(rows)]
    plot = forest_plot(estimates, "accuracy")
    assert plot is not None and plot.ticks
    for point in plot.points:
        assert plot.plot_left <= point.x_low <= point.x <= point.x_high <= plot.plot_right
    assert all(plot.plot_left <= tick.x <= plot.plot_right for tick in plot.ticks)


@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e6))
def test_nice_ticks_cover_the_range_in_round_steps(low: float, span: float) -> None:
    ticks = nice_ticks(low, low + span)
    assert 2 <= len(ticks) <= 11
    assert all(low - 1e-6 * span <= t <= low + span * (1 + 1e-6) for t in ticks)


def test_rank_range_text_is_what_the_tooltip_says() -> None:
    assert rank_range([2, 5]) == "95% rank range: 2–5"
    assert rank_range([1, 1]) == "95% rank range: 1"  # one rank reads as one number, never "1–1"
    assert rank_range(None) == "95% rank range: not computed yet"
    assert rank_span([3, 4]) == "3–4" and rank_span([2, 2]) == "2" and rank_span(None) == ""


def test_baselines_are_vertical_reference_lines_not_rows() -> None:
    plot = forest_plot(
        [
            Estimate("A", 0.7, 0.6, 0.8),
            Estimate("Majority", 0.3, 0.25, 0.35, reference=True),
            Estimate("B", 0.5, 0.4, 0.6),
        ],
        "accuracy",
    )
    assert plot is not None and [p.label for p in plot.points] == ["A", "B"]
    [line] = plot.references
    assert line.label == "Majority 0.300" and line.title.startswith("Reference (baseline, unranked)")
    assert plot.plot_left <= line.x < plot.points[1].x  # at its value on the same axis
    assert line.label_y < plot.rows_top <= min(p.y for p in plot.points)  # its label above the rows
    assert line.anchor == "start"  # on the left half its label runs right, staying inside the plot


def test_numbers_read_one_way_everywhere() -> None:
    assert count(20756) == "20,756" and count(None) == "—"
    assert money(None) == "—" and money(1234.5) == "$1,234.50"
    assert [metric_label(m) for m in ("auroc", "auprc", "accuracy", "mean_abs_error")] == [
        "AUROC",
        "AUPRC",
        "Accuracy",
        "Mean abs error",
    ]


def test_text_only_escapes_markup_but_keeps_quotes() -> None:
    assert str(text_only('{"a": "<b>&"}')) == '{"a": "&lt;b&gt;&amp;"}'
