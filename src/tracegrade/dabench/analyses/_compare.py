"""``dabench compare RUN_A RUN_B``: two evaluated runs paired by task_id, with paired statistics.

Fair-comparison rules: tasks in only one run are named (and excluded from the paired statistics),
pairs where either score is null are named too, and so are pairs where either run lacks the prediction
its summary.json lists (a harness or input problem, not a change of the agent). The comparison is
refused when the runs share no scored task, were scored with different parameters (λ, success
threshold), or (unless allowed) either run's harness health is UNHEALTHY; a metric that is not a finite
number in its column's range is bad input. B is the candidate, A the baseline: differences are B − A.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field

from tracegrade.dabench.analyses._params import Resampling, ci_label
from tracegrade.dabench.analyses._sections import Section, column, fmt, pct
from tracegrade.dabench.metrics._columns import TASK_COLUMNS
from tracegrade.dabench.tables._evaluated import Row, RunRows
from tracegrade.errors import InputError
from tracegrade.stats import GateOptions, GateVerdict, PairChange, PairedComparison

__all__ = ["ComparedEvalRun", "RunComparison", "compare_runs", "comparison_sections", "interval_text"]

SCORING_PARAMETERS = ("lam", "success_threshold")


class ComparedEvalRun(BaseModel):
    """One side of the comparison."""

    run_id: str
    path: str
    success_threshold: float
    health: str | None = None
    """The run's harness health verdict (HEALTHY, DEGRADED, UNHEALTHY; null when its manifest does not say)."""
    health_score: float | None = None
    missing_predictions: list[str] = Field(default_factory=list)
    """Tasks whose prediction summary.json lists but the run folder lacks."""


class RunComparison(PairedComparison):
    """The paired comparison of one metric, baseline (A) against candidate (B): the shared shape and more."""

    format: Literal["tracegrade.dabench.comparison/1"] = "tracegrade.dabench.comparison/1"
    baseline: ComparedEvalRun
    candidate: ComparedEvalRun
    comparable: bool = True
    """Always true here: runs scored with different parameters are refused."""
    allowed_differences: list[str] = Field(default_factory=list)
    primary: str
    """The task_metrics column compared."""
    only_in_baseline: list[str]
    only_in_candidate: list[str]
    unscored: list[str]
    """Tasks in both runs where the metric is null in either."""
    missing_artefact: list[str] = Field(default_factory=list)
    """Tasks in both runs left out because either run lacks the prediction its summary.json lists."""
    unhealthy_allowed: bool = False
    """Either run is UNHEALTHY and the comparison was asked for anyway (``--allow-unhealthy``)."""
    cohens_d: float | None
    accuracy_baseline: float | None
    """Share of paired tasks at or above the baseline's success threshold."""
    accuracy_candidate: float | None
    level: float
    """Confidence level of the interval."""
    gate: GateVerdict
    pairs: list[PairChange]
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


_UNIT = ("[0, 1]", "{0, 1}")
_LARGEST = 1e12
"""A metric beyond this in size is refused: no column of task_metrics counts that high, and sums of such
values overflow the statistics."""


def _value(row: Row, metric: str, run: RunRows) -> float | None:
    """The metric of one row as a float; bad input when it is not finite or outside its column's range."""
    value = row.get(metric)
    if not isinstance(value, int | float):
        return None
    number = float(value)
    column = next((c for c in TASK_COLUMNS if c.name == metric), None)
    unit = column is not None and column.range in _UNIT
    if not math.isfinite(number) or (unit and not 0.0 <= number <= 1.0) or abs(number) > _LARGEST:
        bound = "in [0, 1]" if unit else f"finite, at most {_LARGEST:g} in size"
        raise InputError(f"{run.folder}: task {row.get('task_id')}: {metric} = {number!r} is not {bound}",
                         code="invalid_metric")
    return number


