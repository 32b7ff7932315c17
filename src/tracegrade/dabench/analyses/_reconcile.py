"""Artifact reconciliation: the written tables agree with each other and with the seed's invariants.

Every check runs per task over the tables eval-v2 wrote (task_metrics, trajectory, tool_calls). A
finding is an ``error`` (an invariant is broken: the artifacts contradict each other), a ``warning``
(suspicious, e.g. coordinator counts that disagree — diagnostic only since the June 2026 fixes) or
``info``. A task passes when it has no error. Nothing is rewritten: the report states what it found.

Two checks compare the run folder with ``summary.json``: a task whose entry names a trace (or a
``prediction_csv_path``) that its folder lacks has an error, so a run evaluated from a fraction of its
traces never reconciles clean.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from tracegrade.dabench.analyses._sections import pct
from tracegrade.dabench.tables._evaluated import Row, num, read_columns

__all__ = ["CHECKS", "Finding", "Reconciliation", "TableFacts", "format_reconciliation", "reconcile", "table_facts"]

Severity = Literal["error", "warning", "info"]
TOKEN_TOLERANCE = 100
LOW_ACCOUNTING = 0.05
CHECKS = ("tool_call_count", "tool_failure_count", "token_conservation", "trajectory_completeness",
          "verification_semantics", "verification_boolean", "time_accounting", "data_understanding_inflation",
          "replan_count_consistent", "retry_count_consistent", "coordinator_metrics_consistent",
          "summary_trace_present", "summary_prediction_present", "summary_entry_usable")
_NAMED_FILES = (("summary_trace_present", "trace", "a trace (trace.json or trace_r<N>.json)"),
                ("summary_prediction_present", "prediction.csv", "prediction.csv"))


class Finding(BaseModel):
    """One reconciliation finding."""

    task_id: str
    check: str
    severity: Severity
    message: str


class TaskFacts(BaseModel):
    """What the step and tool-call tables hold for one task."""

    steps: int = 0
    tool_calls: int = 0
    tool_failures: int = 0
    tokens: int | None = None
    seconds: float | None = None


class TableFacts(BaseModel):
    """Per-task totals of trajectory and tool_calls (read back from the written Parquet tables)."""

    tasks: dict[str, TaskFacts] = Field(default_factory=dict)


class Reconciliation(BaseModel):
    """The reconciliation result of a run."""

    tasks_checked: int
    tasks_passed: int
    pass_rate: float | None
    errors: int
    warnings: int
    infos: int
    by_check: dict[str, dict[str, int]]
    """check → {"error": n, "warning": n, "info": n, "passed": n, "skipped": n}."""
    findings: list[Finding]
    time_accounting: dict[str, float | int | None]
    """Run totals: wall clock, component time, unaccounted overhead, ratio, tasks timed."""

    @property
    def passed(self) -> bool:
        """True when no task has an error."""
        return self.errors == 0


def table_facts(folder: Path) -> TableFacts:
    """Per-task totals from ``trajectory.parquet`` and ``tool_calls.parquet`` in ``folder``."""
    # task → [steps, tool calls, tool failures, tokens, seconds], plain lists until the end
    totals: defaultdict[str, list[Any]] = defaultdict(lambda: [0, 0, 0, None, None])
    steps = read_columns(folder / "trajectory.parquet", ("task_id", "tokens", "duration_seconds"))
    for task, tokens, seconds in zip(steps["task_id"], steps["tokens"], steps["duration_seconds"], strict=True):
        fact = totals[str(task)]
        fact[0] += 1
        if isinstance(tokens, int):
            fact[3] = (fact[3] or 0) + tokens
        if isinstance(seconds, float | int):
            fact[4] = (fact[4] or 0.0) + float(seconds)
    calls = read_columns(folder / "tool_calls.parquet", ("task_id", "success"))
    for task, success in zip(calls["task_id"], calls["success"], strict=True):
        fact = totals[str(task)]
        fact[1] += 1
        fact[2] += success == 0
    return TableFacts(
        tasks={
            task: TaskFacts(steps=s, tool_calls=c, tool_failures=f, tokens=t, seconds=d)
            for task, (s, c, f, t, d) in totals.items()
        }
    )


class _Checker:
    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.counts: dict[str, Counter[str]] = {check: Counter() for check in CHECKS}

    def outcome(self, task: str, check: str, severity: Severity | None, message: str = "") -> None:
        if severity is None:
            self.counts[check]["passed"] += 1
            return
        self.counts[check][severity] += 1
        self.findings.append(Finding(task_id=task, check=check, severity=severity, message=message))

    def skip(self, check: str) -> None:
        self.counts[check]["skipped"] += 1


def _int(row: Row, name: str) -> int | None:
    value = row.get(name)
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _counts(c: _Checker, task: str, row: Row, fact: TaskFacts) -> None:
    for check, column, seen in (
        ("tool_call_count", "tool_calls", fact.tool_calls),
        ("tool_failure_count", "tool_failures", fact.tool_failures),
        ("trajectory_completeness", "trajectory_length", fact.steps),
    ):
        expected = _int(row, column)
        if expected is None:
            c.skip(check)
        elif expected != seen:
            c.outcome(task, check, "error", f"{column}={expected} in task_metrics but {seen} rows in the step tables")
        else:
            c.outcome(task, check, None)
    total = _int(row, "total_tokens")
    if total is None or fact.tokens is None:
        c.skip("token_conservation")
    elif abs(total - fact.tokens) >= TOKEN_TOLERANCE:
        c.outcome(task, "token_conservation", "error", f"total_tokens={total} but trajectory sums {fact.tokens}")
    else:
        c.outcome(task, "token_conservation", None)


def _verification(c: _Checker, task: str, row: Row) -> None:
    decision, passed = row.get("coordinator_final_decision"), _int(row, "aat_verification_passed")
    if decision is None or passed is None:
        c.skip("verification_semantics")
    elif (passed == 1) != (str(decision).upper() == "APPROVE_FINAL"):
        message = f"aat_verification_passed={passed} but coordinator_final_decision={decision}"
        c.outcome(task, "verification_semantics", "error", message)
    else:
        c.outcome(task, "verification_semantics", None)
    legacy, critic = _int(row, "verification_passed"), _int(row, "critic_verification_passed")
    if legacy is None:
        c.skip("verification_boolean")
    elif legacy not in (0, 1) or legacy != critic:
        message = f"verification_passed={legacy} must be 0/1 and equal critic_verification_passed={critic}"
        c.outcome(task, "verification_boolean", "error", message)
    else:
        c.outcome(task, "verification_boolean", None)


def _time(c: _Checker, task: str, row: Row, fact: TaskFacts) -> None:
    wall = num(row.get("execution_time"))
    if wall is None or fact.seconds is None or wall <= 0:
        c.skip("time_accounting")
        return
    ratio = fact.seconds / wall
    if ratio < LOW_ACCOUNTING:
        message = f"only {ratio:.1%} of {wall:g}s wall clock is in step durations (warning below 5%)"
        c.outcome(task, "time_accounting", "warning", message)
    elif fact.seconds > wall:
        message = f"step durations {fact.seconds:g}s exceed wall clock {wall:g}s (concurrent execution)"
        c.outcome(task, "time_accounting", "info", message)
    else:
        c.outcome(task, "time_accounting", None)


def _inflation(c: _Checker, task: str, row: Row) -> None:
    score, activation = num(row.get("data_understanding_score")), num(row.get("specialist_activation_score"))
    if score is None:
        c.skip("data_understanding_inflation")
        return
    ceiling = 1.0 if activation is None else 0.5 * activation + 0.5
    if score < 0 or score > ceiling + 1e-9:
        message = f"data_understanding_score={score:.3f} exceeds its maximum {ceiling:.3f} (0.5·activation + 0.5)"
        c.outcome(task, "data_understanding_inflation", "error", message)
    else:
        c.outcome(task, "data_understanding_inflation", None)


def _coordinator(c: _Checker, task: str, row: Row) -> None:
    pairs = (
        ("replan_count_consistent", "replan_count", "replan_requested"),
        ("retry_count_consistent", "planner_dead_ends", "retry_requested"),
    )
    for check, counted, requested in pairs:
        a, b = _int(row, counted), _int(row, requested)
        if a is None or b is None:
            c.skip(check)
        elif a != b:
            c.outcome(task, check, "warning", f"{counted}={a} but the coordinator requested {b} ({requested})")
        else:
            c.outcome(task, check, None)
    calls, interventions = _int(row, "coordinator_calls"), _int(row, "coordinator_interventions")
    if calls is None or interventions is None:
        c.skip("coordinator_metrics_consistent")
    elif interventions != max(0, calls - 3):
        message = f"coordinator_interventions={interventions} but coordinator_calls={calls}"
        c.outcome(task, "coordinator_metrics_consistent", "warning", f"{message} (expected max(0, calls − 3))")
    else:
        c.outcome(task, "coordinator_metrics_consistent", None)


def _named_files(c: _Checker, task: str, missing: Mapping[str, frozenset[str]]) -> None:
    for check, kind, what in _NAMED_FILES:
        if task in missing.get(kind, frozenset()):
            c.outcome(task, check, "error", f"summary.json names {what} for this task, but its folder has none")
        else:
            c.outcome(task, check, None)


def reconcile(
    rows: Sequence[Row], facts: TableFacts, missing: Mapping[str, Sequence[str]] | None = None,
    unusable: Sequence[tuple[int, str]] = (),
) -> Reconciliation:
    """Run every check on every task row, and name the summary.json entries no task could be read for.

    Args:
        rows: The task_metrics rows.
        facts: Per-task totals of the step tables.
        missing: File kind (``trace``, ``prediction.csv``) → tasks whose summary.json entry names that
            file but whose folder lacks it (the run metadata's ``named_files_missing``).
        unusable: (index in summary.json's ``tasks``, message) of the entries with no usable task id: each is
            a listed task that was not evaluated, an error that counts against the pass rate.
    """
    checker = _Checker()
    for index, message in unusable:
        checker.outcome(f"summary.json tasks[{index}]", "summary_entry_usable", "error", message)
    absent = {kind: frozenset(tasks) for kind, tasks in (missing or {}).items()}
    for row in rows:
        task = str(row.get("task_id"))
        fact = facts.tasks.get(task, TaskFacts())
        _counts(checker, task, row, fact)
        _verification(checker, task, row)
        _time(checker, task, row, fact)
        _inflation(checker, task, row)
        _coordinator(checker, task, row)
        _named_files(checker, task, absent)
        checker.outcome(task, "summary_entry_usable", None)  # the row exists: its entry named a folder
    failing = {f.task_id for f in checker.findings if f.severity == "error"}
    severities = Counter(f.severity for f in checker.findings)
    checked = len(rows) + len(unusable)
    passed = checked - len(failing)
    return Reconciliation(
        tasks_checked=checked,
        tasks_passed=passed,
        pass_rate=passed / checked if checked else None,
        errors=severities["error"],
        warnings=severities["warning"],
        infos=severities["info"],
        by_check={
            check: {k: counts[k] for k in ("passed", "error", "warning", "info", "skipped")}
            for check, counts in checker.counts.items()
        },
        findings=checker.findings,
        time_accounting=_time_totals(rows, facts),
    )


def _time_totals(rows: Iterable[Row], facts: TableFacts) -> dict[str, float | int | None]:
    wall = component = 0.0
    timed = 0
    for row in rows:
        seconds = facts.tasks.get(str(row.get("task_id")), TaskFacts()).seconds
        clock = num(row.get("execution_time"))
        if seconds is None or clock is None:
            continue
        timed += 1
        wall += clock
        component += seconds
    keys = ("wall_clock_seconds", "component_seconds", "unaccounted_overhead_seconds", "time_accounting_ratio")
    values = (wall, component, wall - component, component / wall if wall > 0 else None) if timed else (None,) * 4
    return {"tasks_timed": timed, **dict(zip(keys, values, strict=True))}


def format_reconciliation(result: Reconciliation, run_id: str, *, limit: int = 200) -> str:
    """The plain-text report ``artifact_reconciliation_report.txt``."""
    rate = pct(result.pass_rate, "n/a (no tasks)")
    lines = [
        f"Artifact reconciliation: {run_id}",
        "=" * 60,
        f"Status: {'PASSED' if result.passed else 'FAILED'} "
        f"({result.tasks_passed}/{result.tasks_checked} tasks without errors, {rate})",
        f"Findings: {result.errors} errors, {result.warnings} warnings, {result.infos} info",
        "Coordinator consistency checks are diagnostic warnings, never failures.",
        "",
        f"{'check':<32}{'passed':>8}{'error':>7}{'warning':>9}{'info':>6}{'skipped':>9}",
    ]
    for check, counts in result.by_check.items():
        lines.append(
            f"{check:<32}{counts['passed']:>8}{counts['error']:>7}{counts['warning']:>9}"
            f"{counts['info']:>6}{counts['skipped']:>9}"
        )
    lines += ["", "Time accounting (tasks with step durations):", *_time_lines(result.time_accounting), ""]
    lines.append("Findings:" if result.findings else "Findings: none")
    for finding in result.findings[:limit]:
        lines.append(f"  [{finding.severity.upper()}] {finding.task_id} {finding.check}: {finding.message}")
    if len(result.findings) > limit:
        lines.append(f"  ... {len(result.findings) - limit} more in artifact_reconciliation_report.json")
    return "\n".join(lines) + "\n"


def _time_lines(totals: Mapping[str, float | int | None]) -> list[str]:
    if not totals.get("tasks_timed"):
        return ["  no per-step durations in this run: time accounting skipped (not critical)"]
    ratio = totals["time_accounting_ratio"]
    return [
        f"  tasks timed: {totals['tasks_timed']}",
        f"  wall clock: {totals['wall_clock_seconds']:.1f}s; step durations: {totals['component_seconds']:.1f}s",
        f"  unaccounted overhead time: {totals['unaccounted_overhead_seconds']:.1f}s "
        "(framework overhead, I/O wait, queuing)",
        f"  time accounting ratio: {pct(ratio, 'n/a')}",
    ]
