"""Presentation of an agreement report: rows for the terminal table and the HTML page (``agreement.html``)."""

from __future__ import annotations

from typing import Any

from tracegrade.atif.agreement._records import AgreementReport, Estimate, LabelIssue, LevelAgreement
from tracegrade.render import MISSING, fmt_score, render_html

__all__ = ["agreement_rows", "issue_rows", "render_agreement"]


def agreement_rows(report: AgreementReport) -> list[dict[str, Any]]:
    """One row per measure: level, measure, n, value, interval and a note (null value → reason)."""
    rows: list[dict[str, Any]] = []
    for level, agreement in (("step", report.step), ("trajectory", report.trajectory)):
        rows.extend(_level_rows(level, agreement))
    for name, label in (("exact", "lowest=decisive"), ("within_1", "within ±1 step"), ("within_3", "within ±3 steps")):
        rows.append(_row("localise", label, getattr(report.localisation, name)))
    return rows


def _level_rows(level: str, agreement: LevelAgreement) -> list[dict[str, Any]]:
    rows = [
        _row(level, "Spearman rho", agreement.scores.spearman),
        _row(level, "Kendall tau-b", agreement.scores.kendall),
        _row(level, "pass/fail share", agreement.pass_fail.agreement),
        _row(level, "pass/fail kappa", agreement.pass_fail.kappa),
    ]
    if agreement.categories is not None:
        rows.append(_row(level, "category share", agreement.categories.agreement))
        rows.append(_row(level, "category kappa", agreement.categories.kappa))
    return rows


def _row(level: str, measure: str, estimate: Estimate) -> dict[str, Any]:
    interval = (
        MISSING
        if estimate.low is None or estimate.high is None
        else (f"{fmt_score(estimate.low)}–{fmt_score(estimate.high)}")
    )
    return {
        "level": level,
        "measure": measure,
        "n": estimate.n,
        "value": estimate.value,
        "interval": interval,
        "note": estimate.reason or ("" if estimate.p_value is None else f"p={estimate.p_value:.3g}"),
    }


def issue_rows(issues: list[LabelIssue]) -> list[dict[str, Any]]:
    """Unmatched or excluded labels as table rows."""
    return [{"line": i.line, "target": i.target, "reason": i.reason, "measure": i.measure or MISSING} for i in issues]


def render_agreement(report: AgreementReport, *, generated_at: str) -> str:
    """The self-contained HTML page of ``report`` (template ``atif_agreement.html``)."""
    return render_html(
        "atif_agreement.html",
        title="Judge agreement with human labels",
        subtitle=f"job {report.job_id} · labels {report.labels_file}",
        sections=[
            {"id": key, "label": label}
            for key, label in (
                ("measures", "Measures"),
                ("confusion", "Confusion matrices"),
                ("localisation", "Localisation"),
                ("unmatched", "Unmatched and excluded labels"),
            )
        ],
        generated_at=generated_at,
        report=report,
        rows=agreement_rows(report),
        matrices=_matrices(report),
        localisation_rows=[row.model_dump() for row in report.localisation.rows],
        unmatched=issue_rows(report.unmatched),
        excluded=issue_rows(report.excluded),
    )


def _matrices(report: AgreementReport) -> list[dict[str, Any]]:
    tables = [
        {
            "title": "Steps: pass/fail (rows: reviewers, columns: judge)",
            "labels": report.step.pass_fail.labels,
            "matrix": report.step.pass_fail.matrix,
        },
        {
            "title": "Trajectories: pass/fail (rows: reviewers, columns: judge)",
            "labels": report.trajectory.pass_fail.labels,
            "matrix": report.trajectory.pass_fail.matrix,
        },
    ]
    if report.step.categories is not None:
        tables.append(
            {
                "title": "Steps: failure category (rows: reviewers, columns: judge)",
                "labels": report.step.categories.labels,
                "matrix": report.step.categories.matrix,
            }
        )
    return tables
