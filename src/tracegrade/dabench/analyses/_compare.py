"""``dabench compare RUN_A RUN_B``: two evaluated runs paired by task_id, with paired statistics.

Fair-comparison rules: tasks in only one run are named (and excluded from the paired statistics),
pairs where either score is null are named too, and the comparison is refused when the runs share
no scored task or were scored with different parameters (λ, success threshold) — unless ``strict``
is off for task sets and the parameters agree. B is the candidate, A the baseline: differences are
B − A.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tracegrade.dabench.analyses._params import Resampling, ci_label
from tracegrade.dabench.analyses._sections import Section, column
from tracegrade.dabench.tables._evaluated import Row, RunRows
from tracegrade.errors import InputError
from tracegrade.stats import GateOptions, GateVerdict, PairedComparison

__all__ = ["ComparedRun", "Comparison", "TaskPair", "compare_runs", "comparison_sections"]

SCORING_PARAMETERS = ("lam", "success_threshold")


class ComparedRun(BaseModel):
    """One side of the comparison."""

    run_id: str
    path: str
    success_threshold: float


class TaskPair(BaseModel):
    """One task scored in both runs."""

    id: str
    outcome: Literal["improved", "regressed", "unchanged"]
    baseline_score: float
    candidate_score: float
    delta: float


class Comparison(PairedComparison):
    """The paired comparison of one metric, baseline (A) against candidate (B): the shared shape and more."""

    format: Literal["tracegrade.dabench.comparison/1"] = "tracegrade.dabench.comparison/1"
    baseline: ComparedRun
    candidate: ComparedRun
    comparable: bool = True
    """Always true here: runs scored with different parameters are refused."""
    allowed_differences: list[str] = Field(default_factory=list)
    primary: str
    """The task_metrics column compared."""
    only_in_baseline: list[str]
    only_in_candidate: list[str]
    unscored: list[str]
    """Tasks in both runs where the metric is null in either."""
    cohens_d: float | None
    accuracy_baseline: float | None
    """Share of paired tasks at or above the baseline's success threshold."""
    accuracy_candidate: float | None
    level: float
    """Confidence level of the interval."""
    gate: GateVerdict
    pairs: list[TaskPair]
    """Every paired task, biggest regression first."""


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
    gate: GateOptions | None = None,
) -> Comparison:
    """Pair the tasks of the baseline ``a`` and the candidate ``b`` and test the difference of ``metric`` (B − A).

    Raises:
        InputError: different scoring parameters, no scored pair, or (``strict``) different task sets.
    """
    from tracegrade.stats import PairedUnits, apply_gate, cohens_d_paired, compare_paired, signed_places

    _check_parameters(a, b)
    if not any(metric in row for row in (*a.rows, *b.rows)):
        raise InputError(f"--metric {metric}: not a task_metrics column", code="unknown_metric")
    left, right = _index(a), _index(b)
    only_a, only_b = sorted(set(left) - set(right)), sorted(set(right) - set(left))
    if strict and (only_a or only_b):
        raise InputError(
            f"different task sets: {len(only_a)} only in A, {len(only_b)} only in B", code="task_sets_differ"
        )
    pairs, unscored = _pairs(left, right, metric)
    if not pairs:
        raise InputError(f"{a.folder} and {b.folder}: no task with {metric} in both runs", code="nothing_to_compare")
    ids, xs, ys = [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs]
    resampling, gate = resampling or Resampling(), gate or GateOptions()
    thr = a.success_threshold  # equal to b's: the parameters were checked
    units = PairedUnits(ids=ids, baseline=xs, candidate=ys, baseline_passed=[x >= thr for x in xs],
                        candidate_passed=[y >= thr for y in ys])
    paired = compare_paired(units, min_delta=gate.min_delta, **resampling.model_dump())
    changed = {**dict.fromkeys(paired.improved, "improved"), **dict.fromkeys(paired.regressed, "regressed")}
    return Comparison(
        **dict(paired),
        baseline=ComparedRun(run_id=a.run_id, path=str(a.folder), success_threshold=a.success_threshold),
        candidate=ComparedRun(run_id=b.run_id, path=str(b.folder), success_threshold=b.success_threshold),
        primary=metric, only_in_baseline=only_a, only_in_candidate=only_b, unscored=unscored,
        cohens_d=cohens_d_paired(ys, xs),
        accuracy_baseline=sum(x >= thr for x in xs) / len(xs), accuracy_candidate=sum(y >= thr for y in ys) / len(ys),
        level=resampling.level, gate=apply_gate(paired, gate, signed_places(3)),
        pairs=sorted((TaskPair(id=t, outcome=changed.get(t, "unchanged"), baseline_score=x, candidate_score=y,
                               delta=y - x) for t, x, y in pairs), key=lambda p: (p.delta, p.id)),
    )