def _side(run: RunRows) -> ComparedEvalRun:
    report = run.metadata.get("report")
    report = report if isinstance(report, dict) else {}
    health, score = report.get("harness_health"), report.get("harness_score")
    missing = (run.metadata.get("named_files_missing") or {}).get("prediction.csv") or []
    return ComparedEvalRun(run_id=run.run_id, path=str(run.folder), success_threshold=run.success_threshold,
                       health=health if isinstance(health, str) else None,
                       health_score=float(score) if isinstance(score, int | float) else None,
                       missing_predictions=sorted(str(t) for t in missing))


def _check_health(sides: tuple[ComparedEvalRun, ComparedEvalRun], allow_unhealthy: bool) -> bool:
    unhealthy = [side for side in sides if side.health == "UNHEALTHY"]
    if unhealthy and not allow_unhealthy:
        named = "; ".join(f"{side.path}: harness health UNHEALTHY ({side.health_score}/10)" for side in unhealthy)
        raise InputError(f"{named}: its results describe the harness, not the agent (see its "
                         "engineering_health_report.txt); give --allow-unhealthy to compare anyway",
                         code="unhealthy_run")
    return bool(unhealthy)


def compare_runs(
    a: RunRows,
    b: RunRows,
    *,
    metric: str = "final_score",
    resampling: Resampling | None = None,
    strict: bool = False,
    gate: GateOptions | None = None,
    allow_unhealthy: bool = False,
) -> RunComparison:
    """Pair the tasks of the baseline ``a`` and the candidate ``b`` and test the difference of ``metric`` (B − A).

    Raises:
        InputError: different scoring parameters, no scored pair, (``strict``) different task sets, a metric
            that is not a finite number in its range, or (without ``allow_unhealthy``) an UNHEALTHY run.
    """
    from tracegrade.stats import PairedUnits, apply_gate, cohens_d_paired, compare_paired, pair_changes, signed_places

    _check_parameters(a, b)
    sides = (_side(a), _side(b))
    allowed = _check_health(sides, allow_unhealthy)
    if not any(metric in row for row in (*a.rows, *b.rows)):
        raise InputError(f"--metric {metric}: not a task_metrics column", code="unknown_metric")
    left, right = _index(a), _index(b)
    only_a, only_b = sorted(set(left) - set(right)), sorted(set(right) - set(left))
    if strict and (only_a or only_b):
        raise InputError(
            f"different task sets: {len(only_a)} only in A, {len(only_b)} only in B", code="task_sets_differ"
        )
    absent = set(sides[0].missing_predictions) | set(sides[1].missing_predictions)
    missing = sorted(t for t in left if t in right and t in absent)
    pairs, unscored = _pairs({t: r for t, r in left.items() if t not in absent}, right, metric, a, b)
    if not pairs:
        raise InputError(f"{a.folder} and {b.folder}: no task with {metric} in both runs", code="nothing_to_compare")
    ids, xs, ys = [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs]
    resampling, gate = resampling or Resampling(), gate or GateOptions()
    thr = a.success_threshold  # equal to b's: the parameters were checked
    units = PairedUnits(ids=ids, baseline=xs, candidate=ys, baseline_passed=[x >= thr for x in xs],
                        candidate_passed=[y >= thr for y in ys])
    paired = compare_paired(units, min_delta=gate.min_delta, **resampling.model_dump())
    return RunComparison(
        **dict(paired),
        baseline=sides[0], candidate=sides[1], unhealthy_allowed=allowed,
        primary=metric, only_in_baseline=only_a, only_in_candidate=only_b, unscored=unscored, missing_artefact=missing,
        cohens_d=cohens_d_paired(ys, xs),
        accuracy_baseline=sum(x >= thr for x in xs) / len(xs), accuracy_candidate=sum(y >= thr for y in ys) / len(ys),
        level=resampling.level, gate=apply_gate(paired, gate, signed_places(3)),
        pairs=pair_changes(paired, pairs),
    )


