"""The self-contained HTML report of a suite run or replay (template ``suite_report.html``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

from tracegrade.render import fmt_pct, render_html
from tracegrade.suites.checking._metrics import ClassificationSummary, FieldsSummary, MetricSummary, MultilabelSummary
from tracegrade.suites.checking._owners import ERROR_CODE_HINTS
from tracegrade.suites.checking._records import OUTCOMES, AttemptRecord
from tracegrade.suites.reading._json import ABSENT, pointer_tokens, resolve
from tracegrade.suites.reporting._report import SuiteReport, SuiteSection

__all__ = ["MAX_HTML_ATTEMPTS", "render_report_html"]

MAX_HTML_ATTEMPTS = 5000
"""Attempt rows shown per suite; the JSON report keeps every attempt."""


def render_report_html(report: SuiteReport) -> str:
    """The report as one self-contained HTML page."""
    suites = [_suite(index, suite) for index, suite in enumerate(report.suites)]
    dataset = report.dataset
    return render_html(
        "suite_report.html", title=f"Suite report: {dataset.name} (revision {dataset.revision})",
        subtitle=f"{report.mode} · {len(suites)} suites", suites=suites,
        sections=[{"id": s["id"], "label": s["name"]} for s in suites],
        generated_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))


def _cards(suite: SuiteSection) -> list[dict[str, Any]]:
    checks = suite.checks
    return [
        {"label": "check pass rate", "value": fmt_pct(suite.check_pass_rate),
         "hint": f"{checks.passed} of {checks.total} declared checks"},
        {"label": "check coverage", "value": fmt_pct(suite.check_coverage), "hint": "passed or failed"},
        {"label": "case pass rate", "value": fmt_pct(suite.case_pass_rate), "hint": "attempts with all passed"},
        {"label": "failure rate", "value": fmt_pct(suite.failure_rate), "hint": "operational failures",
         "kind": "bad" if suite.failure_rate else None},
        {"label": "review rate", "value": fmt_pct(suite.review_rate), "hint": "ended in needs_review"},
    ]


def _attempt_row(attempt: AttemptRecord) -> dict[str, Any]:
    not_passed = [f"{c.name}: {c.outcome}" + (f" ({c.reason_code})" if c.reason_code else "")
                  for c in attempt.checks if c.outcome != "passed"]
    return {"id": attempt.id, "repetition": attempt.repetition, "status": attempt.status,
            "verdict": "passed" if attempt.passed else "not passed", "not_passed": "; ".join(not_passed) or None,
            "error_code": attempt.error_code, "elapsed_seconds": attempt.elapsed_seconds,
            "checks": _check_rows(attempt), "kept": attempt.details is not None,
            "outcomes": " ".join(sorted({c.outcome for c in attempt.checks}))}


def _check_rows(attempt: AttemptRecord) -> list[dict[str, Any]]:
    """Each check with its pointer, comparison, gold and observed value (when the report kept its details)."""
    details = attempt.details or {}
    expectations = {e.get("name"): e for e in details.get("expectations") or [] if isinstance(e, dict)}
    result = details.get("result", ABSENT)
    rows = []
    for check in attempt.checks:
        expectation = expectations.get(check.name, {})
        path = expectation.get("path")
        comparison = expectation.get("comparison")
        if expectation.get("each") is not None:
            comparison = f"{comparison}, each {expectation['each']}"
        observed = _observed(result, path)
        rows.append({"name": check.name, "outcome": check.outcome, "reason": check.reason_code, "path": path,
                     "comparison": comparison, "gold": _json(expectation["expected"]) if "expected" in expectation
                     else None, "observed": observed})
    return rows


def _observed(result: Any, path: Any) -> str | None:
    """What the system answered at ``path`` (JSON), ``(absent)``, or None when the result was not kept."""
    if result is ABSENT or not isinstance(path, str):
        return None
    value = resolve(result, pointer_tokens(path))
    return "(absent)" if value is ABSENT else _json(value)


def _json(value: Any) -> str:
    """Compact JSON, indented when longer than a line."""
    text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    if len(text) <= 80:
        return text
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()


def _metric(index: int, metric: MetricSummary) -> dict[str, Any]:
    view = {**metric.model_dump(), "id": f"m{index}", "matrix": None, "per_label": None, "fields": None}
    if isinstance(metric, ClassificationSummary):
        labels = ["null" if label is None else str(label) for label in metric.confusion_matrix.labels]
        view["matrix"] = {"labels": labels, "rows": [{"label": label, "counts": counts} for label, counts in
                                                     zip(labels, metric.confusion_matrix.rows, strict=True)]}
    if isinstance(metric, ClassificationSummary | MultilabelSummary):
        rows = [{**dict(row), "label": "null" if row.label is None else row.label} for row in metric.per_label]
        rows += [{"label": f"({name})", "tp": None, "fp": None, "fn": None, "tn": None, **dict(rates)}
                 for name, rates in (("micro", metric.micro), ("macro", metric.macro))]
        view["per_label"] = rows
    if isinstance(metric, FieldsSummary):
        view["fields"] = [dict(row) for row in metric.fields]
    return view


def _suite(index: int, suite: SuiteSection) -> dict[str, Any]:
    total = suite.checks.total
    counts = dict(suite.checks)
    outcomes = [{"outcome": name, "count": counts[name], "share": counts[name] / total if total else None}
                for name in ("passed", "failed", "missing", "skipped", "errors")]
    targets = " / ".join(str(t) for t in (suite.target_workflow, suite.target_flow, suite.target_step) if t)
    attempts = suite.attempts
    return {
        "id": f"suite-{index}", "name": suite.suite, "targets": targets, "repeat": suite.repeat,
        "fingerprint": suite.fingerprint, "source_case_count": suite.source_case_count,
        "attempt_count": suite.attempt_count, "cards": _cards(suite), "outcomes": outcomes,
        "invocations": [{**dict(f), "step": "—"} for f in suite.flows] + [dict(s) for s in suite.steps],
        "decisions": [dict(d) for d in suite.decisions],
        "metrics": [_metric(i, m) for i, m in enumerate(suite.metrics)],
        "latency": dict(suite.latency),
        "usage": [{"field": name, **dict(values)} for name, values in suite.usage.items()],
        "failures": [{"code": code, "count": count, "meaning": ERROR_CODE_HINTS.get(code, "")}
                     for code, count in suite.failures.items()],
        "attempts": [_attempt_row(a) for a in attempts[:MAX_HTML_ATTEMPTS]],
        "outcome_options": [(name, sum(1 for a in attempts for c in a.checks if c.outcome == name))
                            for name in OUTCOMES],
        "attempts_cut": len(attempts) > MAX_HTML_ATTEMPTS,
    }
