"""``eval-v2``: stream a run's tasks through the metric registry and write the tables atomically."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracegrade._io import ColumnBuffer
from tracegrade.dabench.metrics._params import MetricParams
from tracegrade.dabench.metrics._registry import TaskMetrics, evaluate_task, failed_task_metrics
from tracegrade.dabench.reading._params import RunLocation
from tracegrade.dabench.reading._records import TaskRecord
from tracegrade.dabench.reading._runs import RunTaskList, SummaryEntry, read_summary, read_task, resolve_run
from tracegrade.dabench.tables._layout import (
    COMPREHENSIVE_COLUMNS,
    TOOL_CALL_COLUMNS,
    TRAJECTORY_COLUMNS,
    task_metric_columns,
    tool_call_columns,
    trajectory_columns,
)
from tracegrade.dabench.tables._stale import remove_stale_tasks
from tracegrade.errors import TracegradeError
from tracegrade.runs import JobStatus, RunFolder, job_id_for, uninterrupted

__all__ = ["EVAL_KIND", "EvalOptions", "EvalSummary", "FinishHook", "TaskSink", "evaluate_run"]

EVAL_KIND = "dabench-eval-v2"


@dataclass(frozen=True, slots=True)
class EvalOptions:
    """Where the run and dataset are and where the tables go."""

    run: str
    runs_root: Path = RunLocation().runs_root
    data_root: Path | None = None
    output: Path | None = None
    """Folder for the tables (default: the run folder itself)."""
    params: MetricParams = field(default_factory=MetricParams)


@dataclass
class EvalSummary:
    """The evaluated run: its id, where the files went, its status and how many tasks (with errors) it has."""

    run_id: str
    output_dir: Path
    status: JobStatus
    tasks: int = 0
    task_errors: int = 0


class _Collector:
    """Buffers of the four tables plus the run metadata, filled one task at a time."""

    def __init__(self, summary: EvalSummary) -> None:
        self.tasks = ColumnBuffer(task_metric_columns())
        self.trajectory = ColumnBuffer(TRAJECTORY_COLUMNS)
        self.tool_calls = ColumnBuffer(TOOL_CALL_COLUMNS)
        self.null_pairs: Counter[tuple[str, str]] = Counter()
        """(column, reason) of every null cell (regrouped by column when the run is written)."""
        self.errors: list[dict[str, str | int]] = []
        self.formats: Counter[str] = Counter()
        self.missing: dict[str, list[str]] = defaultdict(list)
        """File kind (``trace``, ``prediction.csv``) → tasks whose summary.json entry names it but that lack it."""
        self.summary = summary

    def add(self, task_id: str, metrics: TaskMetrics, errors: list[tuple[str, str]]) -> None:
        self.tasks.add(tuple(metrics.values.values()))
        self.null_pairs.update(metrics.reasons.items())
        self.errors.extend({"task_id": task_id, "code": code, "message": msg} for code, msg in errors)
        self.formats[str(metrics.values.get("trace_format"))] += 1
        self.summary.tasks += 1
        self.summary.task_errors += bool(errors)


TaskSink = Callable[[TaskRecord, TaskMetrics, RunFolder], None]
"""Called once per evaluated task with its record, metrics and the output folder (per-task artifacts)."""
FinishHook = Callable[[RunFolder, dict[str, Any]], None]
"""Called after the tables are written and before the manifest, with the folder and the (mutable) metadata."""


def evaluate_run(
    options: EvalOptions,
    *,
    advance: Callable[[int], None] | None = None,
    on_task: TaskSink | None = None,
    on_finish: FinishHook | None = None,
) -> EvalSummary:
    """Evaluate every task of a run and write the tables; Ctrl-C writes what finished, then re-raises.

    Args:
        options: Run, dataset, output folder and metric parameters.
        advance: Progress callback, called with 1 after each task.
        on_task: Optional sink for per-task artifacts, called while the task's record is still in memory
            (tasks that could not be read at all are not passed).
        on_finish: Optional hook that writes more files into the folder (reports read back from the tables)
            before ``manifest.json`` is written last; it may add keys to the manifest metadata.

    Raises:
        TracegradeError: the run or its summary cannot be read, or the output folder is unusable.
        KeyboardInterrupt: after the finished tasks were written with status ``interrupted``.
    """
    run_dir = resolve_run(options.run, options.runs_root)
    summary = read_summary(run_dir)
    output = options.output or run_dir
    params = options.params
    job_id = job_id_for({"run": str(run_dir.resolve()), "params": params.model_dump()}, prefix="dabench")
    remove_stale_tasks(output, run_dir, {entry.task_id for entry in summary.entries}, EVAL_KIND)
    folder = RunFolder(output, kind=EVAL_KIND, job_id=job_id)
    result = EvalSummary(summary.run_id, output, JobStatus.COMPLETED)
    collector = _Collector(result)
    collector.errors.extend(
        {"task_id": "", "code": "invalid_summary_entry", "entry": i, "message": m} for i, m in summary.entry_errors
    )
    try:
        for entry in summary.entries:
            _evaluate_one(run_dir, summary.run_id, entry, options, collector, folder, on_task)
            if advance is not None:
                advance(1)
    except KeyboardInterrupt:
        result.status = JobStatus.INTERRUPTED
    _write(folder, collector, summary, run_dir, options, on_finish)
    if result.status is JobStatus.INTERRUPTED:
        raise KeyboardInterrupt
    return result


def _evaluate_one(run_dir: Path, run_id: str, entry: SummaryEntry, options: EvalOptions, collector: _Collector,
                  folder: RunFolder, on_task: TaskSink | None) -> None:
    try:
        record = read_task(run_dir, run_id, entry, options.data_root)
        metrics = evaluate_task(record, options.params)
    except Exception as exc:  # a bug must cost one task, not the run; the type name is safe to record
        if isinstance(exc, TracegradeError):
            code, message = exc.code, exc.message
        else:
            code, message = "internal_error", f"{entry.task_id}: internal error {type(exc).__name__}"
        with uninterrupted():
            collector.add(entry.task_id, failed_task_metrics(run_id, entry.task_id, code), [(code, message)])
        return
    trace_id = metrics.values.get("trace_id")
    trace_id = trace_id if isinstance(trace_id, str) else None
    steps, calls = trajectory_columns(record, trace_id), tool_call_columns(record, trace_id)
    missing = record.missing_artefacts  # an unreadable file is a task error, not a missing one
    with uninterrupted():  # the task's rows go into every table or none, with its files: Ctrl-C waits for them
        collector.trajectory.extend_columns(steps)
        collector.tool_calls.extend_columns(calls)
        collector.add(entry.task_id, metrics, list(record.errors))
        for kind in missing:
            collector.missing[kind].append(entry.task_id)
        if on_task is not None:  # a task in the tables has its own files too
            on_task(record, metrics, folder)


def _write(folder: RunFolder, collector: _Collector, summary: RunTaskList, run_dir: Path, options: EvalOptions,
           on_finish: FinishHook | None) -> None:
    result = collector.summary
    rows = {"task_metrics": len(collector.tasks), "trajectory": len(collector.trajectory),
            "tool_calls": len(collector.tool_calls)}
    _write_table(folder, "task_metrics", collector.tasks)
    _write_table(folder, "comprehensive_evaluation", collector.tasks.select(COMPREHENSIVE_COLUMNS))
    _write_table(folder, "trajectory", collector.trajectory)
    _write_table(folder, "tool_calls", collector.tool_calls)
    metadata = {
        "run_id": summary.run_id,
        "run_folder": str(run_dir),
        "data_root": str(options.data_root) if options.data_root else None,
        "parameters": options.params.model_dump(),
        "task_count": result.tasks,
        "has_summary_json": summary.has_summary,
        "tasks_not_in_summary": list(summary.unlisted_tasks),
        "trace_formats": dict(sorted(collector.formats.items())),
        "null_reasons": _by_column(collector.null_pairs),
        "task_errors": collector.errors,
        "rows": rows,
    }
    if collector.missing:  # absent when every file summary.json names is there
        metadata["named_files_missing"] = dict(sorted(collector.missing.items()))
    if on_finish is not None:
        on_finish(folder, metadata)
    folder.finish(result.status, metadata, stamp=False)  # reruns on the same inputs reproduce every file


def _by_column(pairs: Counter[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """The null reasons as column → {reason: tasks}, both levels sorted."""
    grouped: dict[str, dict[str, int]] = defaultdict(dict)
    for (column, reason), count in sorted(pairs.items()):
        grouped[column][reason] = count
    return dict(grouped)


def _write_table(folder: RunFolder, name: str, table: ColumnBuffer) -> None:
    folder.write_chunks(f"{name}.csv", table.csv_chunks())
    folder.write_bytes(f"{name}.parquet", table.parquet_bytes())
