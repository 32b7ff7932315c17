"""Suite summaries from attempt records: checks, rates, flows, steps, decisions, latency, usage, failures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import chain
from operator import attrgetter

from tracegrade.stats import ratio
from tracegrade.suites.checking._metrics import MetricSummary, summarise_metric
from tracegrade.suites.checking._records import FAILED_STATUSES, USAGE_FIELDS, AttemptRecord, Invocation, Record
from tracegrade.suites.reading._dataset import SuiteSpec

__all__ = [
    "CheckCounts",
    "DecisionSummary",
    "FlowInvocations",
    "LatencySummary",
    "StepInvocations",
    "SuiteRates",
    "SuiteSummary",
    "UsageTotal",
    "check_counts",
    "latency_summary",
    "summarise_suite",
    "usage_summary",
]


class CheckCounts(Record):
    """Outcomes over every declared check of every attempt (``total`` is their sum)."""

    total: int
    passed: int
    failed: int
    missing: int
    skipped: int
    errors: int


class LatencySummary(Record):
    """Attempt seconds: how many are known, and their spread (null without any)."""

    count: int
    unavailable: int
    minimum: float | None
    median: float | None
    p95: float | None
    """The nearest rank: the ``ceil(0.95 n)``-th smallest value."""
    maximum: float | None


class UsageTotal(Record):
    """One usage field over the attempts."""

    observed: int
    """Attempts that reported the field."""
    unknown: int
    """Attempts that did not (an attempt without usage counts here)."""
    known_total: int
    total: int | None
    """``known_total`` when every attempt reported the field, else null (never a made-up zero)."""


class _Flow(Record):
    flow: str


class _Step(_Flow):
    step: str


class _InvocationCounts(Record):
    observed_invocations: int
    """Records seen, whatever their status."""
    skipped_invocations: int
    failed_invocations: int
    """Failed or cancelled records."""
    review_invocations: int


# pydantic orders the fields of several bases from the last base to the first: the scope, then the counts.
class FlowInvocations(_InvocationCounts, _Flow):
    """How often one flow ran, and how its records ended."""


class StepInvocations(_InvocationCounts, _Step):
    """How often one step of a flow ran, and how its records ended."""


class DecisionSummary(_Step):
    """Which side selected a decision step's answer (policy use, not accuracy)."""

    decision_invocations: int
    model_selected_invocations: int
    fallback_selected_invocations: int
    fallback_rate: float | None


class SuiteRates(Record):
    """A suite's check outcomes and rates."""

    checks: CheckCounts
    check_pass_rate: float | None
    """``passed / total`` checks."""
    check_coverage: float | None
    """``(passed + failed) / total`` checks."""
    case_pass_rate: float | None
    """Attempts whose checks all passed."""
    failure_rate: float | None
    """``failed``, ``cancelled`` or ``error`` attempts."""
    review_rate: float | None
    """``needs_review`` attempts."""


class _Sizes(Record):
    source_case_count: int
    attempt_count: int


class SuiteSummary(SuiteRates, _Sizes):
    """Every aggregate of one suite's attempts: sizes, rates, then these."""

    statuses: dict[str, int]
    flows: list[FlowInvocations]
    steps: list[StepInvocations]
    decisions: list[DecisionSummary]
    latency: LatencySummary
    usage: dict[str, UsageTotal]
    """By usage field, in :data:`USAGE_FIELDS` order."""
    failures: dict[str, int]
    """Operationally failed attempts by error code (or status)."""
    metrics: list[MetricSummary]


_OUTCOME, _CHECKS, _INVOCATIONS = attrgetter("outcome"), attrgetter("checks"), attrgetter("invocations")


def check_counts(attempts: Sequence[AttemptRecord]) -> CheckCounts:
    """The outcomes of every check of every attempt."""
    counts = Counter(map(_OUTCOME, chain.from_iterable(map(_CHECKS, attempts))))
    return CheckCounts(total=sum(counts.values()), passed=counts["passed"], failed=counts["failed"],
                       missing=counts["missing"], skipped=counts["skipped"], errors=counts["error"])


def summarise_suite(suite: SuiteSpec, attempts: Sequence[AttemptRecord]) -> SuiteSummary:
    """Every aggregate of one suite."""
    checks = check_counts(attempts)
    n = len(attempts)
    flows, steps, decisions = _invocation_summaries(list(chain.from_iterable(map(_INVOCATIONS, attempts))))
    return SuiteSummary(
        source_case_count=len({a.id for a in attempts}),
        attempt_count=n,
        checks=checks,
        check_pass_rate=ratio(checks.passed, checks.total),
        check_coverage=ratio(checks.passed + checks.failed, checks.total),
        case_pass_rate=ratio(sum(1 for a in attempts if a.passed), n),
        failure_rate=ratio(sum(1 for a in attempts if a.status in FAILED_STATUSES), n),
        review_rate=ratio(sum(1 for a in attempts if a.status == "needs_review"), n),
        statuses=dict(sorted(Counter(a.status for a in attempts).items())),
        flows=flows, steps=steps, decisions=decisions,
        latency=latency_summary([a.elapsed_seconds for a in attempts]),
        usage=usage_summary([a.usage for a in attempts]),
        failures=dict(sorted(Counter(a.error_code or a.status for a in attempts
                                     if a.status in FAILED_STATUSES).items())),
        metrics=[summarise_metric(m, [a.metrics[m.name] for a in attempts]) for m in suite.metrics],
    )


def latency_summary(values: Sequence[float | None]) -> LatencySummary:
    """The known values' count, minimum, median, p95 (nearest rank) and maximum, in seconds."""
    from tracegrade.stats import median, nearest_rank_percentile

    known = [v for v in values if v is not None]
    return LatencySummary(count=len(known), unavailable=len(values) - len(known),
                          minimum=min(known) if known else None, median=median(known),
                          p95=nearest_rank_percentile(known, 0.95), maximum=max(known) if known else None)


def usage_summary(usages: Sequence[dict[str, int | None] | None]) -> dict[str, UsageTotal]:
    """Per usage field, its total over the attempts (null when any attempt's value is unknown)."""
    summary = {}
    for name in USAGE_FIELDS:
        known = [u[name] for u in usages if u is not None and u.get(name) is not None]
        unknown = len(usages) - len(known)
        total = sum(v for v in known if v is not None)
        summary[name] = UsageTotal(observed=len(known), unknown=unknown, known_total=total,
                                   total=total if unknown == 0 else None)
    return summary


def _counts(records: Sequence[Invocation]) -> dict[str, int]:
    statuses = Counter(r.status for r in records)
    return {"observed_invocations": len(records), "skipped_invocations": statuses["skipped"],
            "failed_invocations": statuses["failed"] + statuses["cancelled"],
            "review_invocations": statuses["needs_review"]}


def _invocation_summaries(
        records: Sequence[Invocation]) -> tuple[list[FlowInvocations], list[StepInvocations], list[DecisionSummary]]:
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
            decisions.append(DecisionSummary(flow=flow, step=step, decision_invocations=total,
                                             model_selected_invocations=selected["model"],
                                             fallback_selected_invocations=selected["fallback"],
                                             fallback_rate=ratio(selected["fallback"], total)))
    return ([FlowInvocations(flow=f, **_counts(g)) for f, g in sorted(flows.items())],
            [StepInvocations(flow=f, step=s, **_counts(g)) for (f, s), g in sorted(steps.items())],
            sorted(decisions, key=lambda d: (d.flow, d.step)))
