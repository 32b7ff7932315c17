"""Presentation of an agreement report: rows for the terminal table and the HTML page (``agreement.html``)."""

from __future__ import annotations

from typing import Any

from tracegrade.atif.agreement._records import (
    AgreementReport,
    CategoryAgreement,
    Estimate,
    LabelIssue,
    LevelAgreement,
    PassFailAgreement,
)
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
        _row(level, "pass/fail kappa", agreement.pass_fail.kappa,
             _kappa_note(agreement.pass_fail.matrix, agreement.pass_fail.labels)),
    ]
    if agreement.categories is not None:
        categories = agreement.categories
        rows.append(_row(level, "category share", categories.agreement))
        rows.append(_row(level, "category kappa", categories.kappa, _kappa_note(categories.matrix, categories.labels)))
    return rows


ONE_SIDED = "one answer, "
"""Starts the note of a kappa whose judge or labels gave a single answer: 0 by construction."""
KAPPA_NOTE = ("A kappa noted \"one answer\" is 0 by construction: when the judge (or every label) gives the same "
              "answer, agreement beyond chance cannot be measured; read the share and the matrix instead.")


def _kappa_note(matrix: list[list[int]], labels: list[str]) -> str | None:
    """Why a kappa is what it is when one side gave a single answer (kappa is then 0 whatever the other says)."""
    judge = [label for label, count in zip(labels, map(sum, zip(*matrix, strict=True)), strict=True) if count]
    human = [label for label, row in zip(labels, matrix, strict=True) if sum(row)]
    if len(judge) == 1:
        return f"{ONE_SIDED}judge: all {judge[0]}"
    if len(human) == 1:
        return f"{ONE_SIDED}labels: all {human[0]}"
    return None


def _row(level: str, measure: str, estimate: Estimate, note: str | None = None) -> dict[str, Any]:
    interval = (MISSING if estimate.low is None or estimate.high is None
                else f"{fmt_score(estimate.low)}–{fmt_score(estimate.high)}")
    return {"level": level, "measure": measure, "n": estimate.n, "value": estimate.value, "interval": interval,
            "note": estimate.reason or note or ("" if estimate.p_value is None else f"p={estimate.p_value:.3g}")}


def kappa_note(rows: list[dict[str, Any]]) -> str | None:
    """The explanation of one-sided kappas when a row has one, else None."""
    return KAPPA_NOTE if any(str(row["note"]).startswith(ONE_SIDED) for row in rows) else None


def issue_rows(issues: list[LabelIssue]) -> list[dict[str, Any]]:
    """Unmatched or excluded labels as table rows."""
    return [{"line": i.line, "target": i.target, "reason": i.reason, "measure": i.measure or MISSING} for i in issues]


def render_agreement(report: AgreementReport, *, generated_at: str) -> str:
    """The self-contained HTML page of ``report`` (template ``atif_agreement.html``)."""
    rows = agreement_rows(report)
    return render_html(
        "atif_agreement.html",
        title="Judge agreement with human labels",
        subtitle=f"job {report.job_id} · labels {report.labels_file}",
        sections=[{"id": key, "label": label} for key, label in (
            ("measures", "Measures"), ("confusion", "Confusion matrices"), ("localisation", "Localisation"),
            ("unmatched", "Unmatched and excluded labels"))],
        generated_at=generated_at,
        report=report,
        rows=rows,
        kappa_note=kappa_note(rows),
        matrices=_matrices(report),
        localisation_rows=[row.model_dump() for row in report.localisation.rows],
        unmatched=issue_rows(report.unmatched),
        excluded=issue_rows(report.excluded),
    )


def _matrices(report: AgreementReport) -> list[dict[str, Any]]:
    tables: list[tuple[str, PassFailAgreement | CategoryAgreement]] = [
        ("Steps: pass/fail", report.step.pass_fail), ("Trajectories: pass/fail", report.trajectory.pass_fail)]
    if report.step.categories is not None:
        tables.append(("Steps: failure category", report.step.categories))
    return [{"title": f"{title} (rows: reviewers, columns: judge)", "labels": table.labels, "matrix": table.matrix}
            for title, table in tables]
