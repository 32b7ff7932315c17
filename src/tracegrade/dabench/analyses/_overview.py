"""Standard report sections: health panels, per-task table, overall summary, difficulty breakdown."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from tracegrade.dabench.analyses._health import HEALTH_SCALE, EngineeringHealth
from tracegrade.dabench.analyses._sections import Cell, Section, column, pct, pct_of
from tracegrade.dabench.tables._evaluated import Row, RunRows, count_true, numbers
from tracegrade.stats import ratio

__all__ = ["difficulty_section", "health_sections", "overall_section", "per_task_section", "value_row"]

DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2, "extreme": 3}


def value_row(measure: str, value: str, raw: Cell = None) -> dict[str, Cell]:
    """A measure/value row (``raw`` keeps the number for machines, and the HTML table sorts the value by it)."""
    return {"measure": measure, "value": value, "raw": raw}


MEASURE_COLUMNS = [column("measure", "Measure", min_width=20), column("value", "Value", min_width=12)]


def health_sections(health: EngineeringHealth) -> list[Section]:
    """The two separate assessments: harness health (infrastructure) and run quality (outcomes)."""
    h, q = health.harness, health.quality
    harness = _panel(
        "harness-health",
        "Harness health",
        h.status,
        f"{h.score:.1f}/10 {h.status} — is the evaluation trustworthy?",
        [
            value_row("Evaluated from", _evaluated(health.evaluated_from), health.evaluated_from.get("with_trace")),
            value_row("Reconciliation pass rate", pct(h.reconciliation_pass_rate), h.reconciliation_pass_rate),
            value_row("Reconciliation errors", str(h.reconciliation_errors), h.reconciliation_errors),
            value_row("Validator errors", f"{h.validator_errors} tasks", h.validator_errors),
            value_row("Attribution coverage",
                      pct(h.attribution_coverage) if h.attribution_coverage is not None else "— (no failed task)",
                      h.attribution_coverage),
        ],
        "Harness health verdicts (score 0-10, one scale): "
        + "; ".join(f"{verdict}: {when}, {action}" for verdict, when, action in HEALTH_SCALE) + ".",
    )
    quality = _panel(
        "run-quality",
        "Run quality",
        q.status,
        f"{q.status} {pct(q.answer_accuracy)} accuracy — how well did the agent do?"
        if q.answer_accuracy is not None
        else f"{q.status} (no gold answers) — how well did the agent do?",
        [
            value_row(
                "Answer accuracy", f"{pct(q.answer_accuracy)} of {q.tasks_with_gold} with gold"
                + (f" ({q.missing_artefacts} missing artefacts left out)" if q.missing_artefacts else ""),
                q.answer_accuracy,
            ),
            value_row("Execution success", f"{pct(q.execution_success_rate)} of {q.tasks_with_execution}",
                      q.execution_success_rate),
        ],
        "Run quality (the agent, not the harness): GOOD at 80 % answer accuracy or more, DEGRADED at "
        "50 % or more, POOR below, UNKNOWN without gold answers.",
    )
    return [harness, quality]


def _panel(id_: str, title: str, status: str, headline: str, rows: list[dict[str, Cell]], note: str) -> Section:
    """A framed measure/value panel with a status badge, a headline and one note."""
    return Section(id=id_, title=title, panel=True, columns=MEASURE_COLUMNS, status=status, headline=headline,
                   rows=rows, notes=[note])


def _evaluated(counts: dict[str, int]) -> str:
    if not counts:
        return "—"
    missing = counts["named_traces_missing"] + counts["named_predictions_missing"]
    named = f"; {missing} files named by summary.json missing" if missing else ""
    traces = f"{counts['with_trace']}/{counts['tasks']} tasks with a trace"
    return f"{traces}, {counts['with_prediction']} with a prediction{named}"


def _exec_mark(value: Cell) -> str:
    return "—" if value is None else "✓" if value == 1 else "✗"


def per_task_section(run: RunRows, limit: int | None) -> Section:
    """One row per task: execution, score, outcome, time, steps, tokens and root cause."""
    columns = [
        column("task_id", "Task", min_width=8),
        column("difficulty", "Diff", priority=2, min_width=6),
        column("exec", "Exec", min_width=4),
        column("final_score", "Score", "score", min_width=5),
        column("outcome", "Outcome", min_width=7),
        column("time", "Time", "seconds", priority=1, min_width=6),
        column("steps", "Steps", "int", priority=3, min_width=5),
        column("tokens", "Tokens", "int", priority=4, min_width=6),
        column("root_cause", "Root cause", min_width=12),
    ]
    rows = [
        {
            "task_id": r.get("task_id"),
            "difficulty": r.get("difficulty"),
            "exec": _exec_mark(r.get("execution_success")),
            "final_score": r.get("final_score"),
            "outcome": r.get("outcome_status"),
            "time": r.get("execution_time"),
            "steps": r.get("trajectory_length"),
            "tokens": r.get("total_tokens"),
            "root_cause": r.get("root_cause") or r.get("task_errors") or "",
        }
        for r in run.rows
    ]
    notes = ["Exec: ✓ the task ran and submitted an answer, ✗ it crashed or gave up; Score: final_score."]
    if limit is not None and len(rows) > limit:
        notes.append(f"{len(rows) - limit} more tasks not shown: see task_metrics.csv (or --mode verbose).")
        rows = rows[:limit]
    empty = "no tasks in this run" if not rows else None
    return Section(id="per-task", title="Per-task results", columns=columns, rows=rows, notes=notes, empty=empty)


def overall_section(run: RunRows) -> Section:
    """Execution success (the code ran) apart from answer accuracy (the answer is right)."""
    rows, thr = run.rows, run.success_threshold
    scores = numbers(rows, "final_score")
    executed, known = count_true(rows, "execution_success")
    correct = sum(s >= thr for s in scores)
    partial = sum(1 for r in rows if r.get("outcome_status") == "partial")
    times, tokens = numbers(rows, "execution_time"), numbers(rows, "total_tokens")
    out = [
        value_row("Tasks", str(len(rows)), len(rows)),
        value_row("Execution success", pct_of(executed, known), ratio(executed, known)),
        value_row(f"Answer accuracy (≥ {thr:g})", pct_of(correct, len(scores)), ratio(correct, len(scores))),
        value_row("Partial answers", str(partial) if scores else "— (no gold)", partial if scores else None),
        value_row("Mean final score", f"{fmean(scores):.3f} (n={len(scores)})" if scores else "— (no gold)",
                  fmean(scores) if scores else None),
        value_row("Mean runtime", f"{fmean(times):.1f}s (n={len(times)})" if times else "— (no timing)",
                  fmean(times) if times else None),
        value_row("Total tokens", f"{sum(tokens):,.0f} (n={len(tokens)})" if tokens else "— (not recorded)",
                  sum(tokens) if tokens else None),
    ]
    notes = ["Execution success counts tasks that ran without crashing; accuracy counts correct answers."]
    return Section(id="overall", title="Overall summary", columns=MEASURE_COLUMNS, rows=out, notes=notes,
                   empty=None if rows else "no tasks in this run")


def _difficulty_row(name: str, rows: Sequence[Row], thr: float) -> dict[str, Cell]:
    scores = numbers(rows, "final_score")
    executed, known = count_true(rows, "execution_success")
    times, tokens = numbers(rows, "execution_time"), numbers(rows, "total_tokens")
    return {
        "difficulty": name,
        "tasks": len(rows),
        "exec": ratio(executed, known),
        "accuracy": ratio(sum(s >= thr for s in scores), len(scores)),
        "mean_score": fmean(scores) if scores else None,
        "runtime": fmean(times) if times else None,
        "tokens": fmean(tokens) if tokens else None,
    }


def difficulty_section(run: RunRows) -> Section:
    """Execution success, answer accuracy, mean score, runtime and tokens per difficulty."""
    groups: dict[str, list[Row]] = {}
    for row in run.rows:
        groups.setdefault(str(row.get("difficulty") or "unknown"), []).append(row)
    names = sorted(groups, key=lambda d: (DIFFICULTY_ORDER.get(d, 9), d))
    rows = [_difficulty_row(name, groups[name], run.success_threshold) for name in names]
    if len(names) > 1:
        rows.append(_difficulty_row("all", run.rows, run.success_threshold))
    columns = [
        column("difficulty", "Difficulty", min_width=10),
        column("tasks", "Tasks", "int", min_width=5),
        column("exec", "Exec OK", "pct", min_width=7),
        column("accuracy", "Accuracy", "pct", min_width=8),
        column("mean_score", "Score", "score", min_width=6),
        column("runtime", "Runtime", "seconds", 1, 8),
        column("tokens", "Tokens", "int", 2, 7),
    ]
    notes = [
        f"Exec OK: execution success; Accuracy: tasks with gold whose final_score ≥ {run.success_threshold:g}; "
        "Score, Runtime, Tokens: means per task."
    ]
    return Section(id="difficulty", title="Difficulty breakdown", columns=columns, rows=rows, notes=notes,
                   empty=None if run.rows else "no tasks in this run")