def _pairs(left: dict[str, Row], right: dict[str, Row], metric: str, a: RunRows,
           b: RunRows) -> tuple[list[tuple[str, float, float]], list[str]]:
    pairs: list[tuple[str, float, float]] = []
    unscored: list[str] = []
    for task in (t for t in left if t in right):
        x, y = _value(left[task], metric, a), _value(right[task], metric, b)
        if x is None or y is None:
            unscored.append(task)
        else:
            pairs.append((task, x, y))
    return pairs, unscored


def _names(ids: list[str], limit: int) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f", … (+{len(ids) - limit} more in --format json)" if len(ids) > limit else "")


def _gate(c: RunComparison) -> str:
    if not c.gate.checked:
        return "off (exit 0)"
    return "FAILED (exit 1)" if c.gate.fired else "passed (exit 0)"


def _health(side: ComparedEvalRun) -> str:
    if side.health is None:
        return "— (not in its manifest)"
    score = f" ({side.health_score:.1f}/10)" if side.health_score is not None else ""
    missing = f"; {len(side.missing_predictions)} listed predictions missing" if side.missing_predictions else ""
    return f"{side.health}{score}{missing}"


def interval_text(c: RunComparison) -> str:
    """The interval of the mean difference as ``[low, high]`` with signs, or ``—``."""
    low, high = c.interval.low, c.interval.high
    return "—" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"


def comparison_sections(c: RunComparison) -> list[Section]:
    """The comparison as report sections: both runs' health first, then the summary, statistics and task sets."""
    measure = [column("measure", "Measure", min_width=22), column("value", "Value", min_width=14)]
    health = Section(
        id="comparison-health",
        title="Harness health of the two runs",
        columns=measure,
        rows=[{"measure": f"A {c.baseline.run_id}", "value": _health(c.baseline)},
              {"measure": f"B {c.candidate.run_id}", "value": _health(c.candidate)}],
    )
    if c.unhealthy_allowed:
        health.notes = ["An UNHEALTHY run is compared because --allow-unhealthy was given: its differences may "
                        "describe the harness, not the agent."]
    values = (
        ("Paired tasks", str(c.n)),
        ("Mean A / Mean B", f"{fmt(c.baseline_score)} / {fmt(c.candidate_score)}"),
        ("Accuracy A / B", f"{pct(c.accuracy_baseline)} / {pct(c.accuracy_candidate)}"),
        ("Mean difference B − A", fmt(c.mean_delta, "+.3f")),
        (f"{ci_label(c.level)} (paired bootstrap)", interval_text(c)),
        ("Improved / regressed / unchanged", f"{len(c.improved)} / {len(c.regressed)} / {len(c.unchanged)}"),
        ("Newly failing / passing", f"{len(c.newly_failing)} / {len(c.newly_passing)}"),
        ("Wilcoxon signed-rank", f"W = {fmt(c.wilcoxon.statistic, '.1f')}, p = {fmt(c.p_value, '.4f')}"),
        ("Cohen's d (paired)", fmt(c.cohens_d)),
        ("Gate", _gate(c)),
    )
    summary = Section(id="comparison", title=f"{c.primary}: {c.baseline.run_id} (A) vs {c.candidate.run_id} (B)",
                      columns=measure, rows=[{"measure": label, "value": value} for label, value in values])
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
        ("Missing artefact (excluded)", c.missing_artefact, 50),
    )
    sets = Section(
        id="task-sets",
        title="Task sets",
        columns=[column("measure", "Tasks", min_width=22), column("value", "Count", "int", min_width=5)],
        rows=[{"measure": label, "value": len(ids)} for label, ids, _ in groups],
    )
    # names go in the notes, which wrap, so that no excluded task is cut off in a narrow terminal
    sets.notes = [f"{label}: {_names(ids, limit)}." for label, ids, limit in groups if ids]
    return [health, summary, sets]
