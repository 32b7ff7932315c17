"""The rich terminal report: panels for the two health assessments, fitted tables for the rest.

Less important columns give way in a narrow terminal (the caption names them); a text cell too long
for its column wraps onto more lines, numbers never do. A section without data prints one line saying why. Every text
from the run passes through :func:`tracegrade.render.terminal_safe` (control characters escaped).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from tracegrade.dabench.analyses._sections import Section, SectionColumn
from tracegrade.dabench.report._build import DabenchReport
from tracegrade.dabench.report._cells import NUMERIC_KINDS, format_cell
from tracegrade.render import Column, fit_table, terminal_safe

__all__ = ["render_report", "render_sections"]

_STYLE = {"HEALTHY": "green", "GOOD": "green", "DEGRADED": "yellow", "UNHEALTHY": "red", "POOR": "red"}
_MARK = {"HEALTHY": "✓", "GOOD": "✓", "DEGRADED": "⚠", "UNKNOWN": "?"}


def _column(spec: SectionColumn) -> Column:
    numeric = spec.kind in NUMERIC_KINDS
    return Column(spec.label, spec.key, min_width=spec.min_width, priority=spec.priority,
                  justify="right" if numeric else "left", formatter=partial(format_cell, kind=spec.kind),
                  wrap=not numeric)


def _panel(section: Section, width: int) -> RenderableType:
    lines = Text()
    mark = _MARK.get(section.status or "", "✗")
    lines.append(terminal_safe(f"{mark} {section.headline}") + "\n", style=_STYLE.get(section.status or "", "bold"))
    label = max(len(str(r["measure"])) for r in section.rows) if section.rows else 0
    for row in section.rows:
        lines.append(terminal_safe(f"{str(row['measure']).ljust(label)}  {row['value']}") + "\n")
    lines.rstrip()
    title = Text(terminal_safe(section.title))
    return Panel(lines, title=title, title_align="left", width=min(width, 78), expand=False)


def _section(section: Section, width: int) -> RenderableType:
    if section.empty is not None:
        return Text(terminal_safe(f"{section.title}: {section.empty}"), style="dim")
    if section.panel:
        return _panel(section, width)
    keys = [c.key for c in section.columns]
    rows = [{k: row.get(k) for k in keys} for row in section.rows]
    table = fit_table(section.title, [_column(c) for c in section.columns], rows, width=width)
    # notes wrap at the terminal width, not the (possibly narrow) table's
    return Group(table, *(Text(terminal_safe(note), style="dim") for note in section.notes))


def render_sections(sections: Iterable[Section], width: int) -> RenderableType:
    """Sections one after another, each fitted to ``width`` columns."""
    return Group(*(part for section in sections for part in (_section(section, width), Text(""))))


def render_report(report: DabenchReport, *, width: int, footer: Iterable[str] = ()) -> RenderableType:
    """The whole report of one run."""
    title = f"DataAgent-Bench eval-v2: {report.run_id} ({report.tasks} tasks, {report.mode} mode)"
    rule = Rule(Text(terminal_safe(title), style="rule.text"), style="bold")
    lines: list[RenderableType] = [rule, render_sections(report.sections, width)]
    skipped = [f"{f.name}: {f.skipped}" for f in report.figures if f.skipped]
    if skipped:
        lines.append(Text(terminal_safe("Figures skipped: " + "; ".join(skipped)), style="dim"))
    lines.extend(Text(terminal_safe(line)) for line in footer)
    return Group(*lines)