def _pairs(left: dict[str, Row], right: dict[str, Row], metric: str) -> tuple[list[tuple[str, float, float]],
                                                                              list[str]]:
    pairs: list[tuple[str, float, float]] = []
    unscored: list[str] = []
    for task in (t for t in left if t in right):
        x, y = _value(left[task], metric), _value(right[task], metric)
        if x is None or y is None:
            unscored.append(task)
        else:
            pairs.append((task, x, y))
    return pairs, unscored


def _fmt(value: float | None, spec: str = ".3f") -> str:
    return "—" if value is None else format(value, spec)


def _names(ids: list[str], limit: int) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f", … (+{len(ids) - limit} more in --format json)" if len(ids) > limit else "")


def _gate(c: Comparison) -> str:
    if not c.gate.checked:
        return "off (exit 0)"
    return "FAILED (exit 1)" if c.gate.fired else "passed (exit 0)"


def comparison_sections(c: Comparison) -> list[Section]:
    """The comparison as report sections (summary, statistics, task sets)."""
    measure = [column("measure", "Measure", min_width=22), column("value", "Value", min_width=14)]
    interval = c.interval
    ci = "—" if interval.low is None or interval.high is None else f"[{interval.low:+.3f}, {interval.high:+.3f}]"
    summary = Section(
        id="comparison",
        title=f"{c.primary}: {c.baseline.run_id} (A) vs {c.candidate.run_id} (B)",
        columns=measure,
        rows=[
            {"measure": "Paired tasks", "value": str(c.n)},
            {"measure": "Mean A / Mean B", "value": f"{_fmt(c.baseline_score)} / {_fmt(c.candidate_score)}"},
            {"measure": "Accuracy A / B",
             "value": f"{_fmt(c.accuracy_baseline, '.1%')} / {_fmt(c.accuracy_candidate, '.1%')}"},
            {"measure": "Mean difference B − A", "value": _fmt(c.mean_delta, "+.3f")},
            {"measure": f"{ci_label(c.level)} (paired bootstrap)", "value": ci},
            {
                "measure": "Improved / regressed / unchanged",
                "value": f"{len(c.improved)} / {len(c.regressed)} / {len(c.unchanged)}",
            },
            {"measure": "Newly failing / passing", "value": f"{len(c.newly_failing)} / {len(c.newly_passing)}"},
            {
                "measure": "Wilcoxon signed-rank",
                "value": f"W = {_fmt(c.wilcoxon.statistic, '.1f')}, p = {_fmt(c.p_value, '.4f')}",
            },
            {"measure": "Cohen's d (paired)", "value": _fmt(c.cohens_d)},
            {"measure": "Gate", "value": _gate(c)},
        ],
    )
    summary.notes = [
        f"Bootstrap: {c.resamples} resamples of task pairs, seed {c.seed}; Wilcoxon over the {c.wilcoxon.n} pairs that "
        f"differ (zero differences dropped); d = mean difference / sd of differences; a task changed only beyond "
        f"{c.min_delta:g}; newly failing/passing against the success threshold {c.baseline.success_threshold:g}.",
        *c.gate.fired,
        *(f"Warning: {warning}" for warning in c.gate.warnings),
    ]
    groups = (
        ("Improved in B", c.improved, 12),
        ("Regressed in B", c.regressed, 12),
        ("Newly failing in B", c.newly_failing, 12),
        ("Only in A (excluded)", c.only_in_baseline, 50),
        ("Only in B (excluded)", c.only_in_candidate, 50),
        (f"No {c.primary} (excluded)", c.unscored, 50),
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
