"""``dabench eval-v2`` end to end: tables, reconciliation, replay artifacts, health, reports — one pass.

Per-task files (``task_<id>/answer.csv`` now, ``task_<id>/task_replay.json`` once the run context is
known) are written while each record is in memory; everything else is read back from the written
tables before the manifest is written last. Nothing depends on the clock, so a rerun on the same
inputs rewrites the same bytes (the manifest's own ``finished_at`` aside).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from tracegrade._io import loads_written
from tracegrade.dabench._params import PipelineOptions
from tracegrade.dabench.analyses._auditor import AnalystTeam, analyst_team, format_auditor_report
from tracegrade.dabench.analyses._compare import RunComparison, compare_runs, comparison_sections
from tracegrade.dabench.analyses._health import EngineeringHealth, assess_health, format_health, health_line
from tracegrade.dabench.analyses._params import Mode
from tracegrade.dabench.analyses._reconcile import Reconciliation, format_reconciliation, reconcile, table_facts
from tracegrade.dabench.analyses._replay import answer_csv, build_replay, final_answer, finish_replay
from tracegrade.dabench.metrics._registry import TaskMetrics
from tracegrade.dabench.reading._observe import TaskSignals, observe
from tracegrade.dabench.reading._records import TaskRecord
from tracegrade.dabench.report._build import DabenchReport, FigureEntry, build_report
from tracegrade.dabench.report._figures import FigureResult, draw_figures
from tracegrade.dabench.report._html import render_report_html
from tracegrade.dabench.report._paper import paper_tables, render_latex, render_markdown
from tracegrade.dabench.tables._evaluate import EvalOptions, EvalSummary, evaluate_run
from tracegrade.dabench.tables._evaluated import RunRows, read_evaluated, read_table, run_rows
from tracegrade.runs import RunFolder

__all__ = ["PipelineResult", "run_pipeline"]


@dataclass
class PipelineResult:
    """The evaluation summary and everything reported about the run."""

    summary: EvalSummary
    report: DabenchReport | None = None
    health: EngineeringHealth | None = None
    reconciliation: Reconciliation | None = None
    team: AnalystTeam | None = None
    comparison: RunComparison | None = None


class _Pass:
    """State of one pass: per-task signals and replay bodies, then the run-level artifacts."""

    def __init__(self, options: PipelineOptions, baseline: RunRows | None) -> None:
        self.options = options
        self.baseline = baseline
        self.signals: dict[str, TaskSignals] = {}
        self.replays: dict[str, bytes] = {}
        self.parts: dict[str, Any] = {}

    def on_task(self, record: TaskRecord, metrics: TaskMetrics, folder: RunFolder) -> None:
        signals = observe(record)
        self.signals[record.task_id] = signals
        self.replays[record.task_id] = orjson.dumps(build_replay(record, metrics.values, signals))
        table, _ = final_answer(record)
        if table is not None:
            folder.write_bytes(f"{record.task_id}/answer.csv", answer_csv(table))

    def on_finish(self, folder: RunFolder, metadata: dict[str, Any]) -> None:
        rows = read_table(folder.path / "task_metrics.parquet")
        run = run_rows(str(metadata.get("run_id")), folder.path, rows, metadata)
        unusable = [(int(e.get("entry", -1)), str(e.get("message", ""))) for e in metadata.get("task_errors", [])
                    if e.get("code") == "invalid_summary_entry"]
        rec = reconcile(run.rows, table_facts(folder.path), metadata.get("named_files_missing"), unusable)
        health = assess_health(run.run_id, run.rows, rec, metadata, run.success_threshold)
        team = analyst_team(run, self.signals)
        self._write_replays(folder, health)
        folder.write_text("artifact_reconciliation_report.txt", format_reconciliation(rec, run.run_id))
        folder.write_json("artifact_reconciliation_report.json", rec.model_dump(mode="json"))
        folder.write_text("engineering_health_report.txt", format_health(health))
        folder.write_json("engineering_health_report.json", health.model_dump(mode="json"))
        folder.write_text("auditor_validation_report.md", format_auditor_report(run.run_id, team))
        comparison = self._compare(run)
        extra = {"comparison": comparison_sections(comparison)} if comparison is not None else None
        options = self.options
        report = build_report(run, health, rec, team, options.mode, resampling=options.resampling, extra=extra)
        figures = draw_figures(run) if options.figures else []
        report.figures = self._write_figures(folder, figures)
        if options.mode is Mode.RESEARCH:
            tables = paper_tables(run, comparison, resampling=options.resampling)
            line = health_line(health)
            folder.write_text("paper_tables.md", render_markdown(run.run_id, tables, line))
            folder.write_text("paper_tables.tex", render_latex(run.run_id, tables, line))
        report.files = sorted(n for n in folder.files if "/" not in n)
        if self.replays:
            report.files.append(f"task_<id>/task_replay.json and task_<id>/answer.csv ({len(self.replays)} tasks)")
        folder.write_json("report.json", report.model_dump(mode="json"))
        folder.write_text("report.html", render_report_html(report, figures))
        metadata["report"] = {
            "mode": options.mode.value,
            "harness_health": health.harness.status,
            "harness_score": health.harness.score,
            "run_quality": health.quality.status,
            "reconciliation_errors": rec.errors,
            "reconciliation_warnings": rec.warnings,
        }
        self.parts = {"report": report, "health": health, "reconciliation": rec, "team": team, "comparison": comparison}

    def _write_replays(self, folder: RunFolder, health: EngineeringHealth) -> None:
        context = {
            "harness_health_status": health.harness.status,
            "harness_health_score": health.harness.score,
            "run_quality_status": health.quality.status,
        }
        for task_id, body in self.replays.items():
            folder.write_json(f"{task_id}/task_replay.json", finish_replay(loads_written(body), context))

    def _compare(self, run: RunRows) -> RunComparison | None:
        if self.baseline is None:
            return None
        # the baseline's health is shown beside the comparison; the evaluation it ends is never refused for it
        return compare_runs(self.baseline, run, resampling=self.options.resampling, allow_unhealthy=True)

    def _write_figures(self, folder: RunFolder, figures: list[FigureResult]) -> list[FigureEntry]:
        entries = []
        for figure in figures:
            name = None
            if figure.png is not None and self.options.mode is Mode.RESEARCH:
                name = f"figures/{figure.name}.png"
                folder.write_bytes(name, figure.png)
            entries.append(FigureEntry(name=figure.name, title=figure.title, file=name, skipped=figure.skipped))
        return entries


def run_pipeline(
    options: EvalOptions,
    pipeline: PipelineOptions,
    *,
    advance: Callable[[int], None] | None = None,
) -> PipelineResult:
    """Evaluate a run and write every artifact of the seed's tree (atomically, manifest last).

    Raises:
        TracegradeError: unreadable run, unusable output folder, or an unusable baseline.
        KeyboardInterrupt: after the finished tasks and their reports were written (status ``interrupted``).
    """
    baseline = read_evaluated(pipeline.baseline, verify=True) if pipeline.baseline is not None else None
    state = _Pass(pipeline, baseline)
    summary = evaluate_run(options, advance=advance, on_task=state.on_task, on_finish=state.on_finish)
    return PipelineResult(summary, **state.parts)
