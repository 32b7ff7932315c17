"""DataAgent-Bench eval-v2: run readers, answer scoring, every metric family, the run tables.

Read a run (``summary.json`` + ``task_<id>/trace.json`` + ``prediction.csv``) and a dataset
(``input/task_<id>/task.json``, ``output/task_<id>/gold.csv``), normalise every trace variant into one
:class:`TaskRecord`, score the answer (KDD Cup Phase-1 column signatures, DataSpace task accuracy,
cell/column/row P/R/F1) and run the registered metric :data:`FAMILIES`; :func:`evaluate_run` writes
``task_metrics``, ``trajectory``, ``tool_calls`` and ``comprehensive_evaluation`` (CSV + Parquet).
"""

from tracegrade.dabench._answer import AnswerScore, KddMatch, dataspace_check, kdd_match, kdd_score, score_answer
from tracegrade.dabench._cells import answer_from_json, normalise_cell, read_answer_csv
from tracegrade.dabench._columns import CATEGORIES, TASK_COLUMNS, Column
from tracegrade.dabench._docs import render_columns_doc
from tracegrade.dabench._evaluate import EVAL_KIND, EvalOptions, EvalSummary, TaskSink, evaluate_run
from tracegrade.dabench._family import Family, MetricContext, MetricParams, Out
from tracegrade.dabench._metrics_failure import ATTRIBUTION, evaluation_bucket
from tracegrade.dabench._records import AnswerTable, Phase, Step, TaskInput, TaskRecord, ToolCall, TraceFormat, Value
from tracegrade.dabench._registry import FAMILIES, TaskMetrics, column_family, evaluate_task
from tracegrade.dabench._report import render_summary
from tracegrade.dabench._runs import RunSummary, SummaryEntry, read_summary, read_task, resolve_run
from tracegrade.dabench._tables import TOOL_CALL_COLUMNS, TRAJECTORY_COLUMNS
from tracegrade.dabench._traces import RICH_FORMAT, ParsedTrace, parse_trace, read_trace

__all__ = [
    "ATTRIBUTION",
    "CATEGORIES",
    "EVAL_KIND",
    "FAMILIES",
    "RICH_FORMAT",
    "TASK_COLUMNS",
    "TOOL_CALL_COLUMNS",
    "TRAJECTORY_COLUMNS",
    "AnswerScore",
    "AnswerTable",
    "Column",
    "EvalOptions",
    "EvalSummary",
    "Family",
    "KddMatch",
    "MetricContext",
    "MetricParams",
    "Out",
    "ParsedTrace",
    "Phase",
    "RunSummary",
    "Step",
    "SummaryEntry",
    "TaskInput",
    "TaskMetrics",
    "TaskRecord",
    "TaskSink",
    "ToolCall",
    "TraceFormat",
    "Value",
    "answer_from_json",
    "column_family",
    "dataspace_check",
    "evaluate_run",
    "evaluate_task",
    "evaluation_bucket",
    "kdd_match",
    "kdd_score",
    "normalise_cell",
    "parse_trace",
    "read_answer_csv",
    "read_summary",
    "read_task",
    "read_trace",
    "render_columns_doc",
    "render_summary",
    "resolve_run",
    "score_answer",
]
