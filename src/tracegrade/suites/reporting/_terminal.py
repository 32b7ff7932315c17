"""The rich terminal report of a suite run and of a comparison (readable at 80 columns)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from rich.console import Console

from tracegrade.render import Column, fit_table, fmt_pct, terminal_safe
from tracegrade.suites.checking._metrics import ClassificationSummary, FieldsSummary, MetricSummary, MultilabelSummary
from tracegrade.suites.checking._owners import ERROR_CODE_HINTS
from tracegrade.suites.reporting._compare import ComparisonReport
from tracegrade.suites.reporting._report import SuiteReport, SuiteSection

__all__ = ["print_comparison", "print_report"]


def _pct(header: str, key: str, priority: int = 0) -> Column:
    return Column(header, key, priority=priority, justify="right", formatter=fmt_pct, min_width=max(6, len(header)))


def _int(header: str, key: str, priority: int = 0) -> Column:
    return Column(header, key, priority=priority, justify="right", min_width=5)


def _say(console: Console, text: str) -> None:
    console.print(terminal_safe(text), markup=False, highlight=False)


def _rows(records: Iterable[BaseModel]) -> list[dict[str, Any]]:
    return [dict(record) for record in records]


def print_report(report: SuiteReport, console: Console) -> None:
    """Headline rates, check outcomes, flows and steps, decisions, metrics, latency and failures."""
    width = min(console.width, 120)
    suites = report.suites
    console.print(fit_table(f"Suites ({report.mode})", [
        Column("suite", "suite", min_width=14), Column("attempts", "attempt_count", justify="right", min_width=8),
        _pct("check ok", "check_pass_rate"), _pct("covered", "check_coverage", 1), _pct("case ok", "case_pass_rate"),
        _pct("op. fail", "failure_rate", 1), _pct("review", "review_rate", 2)], _rows(suites), width=width,
        caption="check ok: passed/all declared checks; covered: passed+failed; case ok: attempts with every check "
                "passed; op. fail: failed, cancelled or error attempts"))
    console.print(fit_table("Checks", [Column("suite", "suite", min_width=10)] + [
        _int(name, name) for name in ("total", "passed", "failed", "missing", "skipped", "errors")],
        [{"suite": s.suite, **dict(s.checks)} for s in suites], width=width))
    for suite in suites:
        _suite_details(suite, console, width)


def _suite_details(suite: SuiteSection, console: Console, width: int) -> None:
    name = suite.suite
    rows = [{"step": "—", **dict(f)} for f in suite.flows] + _rows(suite.steps)
    if rows:
        console.print(fit_table(f"{name}: flows and steps", [
            Column("flow", "flow", min_width=8), Column("step", "step", min_width=8),
            _int("seen", "observed_invocations"), _int("skipped", "skipped_invocations", 1),
            _int("failed", "failed_invocations"), _int("review", "review_invocations", 1)], rows, width=width))
    if suite.decisions:
        console.print(fit_table(f"{name}: decisions", [
            Column("flow", "flow", min_width=8), Column("step", "step", min_width=8),
            _int("model", "model_selected_invocations"), _int("fallback", "fallback_selected_invocations"),
            _pct("fallback rate", "fallback_rate")], _rows(suite.decisions), width=width))
    for metric in suite.metrics:
        _metric(name, metric, console, width)
    latency = suite.latency
    seconds = ", ".join(f"{key} {_seconds(getattr(latency, key))}" for key in ("minimum", "median", "p95", "maximum"))
    _say(console, f"{name}: latency over {latency.count} attempts ({latency.unavailable} unavailable): {seconds}")
    if suite.failures:
        failures = ", ".join(f"{code} {count}" for code, count in suite.failures.items())
        _say(console, f"{name}: failed attempts by code: {failures}")
        for code in suite.failures:
            if code in ERROR_CODE_HINTS:
                _say(console, f"  {code}: {ERROR_CODE_HINTS[code]}")


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}s"


def _metric(suite: str, metric: MetricSummary, console: Console, width: int) -> None:
    counts = ", ".join(f"{key} {getattr(metric, key)}"
                       for key in ("observed", "abstained", "missing", "skipped", "errors", "invalid"))
    _say(console, f"{suite}: {metric.kind} metric {metric.name}: accuracy {fmt_pct(metric.accuracy)}, coverage "
         f"{fmt_pct(metric.coverage)} (support {metric.support}, excluded {metric.excluded}; {counts})")
    if isinstance(metric, ClassificationSummary | MultilabelSummary):
        rows = [{**dict(row), "label": "null" if row.label is None else row.label} for row in metric.per_label]
        for name, rates in (("micro", metric.micro), ("macro", metric.macro)):
            rows.append({"label": f"({name})", "tp": None, "fp": None, "fn": None, **dict(rates)})
        console.print(fit_table(None, [
            Column("label", "label", min_width=10), _int("TP", "tp", 2), _int("FP", "fp", 2), _int("FN", "fn", 2),
            _pct("precision", "precision"), _pct("recall", "recall"), _pct("F1", "f1", 1)], rows, width=width))
    if isinstance(metric, FieldsSummary):
        console.print(fit_table(None, [
            Column("field", "field", min_width=10), _int("correct", "correct_value"),
            _int("null ok", "correct_null", 1),
            _int("halluc.", "hallucinated"), _int("missed", "missed"), _int("wrong", "wrong_value"),
            _int("n/a", "unavailable", 1)], _rows(metric.fields), width=width))


def print_comparison(result: ComparisonReport, console: Console) -> None:
    """Per-suite change counts and deltas with their intervals."""
    width = min(console.width, 120)
    for suite in result.suites:
        changes = ", ".join(f"{key} {value}" for key, value in suite.changes)
        _say(console, f"{suite.suite}: {suite.attempt_count} attempts: {changes}")
        rows = [{"measure": name, "candidate": d.candidate, "baseline": d.baseline,
                 "delta": d.delta.estimate, "low": d.delta.low, "high": d.delta.high}
                for name, d in suite.deltas.items()]
        console.print(fit_table(None, [
            Column("measure", "measure", min_width=14), _pct("cand.", "candidate", 1), _pct("base", "baseline", 1),
            _pct("delta", "delta"), _pct("low", "low"), _pct("high", "high")], rows, width=width))
