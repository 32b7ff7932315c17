"""Evaluation suites: datasets of cases with gold, runners for the system under test, honest reports.

A dataset (manifest + suites + cases + expectations + metrics) is validated strictly, each attempt of
each case is run (or read from recorded results), every expectation becomes an owner-aware check
outcome, and the report keeps every denominator whole::

    dataset = load_dataset(Path("evaluation/dataset.json"))
    report = await run_dataset(dataset, CommandTarget("python sut.py"), SuiteRunParameters(repeat=3))

A report is a typed :class:`SuiteReport`; saved reports can be read back (:func:`read_report`),
rescored against current gold (:func:`replay_report`) and compared (:func:`compare_reports`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.suites.checking._judge import JudgeAsker as JudgeAsker
    from tracegrade.suites.checking._records import AttemptRecord as AttemptRecord
    from tracegrade.suites.checking._records import CheckResult as CheckResult
    from tracegrade.suites.reading._comparisons import BUILTIN_COMPARISONS as BUILTIN_COMPARISONS
    from tracegrade.suites.reading._comparisons import JUDGE_COMPARISON as JUDGE_COMPARISON
    from tracegrade.suites.reading._comparisons import CheckContext as CheckContext
    from tracegrade.suites.reading._comparisons import Comparison as Comparison
    from tracegrade.suites.reading._comparisons import CustomScorer as CustomScorer
    from tracegrade.suites.reading._comparisons import ScorerRegistry as ScorerRegistry
    from tracegrade.suites.reading._dataset import Dataset as Dataset
    from tracegrade.suites.reading._load import check_dataset as check_dataset
    from tracegrade.suites.reading._load import load_dataset as load_dataset
    from tracegrade.suites.reading._models import Case as Case
    from tracegrade.suites.reading._models import Expectation as Expectation
    from tracegrade.suites.reporting._compare import ComparisonReport as ComparisonReport
    from tracegrade.suites.reporting._compare import compare_reports as compare_reports
    from tracegrade.suites.reporting._html import render_report_html as render_report_html
    from tracegrade.suites.reporting._params import IntervalParameters as IntervalParameters
    from tracegrade.suites.reporting._params import SuiteRunParameters as SuiteRunParameters
    from tracegrade.suites.reporting._report import SuiteReport as SuiteReport
    from tracegrade.suites.reporting._report import SuiteSection as SuiteSection
    from tracegrade.suites.reporting._report import dumps_report as dumps_report
    from tracegrade.suites.reporting._report import exit_code as exit_code
    from tracegrade.suites.reporting._report import read_report as read_report
    from tracegrade.suites.reporting._report import report_parts as report_parts
    from tracegrade.suites.reporting._report import report_summary as report_summary
    from tracegrade.suites.reporting._report import write_private as write_private
    from tracegrade.suites.reporting._terminal import print_comparison as print_comparison
    from tracegrade.suites.reporting._terminal import print_report as print_report
    from tracegrade.suites.running._engine import run_dataset as run_dataset
    from tracegrade.suites.running._recorded_results import RecordedResults as RecordedResults
    from tracegrade.suites.running._replay import replay_report as replay_report
    from tracegrade.suites.running._runners import CallableTarget as CallableTarget
    from tracegrade.suites.running._runners import CommandTarget as CommandTarget
    from tracegrade.suites.running._runners import HttpTarget as HttpTarget
    from tracegrade.suites.running._runners import Target as Target

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
