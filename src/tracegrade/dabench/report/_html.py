"""The self-contained ``report.html``: the report's sections on the shared layout, figures embedded."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from tracegrade.dabench.analyses._sections import Cell, Section, SectionColumn
from tracegrade.dabench.report._build import DabenchReport
from tracegrade.dabench.report._cells import NUMERIC_KINDS, format_cell, sort_key
from tracegrade.dabench.report._figures import FigureResult

__all__ = ["render_report_html"]

_KIND = {"HEALTHY": "good", "GOOD": "good", "DEGRADED": "warn", "UNHEALTHY": "bad", "POOR": "bad"}


def _table(section: Section) -> dict[str, Any]:
    return {
        "id": section.id,
        "title": section.title,
        "empty": section.empty,
        "notes": section.notes,
        "headline": section.headline,
        "kind": _KIND.get(section.status or "", "neutral"),
        "panel": section.panel,
        "columns": [{"label": c.label, "numeric": c.kind in NUMERIC_KINDS} for c in section.columns],
        "rows": [[_cell(row, c) for c in section.columns] for row in section.rows],
    }


def _cell(row: dict[str, Cell], c: SectionColumn) -> dict[str, Any]:
    raw = row["raw"] if c.key == "value" and "raw" in row else row.get(c.key)
    return {"text": format_cell(row.get(c.key), c.kind), "sort": sort_key(raw), "numeric": c.kind in NUMERIC_KINDS}


def render_report_html(report: DabenchReport, figures: Sequence[FigureResult]) -> str:
    """The report page (no external assets; figures are PNG data URIs)."""
    from tracegrade.render import render_html

    drawn = [
        {"name": f.name, "title": f.title, "src": "data:image/png;base64," + base64.b64encode(f.png).decode()}
        for f in figures
        if f.png is not None
    ]
    skipped = [{"title": f.title, "reason": f.skipped} for f in figures if f.png is None]
    sections = [_table(s) for s in report.sections]
    nav = [{"id": s["id"], "label": s["title"]} for s in sections] + [{"id": "figures", "label": "Figures"}]
    return render_html(
        "dabench_report.html",
        title=f"DataAgent-Bench eval-v2: {report.run_id}",
        subtitle=f"{report.tasks} tasks · {report.mode} mode · harness {report.harness_score:.1f}/10 "
        f"{report.harness_status} · run quality {report.run_quality_status}",
        sections=nav,
        report_sections=sections,
        figures=drawn,
        skipped_figures=skipped,
    )
