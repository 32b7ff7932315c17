"""DataAgent-Bench eval-v2: run readers, answer scoring, every metric family, the run tables.

Read a run (``summary.json`` + ``task_<id>/trace.json`` + ``prediction.csv``) and a dataset
(``input/task_<id>/task.json``, ``output/task_<id>/gold.csv``), normalise every trace variant into one
:class:`TaskRecord`, score the answer (KDD Cup Phase-1 column signatures, DataSpace task accuracy,
cell/column/row P/R/F1) and run the registered metric :data:`FAMILIES`; :func:`evaluate_run` writes
``task_metrics``, ``trajectory``, ``tool_calls`` and ``comprehensive_evaluation`` (CSV + Parquet).

:func:`run_pipeline` is the whole ``dabench eval-v2`` command: the tables, then artifact reconciliation
(:func:`reconcile`), per-task replay snapshots (:class:`TaskReplay`), engineering health
(:func:`assess_health`), the auditor report, and the report of the chosen mode (:func:`build_report`,
rendered by :func:`render_report` and :func:`render_report_html`). :func:`compare_runs`,
:func:`ablation_sections`, :func:`draw_figures` and :func:`paper_tables` work on evaluated run folders
(:func:`read_evaluated`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.dabench._pipeline import PipelineOptions, PipelineResult, run_pipeline
    from tracegrade.dabench.analyses._ablation import ablation_sections
    from tracegrade.dabench.analyses._auditor import AnalystTeam, analyst_team, format_auditor_report
    from tracegrade.dabench.analyses._compare import Comparison, compare_runs, comparison_sections
    from tracegrade.dabench.analyses._health import EngineeringHealth, assess_health, format_health
    from tracegrade.dabench.analyses._mas import specialist_section
    from tracegrade.dabench.analyses._reconcile import Reconciliation, format_reconciliation, reconcile, table_facts
    from tracegrade.dabench.analyses._replay import build_replay
    from tracegrade.dabench.analyses._replay_schema import TaskReplay, replay_schema
    from tracegrade.dabench.analyses._sections import Section
    from tracegrade.dabench.metrics._answer import (
        AnswerScore,
        KddMatch,
        dataspace_check,
        kdd_match,
        kdd_score,
        score_answer,
    )
    from tracegrade.dabench.metrics._columns import CATEGORIES, TASK_COLUMNS, Column
    from tracegrade.dabench.metrics._failure import ATTRIBUTION, evaluation_bucket
    from tracegrade.dabench.metrics._families import Family, MetricContext, MetricParams, Out
    from tracegrade.dabench.metrics._registry import FAMILIES, TaskMetrics, column_family, evaluate_task
    from tracegrade.dabench.reading._cells import answer_from_json, normalise_cell, read_answer_csv
    from tracegrade.dabench.reading._observe import TaskSignals, observe
    from tracegrade.dabench.reading._records import (
        AnswerTable,
        Phase,
        Step,
        TaskInput,
        TaskRecord,
        ToolCall,
        TraceFormat,
        Value,
    )
    from tracegrade.dabench.reading._runs import RunSummary, SummaryEntry, read_summary, read_task, resolve_run
    from tracegrade.dabench.reading._traces import RICH_FORMAT, ParsedTrace, parse_trace, read_trace
    from tracegrade.dabench.report._build import DabenchReport, FigureEntry, build_report
    from tracegrade.dabench.report._figures import FIGURES, FigureResult, draw_figures
    from tracegrade.dabench.report._html import render_report_html
    from tracegrade.dabench.report._paper import PaperTable, paper_tables, render_latex, render_markdown
    from tracegrade.dabench.report._summary import render_summary
    from tracegrade.dabench.report._terminal import render_report, render_sections
    from tracegrade.dabench.tables._docs import render_columns_doc
    from tracegrade.dabench.tables._evaluate import (
        EVAL_KIND,
        EvalOptions,
        EvalSummary,
        FinishHook,
        TaskSink,
        evaluate_run,
    )
    from tracegrade.dabench.tables._evaluated import RunRows, read_evaluated
    from tracegrade.dabench.tables._layout import TOOL_CALL_COLUMNS, TRAJECTORY_COLUMNS

_LAZY: dict[str, tuple[str, ...]] = {
    "analyses._ablation": ("ablation_sections",),
    "metrics._answer": ("AnswerScore", "KddMatch", "dataspace_check", "kdd_match", "kdd_score", "score_answer"),
    "analyses._auditor": ("AnalystTeam", "analyst_team", "format_auditor_report"),
    "report._build": ("DabenchReport", "FigureEntry", "build_report"),
    "reading._cells": ("answer_from_json", "normalise_cell", "read_answer_csv"),
    "metrics._columns": ("CATEGORIES", "TASK_COLUMNS", "Column"),
    "analyses._compare": ("Comparison", "compare_runs", "comparison_sections"),
    "tables._docs": ("render_columns_doc",),
    "tables._evaluate": ("EVAL_KIND", "EvalOptions", "EvalSummary", "FinishHook", "TaskSink", "evaluate_run"),
    "metrics._families": ("Family", "MetricContext", "MetricParams", "Out"),
    "report._figures": ("FIGURES", "FigureResult", "draw_figures"),
    "tables._evaluated": ("RunRows", "read_evaluated"),
    "analyses._health": ("EngineeringHealth", "assess_health", "format_health"),
    "report._html": ("render_report_html",),
    "analyses._mas": ("specialist_section",),
    "metrics._failure": ("ATTRIBUTION", "evaluation_bucket"),
    "reading._observe": ("TaskSignals", "observe"),
    "report._paper": ("PaperTable", "paper_tables", "render_latex", "render_markdown"),
    "_pipeline": ("PipelineOptions", "PipelineResult", "run_pipeline"),
    "analyses._reconcile": ("Reconciliation", "format_reconciliation", "reconcile", "table_facts"),
    "reading._records": ("AnswerTable", "Phase", "Step", "TaskInput", "TaskRecord", "ToolCall", "TraceFormat", "Value"),
    "metrics._registry": ("FAMILIES", "TaskMetrics", "column_family", "evaluate_task"),
    "analyses._replay": ("build_replay",),
    "analyses._replay_schema": ("TaskReplay", "replay_schema"),
    "report._summary": ("render_summary",),
    "reading._runs": ("RunSummary", "SummaryEntry", "read_summary", "read_task", "resolve_run"),
    "analyses._sections": ("Section",),
    "tables._layout": ("TOOL_CALL_COLUMNS", "TRAJECTORY_COLUMNS"),
    "report._terminal": ("render_report", "render_sections"),
    "reading._traces": ("RICH_FORMAT", "ParsedTrace", "parse_trace", "read_trace"),
}
"""Private module of each public name; a name is imported when first used (fast start-up)."""

__all__ = [
    "ATTRIBUTION",
    "CATEGORIES",
    "EVAL_KIND",
    "FAMILIES",
    "FIGURES",
    "RICH_FORMAT",
    "TASK_COLUMNS",
    "TOOL_CALL_COLUMNS",
    "TRAJECTORY_COLUMNS",
    "AnalystTeam",
    "AnswerScore",
    "AnswerTable",
    "Column",
    "Comparison",
    "DabenchReport",
    "EngineeringHealth",
    "EvalOptions",
    "EvalSummary",
    "Family",
    "FigureEntry",
    "FigureResult",
    "FinishHook",
    "KddMatch",
    "MetricContext",
    "MetricParams",
    "Out",
    "PaperTable",
    "ParsedTrace",
    "Phase",
    "PipelineOptions",
    "PipelineResult",
    "Reconciliation",
    "RunRows",
    "RunSummary",
    "Section",
    "Step",
    "SummaryEntry",
    "TaskInput",
    "TaskMetrics",
    "TaskRecord",
    "TaskReplay",
    "TaskSignals",
    "TaskSink",
    "ToolCall",
    "TraceFormat",
    "Value",
    "ablation_sections",
    "analyst_team",
    "answer_from_json",
    "assess_health",
    "build_replay",
    "build_report",
    "column_family",
    "compare_runs",
    "comparison_sections",
    "dataspace_check",
    "draw_figures",
    "evaluate_run",
    "evaluate_task",
    "evaluation_bucket",
    "format_auditor_report",
    "format_health",
    "format_reconciliation",
    "kdd_match",
    "kdd_score",
    "normalise_cell",
    "observe",
    "paper_tables",
    "parse_trace",
    "read_answer_csv",
    "read_evaluated",
    "read_summary",
    "read_task",
    "read_trace",
    "reconcile",
    "render_columns_doc",
    "render_latex",
    "render_markdown",
    "render_report",
    "render_report_html",
    "render_sections",
    "render_summary",
    "replay_schema",
    "resolve_run",
    "run_pipeline",
    "score_answer",
    "specialist_section",
    "table_facts",
]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
