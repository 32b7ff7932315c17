"""DataAgent-Bench eval-v2: run readers, answer scoring, every metric family, the run tables and reports.

Read a run (``summary.json`` + ``task_<id>/trace.json`` + ``prediction.csv``) and a dataset
(``input/task_<id>/task.json``, ``output/task_<id>/gold.csv``), normalise every trace variant into one
:class:`TaskRecord`, score the answer (:func:`score_answer`: KDD Cup Phase-1 column signatures, DataSpace
task accuracy, cell/column/row P/R/F1) and every metric family (:func:`evaluate_task`);
:func:`evaluate_run` writes ``task_metrics``, ``trajectory``, ``tool_calls`` and
``comprehensive_evaluation`` (CSV + Parquet).

:func:`run_pipeline` is the whole ``dabench eval-v2`` command: the tables, then artifact reconciliation
(:class:`Reconciliation`), per-task replay snapshots (:class:`TaskReplay`), engineering health
(:class:`EngineeringHealth`), the auditor report, and the report of the chosen :class:`Mode`
(:class:`DabenchReport`, rendered by :func:`render_report` and :func:`render_report_html`).
:func:`compare_runs`, :func:`ablation_sections`, :func:`draw_figures` and :func:`paper_tables` work on
evaluated run folders (:func:`read_evaluated`).

Every parameter is declared once, in :class:`MetricParams` (λ, success threshold, max replans),
:class:`Resampling` (bootstrap resamples, level, seed), :class:`PipelineOptions` (mode, baseline) and
:class:`RunLocation` (where run ids are looked up); the CLI options are generated from them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.dabench._params import PipelineOptions as PipelineOptions
    from tracegrade.dabench._pipeline import PipelineResult as PipelineResult
    from tracegrade.dabench._pipeline import run_pipeline as run_pipeline
    from tracegrade.dabench.analyses._ablation import ablation_sections as ablation_sections
    from tracegrade.dabench.analyses._compare import RunComparison as RunComparison
    from tracegrade.dabench.analyses._compare import compare_runs as compare_runs
    from tracegrade.dabench.analyses._compare import comparison_sections as comparison_sections
    from tracegrade.dabench.analyses._health import EngineeringHealth as EngineeringHealth
    from tracegrade.dabench.analyses._mas import specialist_section as specialist_section
    from tracegrade.dabench.analyses._params import Mode as Mode
    from tracegrade.dabench.analyses._params import Resampling as Resampling
    from tracegrade.dabench.analyses._reconcile import Reconciliation as Reconciliation
    from tracegrade.dabench.analyses._replay_schema import TaskReplay as TaskReplay
    from tracegrade.dabench.metrics._answer import AnswerScore as AnswerScore
    from tracegrade.dabench.metrics._answer import score_answer as score_answer
    from tracegrade.dabench.metrics._params import MetricParams as MetricParams
    from tracegrade.dabench.metrics._registry import evaluate_task as evaluate_task
    from tracegrade.dabench.reading._params import RunLocation as RunLocation
    from tracegrade.dabench.reading._records import TaskRecord as TaskRecord
    from tracegrade.dabench.reading._runs import read_summary as read_summary
    from tracegrade.dabench.reading._runs import resolve_run as resolve_run
    from tracegrade.dabench.reading._traces import parse_trace as parse_trace
    from tracegrade.dabench.reading._traces import read_trace as read_trace
    from tracegrade.dabench.report._build import DabenchReport as DabenchReport
    from tracegrade.dabench.report._build import build_report as build_report
    from tracegrade.dabench.report._figures import draw_figures as draw_figures
    from tracegrade.dabench.report._html import render_report_html as render_report_html
    from tracegrade.dabench.report._paper import paper_tables as paper_tables
    from tracegrade.dabench.report._paper import render_latex as render_latex
    from tracegrade.dabench.report._paper import render_markdown as render_markdown
    from tracegrade.dabench.report._terminal import render_report as render_report
    from tracegrade.dabench.report._terminal import render_sections as render_sections
    from tracegrade.dabench.tables._evaluate import EvalOptions as EvalOptions
    from tracegrade.dabench.tables._evaluate import EvalSummary as EvalSummary
    from tracegrade.dabench.tables._evaluate import evaluate_run as evaluate_run
    from tracegrade.dabench.tables._evaluated import RunRows as RunRows
    from tracegrade.dabench.tables._evaluated import read_evaluated as read_evaluated

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
