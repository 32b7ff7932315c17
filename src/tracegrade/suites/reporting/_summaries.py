"""Suite summaries from attempt records: checks, rates, flows, steps, decisions, latency, usage, failures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from tracegrade.suites.checking._metrics import summarise_metric
from tracegrade.suites.checking._records import FAILED_STATUSES, USAGE_FIELDS, AttemptRecord, Invocation
from tracegrade.suites.reading._dataset import SuiteSpec

__all__ = ["check_counts", "latency_summary", "summarise_suite", "usage_summary"]


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def check_counts(attempts: Sequence[AttemptRecord]) -> dict[str, int]:
    """``{total, passed, failed, missing, skipped, errors}`` over every check of every attempt."""
    counts = Counter(check.outcome for attempt in attempts for check in attempt.checks)
    return {"total": sum(counts.values()), "passed": counts["passed"], "failed": counts["failed"],
            "missing": counts["missing"], "skipped": counts["skipped"], "errors": counts["error"]}


def summarise_suite(suite: SuiteSpec, attempts: Sequence[AttemptRecord]) -> dict[str, Any]:
    """Every aggregate of one suite (identity and attempts are added by the caller)."""
    checks = check_counts(attempts)
    n = len(attempts)
    return {
        "source_case_count": len({a.id for a in attempts}),
        "attempt_count": n,
        "checks": checks,
        "check_pass_rate": _ratio(checks["passed"], checks["total"]),
        "check_coverage": _ratio(checks["passed"] + checks["failed"], checks["total"]),
        "case_pass_rate": _ratio(sum(1 for a in attempts if a.passed), n),
        "failure_rate": _ratio(sum(1 for a in attempts if a.status in FAILED_STATUSES), n),
        "review_rate": _ratio(sum(1 for a in attempts if a.status == "needs_review"), n),
        "statuses": dict(sorted(Counter(a.status for a in attempts).items())),
        **_invocation_summaries([i for a in attempts for i in a.invocations]),
        "latency": latency_summary([a.elapsed_seconds for a in attempts]),
        "usage": usage_summary([a.usage for a in attempts]),
        "failures": dict(sorted(Counter(a.error_code or a.status for a in attempts
                                        if a.status in FAILED_STATUSES).items())),
        "metrics": [summarise_metric(m, [a.metrics[m.name] for a in attempts]) for m in suite.metrics],
    }


def latency_summary(values: Sequence[float | None]) -> dict[str, Any]:
    """``{count, unavailable, minimum, median, p95, maximum}`` in seconds; p95 is the nearest rank."""
    from tracegrade.stats import median, nearest_rank_percentile

    known = [v for v in values if v is not None]
    return {"count": len(known), "unavailable": len(values) - len(known),
            "minimum": min(known) if known else None, "median": median(known),
            "p95": nearest_rank_percentile(known, 0.95), "maximum": max(known) if known else None}


def usage_summary(usages: Sequence[dict[str, int | None] | None]) -> dict[str, dict[str, int | None]]:
    """Per usage field ``{observed, unknown, known_total, total}``; total is null when any value is unknown."""
    summary = {}
    for name in USAGE_FIELDS:
        known = [u[name] for u in usages if u is not None and u.get(name) is not None]
        unknown = len(usages) - len(known)
        total = sum(v for v in known if v is not None)
        summary[name] = {"observed": len(known), "unknown": unknown, "known_total": total,
                         "total": total if unknown == 0 else None}
    return summary


def _counts(records: Sequence[Invocation]) -> dict[str, int]:
    statuses = Counter(r.status for r in records)
    return {"observed_invocations": len(records), "skipped_invocations": statuses["skipped"],
            "failed_invocations": statuses["failed"] + statuses["cancelled"],
            "review_invocations": statuses["needs_review"]}


def _invocation_summaries(records: Sequence[Invocation]) -> dict[str, Any]:
    flows: dict[str, list[Invocation]] = {}
    steps: dict[tuple[str, str], list[Invocation]] = {}
    for record in records:
        if record.step is None:
            flows.setdefault(record.flow, []).append(record)
        else:
            steps.setdefault((record.flow, record.step), []).append(record)
    decisions = []
    for (flow, step), group in steps.items():
        selected = Counter(r.origin for r in group if r.origin in ("model", "fallback"))
        if selected:
            total = selected["model"] + selected["fallback"]
            decisions.append({"flow": flow, "step": step, "decision_invocations": total,
                              "model_selected_invocations": selected["model"],
                              "fallback_selected_invocations": selected["fallback"],
                              "fallback_rate": _ratio(selected["fallback"], total)})
    return {"flows": [{"flow": f, **_counts(g)} for f, g in sorted(flows.items())],
            "steps": [{"flow": f, "step": s, **_counts(g)} for (f, s), g in sorted(steps.items())],
            "decisions": sorted(decisions, key=lambda d: (d["flow"], d["step"]))}
