"""``dabench compare RUN_A RUN_B``: two evaluated runs paired by task_id, with paired statistics.

Fair-comparison rules: tasks in only one run are named (and excluded from the paired statistics),
pairs where either score is null are named too, and the comparison is refused when the runs share
no scored task or were scored with different parameters (λ, success threshold) — unless ``strict``
is off for task sets and the parameters agree. B is the candidate, A the baseline: differences are
B − A.
"""

from __future__ import annotations

from pydantic import BaseModel

from tracegrade.dabench.analyses._params import Resampling, ci_label
from tracegrade.dabench.analyses._sections import Section, column
from tracegrade.dabench.tables._evaluated import Row, RunRows
from tracegrade.errors import InputError

__all__ = ["Comparison", "compare_runs", "comparison_sections"]

SCORING_PARAMETERS = ("lam", "success_threshold")
TOLERANCE = 1e-9


class Comparison(BaseModel):
    """The paired comparison of one metric between run A (baseline) and run B (candidate)."""

    run_a: str
    run_b: str
    metric: str
    pairs: int
    mean_a: float | None
    mean_b: float | None
    mean_difference: float | None
    ci_low: float | None
    ci_high: float | None
    resamples: int
    """Bootstrap resamples of the interval [ci_low, ci_high]."""
    improved: list[str]
    regressed: list[str]
    unchanged: int
    wilcoxon_statistic: float | None
    wilcoxon_p: float | None
    wilcoxon_n: int
    cohens_d: float | None
    accuracy_a: float | None
    accuracy_b: float | None
    only_in_a: list[str]
    only_in_b: list[str]
    unscored: list[str]
    """Tasks in both runs where the metric is null in either."""
    level: float
    """Confidence level of the interval."""
    seed: int
    """Seed of the bootstrap."""


def _index(run: RunRows) -> dict[str, Row]:
    return {str(r.get("task_id")): r for r in run.rows}


def _check_parameters(a: RunRows, b: RunRows) -> None:
    for name in SCORING_PARAMETERS:
        first, second = a.parameters.get(name), b.parameters.get(name)
        if first is not None and second is not None and first != second:
            raise InputError(
                f"{b.folder}: scored with {name}={second} but {a.folder} with {name}={first}: not comparable",
                code="incomparable_runs",
            )


def _value(row: Row, metric: str) -> float | None:
    value = row.get(metric)
    return float(value) if isinstance(value, int | float) else None


def compare_runs(
    a: RunRows,
    b: RunRows,
    *,
    metric: str = "final_score",
    resampling: Resampling | None = None,
    strict: bool = False,
) -> Comparison:
    """Pair the tasks of two runs and test the difference of ``metric`` (B − A).

    Raises:
        InputError: different scoring parameters, no scored pair, or (``strict``) different task sets.
    """
    from tracegrade.stats import cohens_d_paired, paired_bootstrap_ci, wilcoxon_signed_rank

    _check_parameters(a, b)
    if not any(metric in row for row in (*a.rows, *b.rows)):
        raise InputError(f"--metric {metric}: not a task_metrics column", code="unknown_metric")
    left, right = _index(a), _index(b)
    only_a, only_b = sorted(set(left) - set(right)), sorted(set(right) - set(left))
    if strict and (only_a or only_b):
        raise InputError(
            f"different task sets: {len(only_a)} only in A, {len(only_b)} only in B", code="task_sets_differ"
        )
    ids = [t for t in left if t in right]
    pairs: list[tuple[str, float, float]] = []
    unscored: list[str] = []
    for task in ids:
        x, y = _value(left[task], metric), _value(right[task], metric)
        if x is None or y is None:
            unscored.append(task)
        else:
            pairs.append((task, x, y))
    if not pairs:
        raise InputError(f"{a.folder} and {b.folder}: no task with {metric} in both runs", code="nothing_to_compare")
    xs, ys = [p[1] for p in pairs], [p[2] for p in pairs]
    resampling = resampling or Resampling()
    interval = paired_bootstrap_ci(ys, xs, **resampling.model_dump())
    test = wilcoxon_signed_rank(ys, xs)
    thr = a.success_threshold
    return Comparison(
        run_a=a.run_id,
        run_b=b.run_id,
        metric=metric,
        pairs=len(pairs),
        mean_a=sum(xs) / len(xs),
        mean_b=sum(ys) / len(ys),
        mean_difference=interval.estimate,
        ci_low=interval.low,
        ci_high=interval.high,
        resamples=resampling.resamples,
        improved=[t for t, x, y in pairs if y > x + TOLERANCE],
        regressed=[t for t, x, y in pairs if y < x - TOLERANCE],
        unchanged=sum(1 for _, x, y in pairs if abs(y - x) <= TOLERANCE),
        wilcoxon_statistic=test.statistic,
        wilcoxon_p=test.p_value,
        wilcoxon_n=test.n,
        cohens_d=cohens_d_paired(ys, xs),
        accuracy_a=sum(x >= thr for x in xs) / len(xs),
        accuracy_b=sum(y >= thr for y in ys) / len(ys),
        only_in_a=only_a,
        only_in_b=only_b,
        unscored=unscored,
        level=resampling.level,
        seed=resampling.seed,
    )


