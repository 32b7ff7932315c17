"""The report of ``dabench eval-v2``: every section of the chosen mode, in the seed's order."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from tracegrade.dabench.analyses._ablation import ablation_sections
from tracegrade.dabench.analyses._auditor import AnalystTeam, analyst_team_section
from tracegrade.dabench.analyses._health import EngineeringHealth
from tracegrade.dabench.analyses._mas import (
    aat_section,
    coordinator_section,
    failure_sections,
    mas_effectiveness_section,
    specialist_section,
    verification_timeline_section,
)
from tracegrade.dabench.analyses._overview import difficulty_section, health_sections, overall_section, per_task_section
from tracegrade.dabench.analyses._params import Mode, Resampling
from tracegrade.dabench.analyses._reconcile import Reconciliation
from tracegrade.dabench.analyses._research import correlation_section, metric_statistics_section
from tracegrade.dabench.analyses._sections import Section, column
from tracegrade.dabench.analyses._timing import phase_timing_section
from tracegrade.dabench.tables._evaluated import RunRows

__all__ = ["REPORT_FORMAT", "STANDARD_TASK_ROWS", "DabenchReport", "FigureEntry", "build_report"]

REPORT_FORMAT = "tracegrade.dabench.report/1"
STANDARD_TASK_ROWS = 50


class FigureEntry(BaseModel):
    """A figure of the report: the PNG file, or why it was skipped."""

    name: str
    title: str
    file: str | None = None
    skipped: str | None = None


class DabenchReport(BaseModel):
    """Everything the terminal, JSON and HTML reports show."""

    format: str = REPORT_FORMAT
    run_id: str
    mode: Mode
    tasks: int
    harness_status: str
    harness_score: float
    run_quality_status: str
    sections: list[Section]
    figures: list[FigureEntry] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    """Files written into the output folder (relative names; per-task files summarised)."""


def reconciliation_section(rec: Reconciliation) -> Section:
    """The checks and their outcome counts (verbose)."""
    columns = [
        column("check", "Check", min_width=22),
        column("passed", "Passed", "int", min_width=6),
        column("error", "Errors", "int", min_width=6),
        column("warning", "Warnings", "int", min_width=8),
        column("info", "Info", "int", priority=1, min_width=4),
        column("skipped", "Skipped", "int", priority=2, min_width=7),
    ]
    rows: list[dict[str, object]] = [{"check": name, **counts} for name, counts in rec.by_check.items()]
    note = "Coordinator consistency checks are warnings, never failures; details in artifact_reconciliation_report.txt."
    return Section(id="reconciliation", title="Artifact reconciliation", mode=Mode.VERBOSE, columns=columns, rows=rows,
                   notes=[note])


def build_report(
    run: RunRows,
    health: EngineeringHealth,
    rec: Reconciliation,
    team: AnalystTeam,
    mode: Mode,
    *,
    resampling: Resampling | None = None,
    extra: Mapping[str, list[Section]] | None = None,
) -> DabenchReport:
    """The sections of ``mode`` (standard ⊂ verbose ⊂ research)."""
    mode = Mode(mode)
    limit = STANDARD_TASK_ROWS if mode is Mode.STANDARD else None
    sections = [
        *health_sections(health),
        per_task_section(run, limit),
        overall_section(run),
        difficulty_section(run),
        mas_effectiveness_section(run),
        coordinator_section(run),
        specialist_section(run),
        *failure_sections(run),
        aat_section(run),
        analyst_team_section(team),
        verification_timeline_section(run),
        phase_timing_section(run, rec),
        reconciliation_section(rec),
    ]
    if mode is Mode.RESEARCH:
        sections += [
            metric_statistics_section(run, resampling or Resampling()),
            correlation_section(run),
            *ablation_sections(run),
        ]
    for more in (extra or {}).values():
        sections += more
    return DabenchReport(
        run_id=run.run_id,
        mode=mode,
        tasks=len(run.rows),
        harness_status=health.harness.status,
        harness_score=health.harness.score,
        run_quality_status=health.quality.status,
        sections=[s for s in sections if s.shown_in(mode)],
    )
