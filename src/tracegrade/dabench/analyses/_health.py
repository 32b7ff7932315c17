"""Engineering health: harness health (is the evaluation trustworthy?) kept apart from run quality.

Harness health is a 0–10 score: 5 × reconciliation pass rate + 2.5 × (1 − share of tasks with
unreadable parts, the validator errors) + 2.5 × attribution coverage (failed tasks with a structured
failure category). One verdict on one scale (:data:`HEALTH_SCALE`): HEALTHY at 9 or more with no error
(reconciliation or validator), DEGRADED at 7 or more, otherwise UNHEALTHY. A trace or prediction that
summary.json names but the run folder lacks is a reconciliation error, so it lowers the pass rate; the
report says how many tasks were evaluated from what, and counts a missing prediction as
HARNESS_INPUT_FAILURE. Run quality is about the agent, not the harness: answer accuracy and execution success.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from tracegrade.dabench.analyses._reconcile import Reconciliation
from tracegrade.dabench.analyses._sections import pct
from tracegrade.dabench.metrics._failure import FAILED_OUTCOMES, HARNESS_OUTCOME
from tracegrade.dabench.tables._evaluated import Row, count_true, numbers
from tracegrade.stats import ratio

__all__ = ["HEALTH_SCALE", "EngineeringHealth", "HarnessHealth", "RunQuality", "assess_health", "evaluated_from",
           "format_evaluated_from", "format_health", "health_line"]

HEALTH_SCALE: tuple[tuple[str, str, str], ...] = (
    ("HEALTHY", "score >= 9.0 and no reconciliation or validator error", "ready to use"),
    ("DEGRADED", "score >= 7.0 (or >= 9.0 with an error)", "review the warnings before publishing"),
    ("UNHEALTHY", "score < 7.0", "do not publish or compare: fix the harness or its inputs first"),
)
"""The one health vocabulary: (verdict, when, what to do), the legend of every report that shows the verdict."""


class HarnessHealth(BaseModel):
    """Whether the evaluation itself can be trusted (0–10)."""

    score: float
    status: str
    """HEALTHY, DEGRADED or UNHEALTHY (:data:`HEALTH_SCALE`)."""
    action: str
    """What the verdict asks of the reader."""
    reconciliation_pass_rate: float | None
    reconciliation_errors: int
    validator_errors: int
    """Tasks with a part that could not be read (trace, prediction, task.json)."""
    attribution_coverage: float | None
    """Failed tasks with a structured failure category, over failed tasks (None: no failed task)."""


class RunQuality(BaseModel):
    """How well the agent did (outcomes, not the harness)."""

    status: str
    """GOOD (accuracy ≥ 80 %), DEGRADED (≥ 50 %), POOR, or UNKNOWN without gold answers."""
    answer_accuracy: float | None
    tasks_with_gold: int
    execution_success_rate: float | None
    tasks_with_execution: int
    missing_artefacts: int = 0
    """Tasks left out of the accuracy: the prediction summary.json lists is missing (the answer is unknown)."""


class EngineeringHealth(BaseModel):
    """Everything ``engineering_health_report.txt`` says."""

    run_id: str
    tasks: int
    harness: HarnessHealth
    quality: RunQuality
    invariant_violations: dict[str, int]
    time_accounting: dict[str, float | int | None]
    tasks_below_5pct_accounted: int
    tool_failure_rate: float | None
    failure_categories: dict[str, int]
    """Failed tasks by category, and the missing artefacts as HARNESS_INPUT_FAILURE."""
    top_root_causes: list[tuple[str, int]]
    indicators: list[str]
    evaluated_from: dict[str, int] = Field(default_factory=dict)
    """What the tasks were evaluated from: ``tasks``, ``with_trace``, ``with_prediction``, and the traces and
    predictions summary.json names that are missing (``named_traces_missing``, ``named_predictions_missing``)."""


def _harness(rows: Sequence[Row], rec: Reconciliation, validator_errors: int) -> HarnessHealth:
    failed = [r for r in rows if r.get("outcome_status") in FAILED_OUTCOMES]
    covered = sum(1 for r in failed if r.get("failure_category") not in (None, "", "UNKNOWN_FAILURE"))
    coverage = covered / len(failed) if failed else None
    pass_rate = rec.pass_rate
    score = 5.0 * (pass_rate if pass_rate is not None else 0.0)
    score += 2.5 * (1.0 - validator_errors / len(rows) if rows else 0.0)
    score += 2.5 * (coverage if coverage is not None else 1.0)
    score = round(score, 2)
    clean = rec.errors == 0 and validator_errors == 0
    status = "HEALTHY" if score >= 9 and clean else "DEGRADED" if score >= 7 else "UNHEALTHY"
    return HarnessHealth(
        score=score,
        status=status,
        action=next(action for verdict, _, action in HEALTH_SCALE if verdict == status),
        reconciliation_pass_rate=pass_rate,
        reconciliation_errors=rec.errors,
        validator_errors=validator_errors,
        attribution_coverage=coverage,
    )


def run_quality(rows: Sequence[Row], threshold: float) -> RunQuality:
    """Answer accuracy (final_score ≥ threshold) and execution success of a run.

    A task whose listed prediction is missing is left out of the accuracy: the agent's answer is unknown.
    """
    missing = sum(1 for r in rows if r.get("outcome_status") == HARNESS_OUTCOME)
    scores = numbers((r for r in rows if r.get("outcome_status") != HARNESS_OUTCOME), "final_score")
    accuracy = ratio(sum(s >= threshold for s in scores), len(scores))
    executed, known = count_true(rows, "execution_success")
    status = "UNKNOWN"
    if accuracy is not None:
        status = "GOOD" if accuracy >= 0.8 else "DEGRADED" if accuracy >= 0.5 else "POOR"
    return RunQuality(
        status=status,
        answer_accuracy=accuracy,
        tasks_with_gold=len(scores),
        execution_success_rate=ratio(executed, known),
        tasks_with_execution=known,
        missing_artefacts=missing,
    )


def assess_health(
    run_id: str, rows: Sequence[Row], rec: Reconciliation, metadata: Mapping[str, Any], threshold: float
) -> EngineeringHealth:
    """Harness health, run quality and the diagnostics of the health report."""
    validator = len({e.get("task_id") for e in metadata.get("task_errors", []) if e.get("task_id")})
    failed = [r for r in rows if r.get("outcome_status") in FAILED_OUTCOMES]
    missing = [r for r in rows if r.get("outcome_status") == HARNESS_OUTCOME]  # counted here, not as the agent's
    gaps = [f for f in rec.findings if f.check == "time_accounting" and f.severity == "warning"]
    calls, failures = sum(numbers(rows, "tool_calls")), sum(numbers(rows, "tool_failures"))
    harness = _harness(rows, rec, validator)
    quality = run_quality(rows, threshold)
    tool_rate = failures / calls if calls else None
    health = EngineeringHealth(
        run_id=run_id,
        tasks=len(rows),
        harness=harness,
        quality=quality,
        invariant_violations={c: n["error"] for c, n in rec.by_check.items() if n["error"]},
        time_accounting=rec.time_accounting,
        tasks_below_5pct_accounted=len(gaps),
        tool_failure_rate=tool_rate,
        failure_categories=dict(Counter(str(r["failure_category"]) for r in (*failed, *missing)
                                        if r.get("failure_category"))),
        top_root_causes=Counter(str(r["root_cause"]) for r in (*failed, *missing)
                                if r.get("root_cause")).most_common(10),
        indicators=[],
        evaluated_from=evaluated_from(rows, metadata.get("named_files_missing") or {}),
    )
    health.indicators = _indicators(health, len(failed))
    return health


def evaluated_from(rows: Sequence[Row], missing: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """How many tasks had a trace and a prediction, and how many files named by summary.json were missing."""
    return {
        "tasks": len(rows),
        "with_trace": sum(1 for r in rows if r.get("trace_format") not in (None, "missing")),
        "with_prediction": sum(1 for r in rows if r.get("prediction_present") == 1),
        "named_traces_missing": len(missing.get("trace", ())),
        "named_predictions_missing": len(missing.get("prediction.csv", ())),
    }


def format_evaluated_from(counts: Mapping[str, int]) -> str:
    """One sentence: how many tasks were evaluated from what."""
    return (
        f"{counts['tasks']} tasks evaluated: {counts['with_trace']} from a trace, {counts['with_prediction']} with "
        f"a prediction.csv; missing though summary.json names them: {counts['named_traces_missing']} traces, "
        f"{counts['named_predictions_missing']} predictions"
    )


def _indicators(health: EngineeringHealth, failed: int) -> list[str]:
    out = []
    h = health.harness
    out.append(f"[{'OK' if h.reconciliation_errors == 0 else 'FAIL'}] reconciliation: {h.reconciliation_errors} errors")
    out.append(f"[{'OK' if h.validator_errors == 0 else 'WARN'}] unreadable task parts: {h.validator_errors} tasks")
    if health.tool_failure_rate is None:
        out.append("[--] tool failure rate: no tool calls recorded")
    else:
        flag = "WARN" if health.tool_failure_rate > 0.10 else "OK"
        out.append(f"[{flag}] tool failure rate: {health.tool_failure_rate:.1%} (warning above 10%)")
    if failed == 0:
        out.append("[--] failure attribution: no failed tasks")
    else:
        flag = "OK" if (h.attribution_coverage or 0) >= 1 else "WARN"
        out.append(f"[{flag}] failure attribution coverage: {h.attribution_coverage:.1%} of {failed} failed tasks")
    ratio = health.time_accounting.get("time_accounting_ratio")
    if ratio is None:
        out.append("[--] time accounting: no per-step durations (skipped, not critical)")
    else:
        flag = "WARN" if isinstance(ratio, float) and ratio < 0.5 else "OK"
        out.append(f"[{flag}] time accounted in step durations: {ratio:.1%} (gaps over 50% deserve a look)")
    return out


def format_health(health: EngineeringHealth) -> str:
    """The plain-text report ``engineering_health_report.txt``."""
    h, q = health.harness, health.quality
    lines = [
        f"Engineering health: {health.run_id} ({health.tasks} tasks)",
        "=" * 60,
        format_evaluated_from(health.evaluated_from),
        health_line(health),
        f"  reconciliation pass rate: {pct(h.reconciliation_pass_rate, 'n/a')} ({h.reconciliation_errors} errors)",
        f"  validator errors (tasks with unreadable parts): {h.validator_errors}",
        f"  attribution coverage: {pct(h.attribution_coverage, 'n/a')}",
        f"Run quality: {q.status}",
        f"  answer accuracy (final_score >= threshold): {pct(q.answer_accuracy, 'n/a')} of {q.tasks_with_gold} "
        "with gold"
        + (f" ({q.missing_artefacts} with a missing listed prediction left out)" if q.missing_artefacts else ""),
        f"  execution success: {pct(q.execution_success_rate, 'n/a')} of {q.tasks_with_execution}",
        "Harness health says whether the evaluation can be trusted; run quality says how well the agent did.",
        "",
        "System health indicators:",
        *(f"  {line}" for line in health.indicators),
        "",
        "Invariant violations:" if health.invariant_violations else "Invariant violations: none",
        *(f"  {check}: {n}" for check, n in sorted(health.invariant_violations.items())),
        "",
        "Time accounting:",
        *_time_lines(health),
        "",
        "Failure taxonomy distribution:" if health.failure_categories else "Failure taxonomy distribution: no failures",
        *(f"  {c}: {n}" for c, n in sorted(health.failure_categories.items(), key=lambda kv: (-kv[1], kv[0]))),
        "",
        "Top recurring root causes:" if health.top_root_causes else "Top recurring root causes: none",
        *(f"  {i}. {cause}: {n}" for i, (cause, n) in enumerate(health.top_root_causes, 1)),
        "",
        "Harness health verdicts (score 0-10):",
        *(f"  {verdict:<10} {when}: {action}" for verdict, when, action in HEALTH_SCALE),
    ]
    return "\n".join(lines) + "\n"


def health_line(health: EngineeringHealth) -> str:
    """One line: the harness verdict, its score and what it asks, and the missing files behind it."""
    h, counts = health.harness, health.evaluated_from
    missing = [f"{counts[key]} {what} missing" for key, what in (("named_predictions_missing", "predictions"),
                                                                  ("named_traces_missing", "traces"))
               if counts.get(key)]
    tail = f"; {', '.join(missing)} though summary.json names them" if missing else ""
    return f"Harness health: {h.status} ({h.score:.1f}/10: {h.action}){tail}"


def _time_lines(health: EngineeringHealth) -> list[str]:
    t = health.time_accounting
    if not t.get("tasks_timed"):
        return ["  no per-step durations: time accounting skipped (not critical)"]
    ratio = t.get("time_accounting_ratio")
    return [
        f"  wall clock {t['wall_clock_seconds']:.1f}s, step durations {t['component_seconds']:.1f}s "
        f"over {t['tasks_timed']} tasks",
        f"  unaccounted overhead time: {t['unaccounted_overhead_seconds']:.1f}s; ratio {pct(ratio, 'n/a')}",
        f"  tasks below 5% accounted (warnings): {health.tasks_below_5pct_accounted}",
    ]
