"""The short terminal summary of ``dabench eval-v2 --mode standard`` (rich, readable at 80 columns)."""

from __future__ import annotations

from statistics import fmean

from rich.console import Group, RenderableType
from rich.text import Text

from tracegrade.dabench.tables._evaluate import DifficultyStats, EvalSummary
from tracegrade.render import Column, fit_table, fmt_pct, fmt_score

__all__ = ["render_summary"]

_ORDER = {"easy": 0, "medium": 1, "hard": 2, "extreme": 3}
_COLUMNS = (
    Column("Difficulty", "difficulty", min_width=10),
    Column("Tasks", "tasks", min_width=5, justify="right"),
    Column("Exec success", "executed", min_width=8, justify="right"),
    Column("Accuracy", "accuracy", min_width=8, justify="right"),
    Column("Mean score", "mean", min_width=8, justify="right"),
    Column("With gold", "gold", min_width=5, justify="right", priority=1),
)


def _row(name: str, stats: DifficultyStats, threshold: float) -> dict[str, object]:
    scores = stats.scores
    return {
        "difficulty": name,
        "tasks": str(stats.tasks),
        "executed": fmt_pct(stats.executed / stats.execution_known if stats.execution_known else None),
        "accuracy": fmt_pct(sum(s >= threshold for s in scores) / len(scores) if scores else None),
        "mean": fmt_score(fmean(scores) if scores else None),
        "gold": str(len(scores)),
    }


def render_summary(summary: EvalSummary, *, width: int | None = None) -> RenderableType:
    """Tasks, execution success, answer accuracy (final_score ≥ threshold) and mean score by difficulty."""
    total = DifficultyStats()
    for stats in summary.by_difficulty.values():
        total.tasks += stats.tasks
        total.executed += stats.executed
        total.execution_known += stats.execution_known
        total.scores.extend(stats.scores)
    names = sorted(summary.by_difficulty, key=lambda d: (_ORDER.get(d, 9), d))
    rows = [_row(d, summary.by_difficulty[d], summary.success_threshold) for d in names]
    rows.append(_row("all", total, summary.success_threshold))
    caption = f"Accuracy = share of tasks with gold whose final_score ≥ {summary.success_threshold:g}."
    table = fit_table(f"DataAgent-Bench eval-v2: {summary.run_id}", _COLUMNS, rows, width=width, caption=caption)
    lines: list[RenderableType] = [
        table,
        Text(f"{summary.tasks} tasks, {summary.task_errors} with unreadable parts; tables in {summary.output_dir}"),
    ]
    if not total.scores:
        lines.append(Text("No gold answers: final_score is null (give --data-root with output/task_<id>/gold.csv)."))
    if str(summary.status) != "completed":
        lines.append(Text(f"status: {summary.status}"))
    return Group(*lines)
