"""Phase timing: time, calls and tokens per AAT stage, with the wall-clock reconciliation view."""

from __future__ import annotations

from statistics import fmean

from tracegrade.dabench.analyses._reconcile import Reconciliation
from tracegrade.dabench.analyses._sections import Section, column, pct
from tracegrade.dabench.tables._evaluated import RunRows, numbers

__all__ = ["phase_timing_section"]

STAGES = (
    ("UNDERSTAND", "understanding_time", "understanding_calls", "understanding_tokens"),
    ("PLAN", "planning_time", "planning_calls", "planning_tokens"),
    ("EXECUTE", "execution_stage_time", "execution_calls", "execution_tokens"),
    ("VERIFY", "verification_time", "verification_calls", "verification_tokens"),
    ("SUMMARIZE", "summary_time", "summary_calls", "summary_tokens"),
)


def phase_timing_section(run: RunRows, rec: Reconciliation) -> Section:
    """Mean and total time per stage, calls and tokens, and how much wall clock the steps account for."""
    columns = [
        column("stage", "Stage", min_width=10),
        column("mean_time", "Mean time", "seconds", min_width=8),
        column("share", "Share", "pct", min_width=6),
        column("calls", "Mean calls", "float", min_width=6),
        column("tokens", "Mean tokens", "int", priority=1, min_width=8),
        column("total_time", "Total time", "seconds", priority=2, min_width=8),
    ]
    section = Section(id="phase-timing", title="Phase timing", columns=columns)
    totals = {stage: sum(numbers(run.rows, t)) for stage, t, _, _ in STAGES}
    timed = any(numbers(run.rows, t) for _, t, _, _ in STAGES)
    grand = sum(totals.values())
    for stage, t, c, k in STAGES:
        times, calls, tokens = numbers(run.rows, t), numbers(run.rows, c), numbers(run.rows, k)
        if not calls:
            continue
        share = totals[stage] / grand if timed and grand > 0 else None
        section.rows.append({"stage": stage, "mean_time": fmean(times) if times else None, "share": share,
                             "calls": fmean(calls), "tokens": fmean(tokens) if tokens else None,
                             "total_time": totals[stage] if times else None})
    if not section.rows:
        section.empty = "no steps in these traces: no phase timing"
        return section
    section.notes = [_reconciliation_line(rec)]
    return section


def _reconciliation_line(rec: Reconciliation) -> str:
    t = rec.time_accounting
    if not t.get("tasks_timed"):
        return "No per-step durations in these traces: time columns are empty and the wall clock is not reconciled."
    return (
        f"Reconciliation: wall clock {t['wall_clock_seconds']:.1f}s, step durations {t['component_seconds']:.1f}s "
        f"({pct(t['time_accounting_ratio'], 'n/a')}); unaccounted overhead {t['unaccounted_overhead_seconds']:.1f}s "
        "(framework, I/O, queuing)."
    )
