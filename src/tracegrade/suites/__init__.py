"""Evaluation suites: datasets of cases with gold, runners for the system under test, honest reports.

A dataset (manifest + suites + cases + expectations + metrics) is validated strictly, each attempt of
each case is run (or read from recorded results), every expectation becomes an owner-aware check
outcome, and the report keeps every denominator whole::

    dataset = load_dataset(Path("evaluation/dataset.json"))
    report = await run_dataset(dataset, CommandTarget("python sut.py"), SuiteRunParameters(repeat=3))

Saved reports can be rescored against current gold (:func:`replay_report`) and compared
(:func:`compare_reports`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.suites._compare_reports import compare_reports
    from tracegrade.suites._comparison_registry import (
        BUILTIN_COMPARISONS,
        BUILTIN_REVISION,
        JUDGE_COMPARISON,
        CustomScorer,
        ScorerRegistry,
        matches,
        normalized_text,
    )
    from tracegrade.suites._dataset import Case, CaseInput, Dataset, Expectation, Manifest, Metric, SuiteSpec
    from tracegrade.suites._engine import run_dataset, run_key, scorer_revisions
    from tracegrade.suites._judge_check import JudgeVerdict, check_request, judge_check, parse_verdict
    from tracegrade.suites._load import Problem, check_dataset, load_dataset
    from tracegrade.suites._metrics import observe, summarise_metric
    from tracegrade.suites._params import IntervalParameters, SuiteRunParameters
    from tracegrade.suites._recorded_results import RecordedResults
    from tracegrade.suites._records import (
        AttemptRecord,
        AttemptRequest,
        CheckResult,
        Invocation,
        MetricObservation,
        Observation,
    )
    from tracegrade.suites._replay import replay_report
    from tracegrade.suites._report import exit_code, read_report, report_summary, write_private
    from tracegrade.suites._runners import CallableTarget, CommandTarget, HttpTarget, Target
    from tracegrade.suites._scoring import CaseScorer
    from tracegrade.suites._summaries import latency_summary, summarise_suite, usage_summary

_LAZY: dict[str, tuple[str, ...]] = {
    "_compare_reports": ("compare_reports",),
    "_comparison_registry": (
        "BUILTIN_COMPARISONS",
        "BUILTIN_REVISION",
        "JUDGE_COMPARISON",
        "CustomScorer",
        "ScorerRegistry",
        "matches",
        "normalized_text",
    ),
    "_dataset": ("Case", "CaseInput", "Dataset", "Expectation", "Manifest", "Metric", "SuiteSpec"),
    "_engine": ("run_dataset", "run_key", "scorer_revisions"),
    "_judge_check": ("JudgeVerdict", "check_request", "judge_check", "parse_verdict"),
    "_load": ("Problem", "check_dataset", "load_dataset"),
    "_metrics": ("observe", "summarise_metric"),
    "_params": ("IntervalParameters", "SuiteRunParameters"),
    "_recorded_results": ("RecordedResults",),
    "_records": ("AttemptRecord", "AttemptRequest", "CheckResult", "Invocation", "MetricObservation", "Observation"),
    "_replay": ("replay_report",),
    "_report": ("exit_code", "read_report", "report_summary", "write_private"),
    "_runners": ("CallableTarget", "CommandTarget", "HttpTarget", "Target"),
    "_scoring": ("CaseScorer",),
    "_summaries": ("latency_summary", "summarise_suite", "usage_summary"),
}
"""Private module of each public name; a name is imported when first used (fast start-up)."""

__all__ = [
    "BUILTIN_COMPARISONS",
    "BUILTIN_REVISION",
    "JUDGE_COMPARISON",
    "AttemptRecord",
    "AttemptRequest",
    "CallableTarget",
    "Case",
    "CaseInput",
    "CaseScorer",
    "CheckResult",
    "CommandTarget",
    "CustomScorer",
    "Dataset",
    "Expectation",
    "HttpTarget",
    "IntervalParameters",
    "Invocation",
    "JudgeVerdict",
    "Manifest",
    "Metric",
    "MetricObservation",
    "Observation",
    "Problem",
    "RecordedResults",
    "ScorerRegistry",
    "SuiteRunParameters",
    "SuiteSpec",
    "Target",
    "check_dataset",
    "check_request",
    "compare_reports",
    "exit_code",
    "judge_check",
    "latency_summary",
    "load_dataset",
    "matches",
    "normalized_text",
    "observe",
    "parse_verdict",
    "read_report",
    "replay_report",
    "report_summary",
    "run_dataset",
    "run_key",
    "scorer_revisions",
    "summarise_metric",
    "summarise_suite",
    "usage_summary",
    "write_private",
]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
