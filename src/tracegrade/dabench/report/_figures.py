"""The seed's paper figures as PNG (matplotlib through tracegrade.render, Agg backend).

Score and failure distributions, autonomy vs efficiency, the correlation heatmap. A figure without
data is skipped with the reason, not drawn empty.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from tracegrade.dabench.analyses._research import CORRELATION_METRICS, pairwise_rows
from tracegrade.dabench.metrics._failure import FAILED_OUTCOMES, HARNESS_OUTCOME
from tracegrade.dabench.tables._evaluated import RunRows, num, numbers

__all__ = ["FigureResult", "draw_figures"]

_DARK = 0.6
"""|r| from which a heat-map cell is dark enough for white numbers."""


def _tasks(count: int) -> str:
    return f"{count} task" if count == 1 else f"{count} tasks"


@dataclass(frozen=True, slots=True)
class FigureResult:
    """One figure: its PNG bytes, or the reason it was skipped."""

    name: str
    title: str
    png: bytes | None
    skipped: str | None = None


def _scores(run: RunRows) -> FigureResult:
    from tracegrade.render import figure_png, new_figure

    title = "Score distribution"
    scores = numbers(run.rows, "final_score")
    if not scores:
        return FigureResult("score_distribution", title, None, "no final_score (no gold answers)")
    fig = new_figure(6.4, 4.0)
    ax = fig.add_subplot()
    ax.hist(scores, bins=[i / 10 for i in range(11)], edgecolor="black", color="#4c72b0")
    ax.axvline(run.success_threshold, color="#c44e52", linestyle="--", label=f"correct ≥ {run.success_threshold:g}")
    ax.set(xlabel="Final score", ylabel="Tasks", title=f"{title}: {_tasks(len(scores))}", xlim=(0, 1))
    ax.legend()
    ax.locator_params(axis="y", integer=True)  # task counts: no 0.25-task ticks
    return FigureResult("score_distribution", title, figure_png(fig))


def _failures(run: RunRows) -> FigureResult:
    from tracegrade.render import figure_png, new_figure

    title = "Failure distribution"
    missing = sum(1 for r in run.rows if r.get("outcome_status") == HARNESS_OUTCOME)
    if missing:  # the agent's failures only; the harness's are named in the title
        title += f" ({missing} missing artefact{'s' if missing != 1 else ''} left out)"
    failed = (r for r in run.rows if r.get("outcome_status") in FAILED_OUTCOMES)
    counts = Counter(str(r["failure_category"]) for r in failed if r.get("failure_category"))
    if not counts:
        return FigureResult("failure_distribution", title, None, "no failed task with a failure category")
    names = [n for n, _ in counts.most_common()]
    fig = new_figure(7.0, 4.4)
    ax = fig.add_subplot()
    ax.bar(range(len(names)), [counts[n] for n in names], color="#c44e52", edgecolor="black")
    tilted = sum(len(name) for name in names) > 48  # the full names, as the tables print them
    ax.set_xticks(range(len(names)), names, rotation=30 if tilted else 0, ha="right" if tilted else "center")
    ax.set(xlabel="Failure category (as in the tables)", ylabel="Tasks",
           title=f"{title}: {_tasks(sum(counts.values()))} failed or partial")
    ax.locator_params(axis="y", integer=True)
    return FigureResult("failure_distribution", title, figure_png(fig))


def _autonomy(run: RunRows) -> FigureResult:
    from tracegrade.render import figure_png, new_figure

    title = "Autonomy vs tool efficiency"
    found = [(num(r.get("autonomy_score")), num(r.get("tool_efficiency")), num(r.get("final_score"))) for r in run.rows]
    points = [(a, e, s) for a, e, s in found if a is not None and e is not None]
    if not points:
        reason = "no task with both autonomy_score and tool_efficiency"
        return FigureResult("autonomy_vs_efficiency", title, None, reason)
    fig = new_figure(6.4, 4.6)
    ax = fig.add_subplot()
    scored = [(a, e, f) for a, e, f in points if f is not None]
    if scored:
        dots = ax.scatter([p[0] for p in scored], [p[1] for p in scored], c=[p[2] for p in scored], cmap="viridis",
                          vmin=0, vmax=1, edgecolors="black")
        fig.colorbar(dots, ax=ax, label="Final score")
    unscored = [p for p in points if p[2] is None]
    if unscored:
        ax.scatter([p[0] for p in unscored], [p[1] for p in unscored], c="lightgray", edgecolors="black",
                   label="no gold")
        ax.legend()
    ax.set(xlabel="Autonomy score", ylabel="Tool efficiency", title=f"{title}: {_tasks(len(points))}",
           xlim=(-0.05, 1.05), ylim=(-0.05, 1.05))
    return FigureResult("autonomy_vs_efficiency", title, figure_png(fig))


def _heatmap(fig: Any, labels: list[str], matrix: list[list[float | None]]) -> None:
    import numpy as np

    ax = fig.add_subplot()
    data = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    image = ax.imshow(data, cmap="coolwarm", vmin=-1, vmax=1)
    ax.set_xticks(range(len(labels)), labels, rotation=35, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            dark = value is not None and abs(value) >= _DARK  # the ends of the colour map: white text reads there
            ax.text(j, i, "n/a" if value is None else f"{value:.2f}", ha="center", va="center", fontsize=11,
                    color="white" if dark else "black", fontweight="bold")
    fig.colorbar(image, ax=ax, label="Pearson r")
    ax.set(xlabel="Metric", ylabel="Metric", title="Metric correlation matrix")


def _self(run: RunRows, metric: str) -> float | None:
    return 1.0 if len(set(numbers(run.rows, metric))) > 1 else None  # a constant has no correlation


def _correlation(run: RunRows) -> FigureResult:
    from tracegrade.render import figure_png, new_figure

    title = "Metric correlation matrix"
    present = tuple(m for m in CORRELATION_METRICS if len(numbers(run.rows, m)) >= 3)
    if len(present) < 2:
        return FigureResult("correlation_matrix", title, None, "fewer than two key metrics with 3 or more values")
    found = pairwise_rows(run.rows, present)
    matrix: list[list[float | None]] = [
        [_self(run, a) if a == b else found.get((a, b), found.get((b, a), (None, 0)))[0] for b in present]
        for a in present
    ]
    fig = new_figure(7.2, 6.0)
    _heatmap(fig, list(present), matrix)
    return FigureResult("correlation_matrix", title, figure_png(fig))


def draw_figures(run: RunRows) -> list[FigureResult]:
    """Every seed figure of a run (PNG bytes or the reason it was skipped)."""
    return [_scores(run), _failures(run), _autonomy(run), _correlation(run)]
