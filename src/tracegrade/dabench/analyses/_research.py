"""Research sections: mean ± std with a bootstrap interval for every metric, and correlations."""

from __future__ import annotations

from itertools import combinations

from tracegrade.dabench.analyses._params import Mode, Resampling, ci_label
from tracegrade.dabench.analyses._sections import Cell, Section, column
from tracegrade.dabench.metrics._columns import TASK_COLUMNS
from tracegrade.dabench.tables._evaluated import Row, RunRows, numbers

__all__ = ["CORRELATION_METRICS", "correlation_section", "describe", "metric_statistics_section", "pairwise_rows"]

CORRELATION_METRICS = ("final_score", "analyst_score", "autonomy_score", "tool_efficiency", "verification_score",
                       "data_understanding_score")
_SKIP_CATEGORIES = frozenset({"Identification"})


def describe(values: list[float], resampling: Resampling) -> dict[str, Cell]:
    """n, [mean, std] and the [low, high] percentile-bootstrap interval of the mean."""
    from tracegrade.stats import bootstrap_mean_ci, std

    if not values:
        return {"n": 0, "pm": None, "ci": None}
    interval = bootstrap_mean_ci(values, **resampling.model_dump())
    ci: Cell = None if interval.low is None else [interval.low, interval.high]
    return {"n": len(values), "pm": [interval.estimate, std(values)], "ci": ci}


def metric_statistics_section(run: RunRows, resampling: Resampling) -> Section:
    """Every numeric task_metrics column: n, mean ± std and the bootstrap interval of the mean."""
    columns = [
        column("metric", "Metric", min_width=24),
        column("n", "n", "int", min_width=4),
        column("pm", "Mean ± std", "pm", min_width=13),
        column("ci", ci_label(resampling.level), "ci", min_width=15),
    ]
    rows: list[dict[str, Cell]] = []
    empty: list[str] = []
    for col in TASK_COLUMNS:
        if col.dtype == "str" or col.category in _SKIP_CATEGORIES:
            continue
        values = numbers(run.rows, col.name)
        if not values:
            empty.append(col.name)
            continue
        rows.append({"metric": col.name, **describe(values, resampling)})
    section = Section(id="metric-statistics", title="Metric statistics", mode=Mode.RESEARCH, columns=columns, rows=rows)
    r = resampling
    section.notes = [
        f"{ci_label(r.level)}: percentile bootstrap of the mean, {r.resamples} resamples, seed {r.seed}; "
        "std: sample (n − 1)."
    ]
    if empty:
        section.notes.append(f"No values (null in every task): {', '.join(empty)}.")
    if not rows:
        section.empty = "no numeric metric has a value"
    return section


def pairwise_rows(rows: tuple[Row, ...], metrics: tuple[str, ...]) -> dict[tuple[str, str], tuple[float | None, int]]:
    """Pearson r and pair count of every metric pair (tasks where both are known)."""
    from tracegrade.stats import pearson

    out: dict[tuple[str, str], tuple[float | None, int]] = {}
    for a, b in combinations(metrics, 2):
        found = ((r.get(a), r.get(b)) for r in rows)
        pairs = [(x, y) for x, y in found if isinstance(x, int | float) and isinstance(y, int | float)]
        if len(pairs) < 3:
            out[(a, b)] = (None, len(pairs))
            continue
        result = pearson([float(x) for x, _ in pairs], [float(y) for _, y in pairs])
        out[(a, b)] = (result.statistic, len(pairs))
    return out


def correlation_section(run: RunRows) -> Section:
    """Pearson correlation of the key metrics (pairs of tasks where both are known)."""
    columns = [
        column("a", "Metric A", min_width=14),
        column("b", "Metric B", min_width=14),
        column("r", "Pearson r", "score", min_width=7),
        column("n", "Pairs", "int", min_width=5),
    ]
    found = pairwise_rows(run.rows, CORRELATION_METRICS)
    rows: list[dict[str, Cell]] = [{"a": a, "b": b, "r": r, "n": n} for (a, b), (r, n) in found.items() if n]
    section = Section(id="correlations", title="Metric correlations", mode=Mode.RESEARCH, columns=columns, rows=rows)
    section.notes = ["r is empty when a metric is constant or fewer than 3 tasks have both values."]
    if not rows:
        section.empty = "no task has two of the key metrics"
    return section