def _fmt(value: float | None, spec: str = ".3f") -> str:
    return "—" if value is None else format(value, spec)


def _names(ids: list[str], limit: int) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f", … (+{len(ids) - limit} more in --format json)" if len(ids) > limit else "")


def comparison_sections(c: Comparison) -> list[Section]:
    """The comparison as report sections (summary, statistics, task sets)."""
    measure = [column("measure", "Measure", min_width=22), column("value", "Value", min_width=14)]
    ci = "—" if c.ci_low is None else f"[{c.ci_low:+.3f}, {c.ci_high:+.3f}]"
    summary = Section(
        id="comparison",
        title=f"{c.metric}: {c.run_a} (A) vs {c.run_b} (B)",
        columns=measure,
        rows=[
            {"measure": "Paired tasks", "value": str(c.pairs)},
            {"measure": "Mean A / Mean B", "value": f"{_fmt(c.mean_a)} / {_fmt(c.mean_b)}"},
            {"measure": "Accuracy A / B", "value": f"{_fmt(c.accuracy_a, '.1%')} / {_fmt(c.accuracy_b, '.1%')}"},
            {"measure": "Mean difference B − A", "value": _fmt(c.mean_difference, "+.3f")},
            {"measure": f"{ci_label(c.level)} (paired bootstrap)", "value": ci},
            {
                "measure": "Improved / regressed / unchanged",
                "value": f"{len(c.improved)} / {len(c.regressed)} / {c.unchanged}",
            },
            {
                "measure": "Wilcoxon signed-rank",
                "value": f"W = {_fmt(c.wilcoxon_statistic, '.1f')}, p = {_fmt(c.wilcoxon_p, '.4f')}",
            },
            {"measure": "Cohen's d (paired)", "value": _fmt(c.cohens_d)},
        ],
    )
    summary.notes = [
        f"Bootstrap: {c.resamples} resamples of task pairs, seed {c.seed}; Wilcoxon over the {c.wilcoxon_n} pairs that "
        "differ (zero differences dropped); d = mean difference / sd of differences."
    ]
    groups = (
        ("Improved in B", c.improved, 12),
        ("Regressed in B", c.regressed, 12),
        ("Only in A (excluded)", c.only_in_a, 50),
        ("Only in B (excluded)", c.only_in_b, 50),
        (f"No {c.metric} (excluded)", c.unscored, 50),
    )
    sets = Section(
        id="task-sets",
        title="Task sets",
        columns=[column("measure", "Tasks", min_width=22), column("value", "Count", "int", min_width=5)],
        rows=[{"measure": label, "value": len(ids)} for label, ids, _ in groups],
    )
    # names go in the notes, which wrap, so that no excluded task is cut off in a narrow terminal
    sets.notes = [f"{label}: {_names(ids, limit)}." for label, ids, limit in groups if ids]
    return [summary, sets]
