"""The rich report stays readable at 80 and 160 columns; a section without data says so in one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tracegrade.dabench import DabenchReport, RunRows, ablation_sections, render_report, render_sections
from tracegrade.dabench.analyses._auditor import analyst_team, analyst_team_section
from tracegrade.dabench.analyses._mas import (
    aat_section,
    coordinator_section,
    failure_sections,
    mas_effectiveness_section,
    specialist_section,
    verification_timeline_section,
)
from tracegrade.dabench.analyses._reconcile import TableFacts, reconcile
from tracegrade.dabench.analyses._research import correlation_section
from tracegrade.dabench.analyses._sections import Section
from tracegrade.dabench.analyses._timing import phase_timing_section


@pytest.fixture(scope="module")
def report(example_report: dict[str, Any]) -> DabenchReport:
    return DabenchReport.model_validate(example_report)


def capture(renderable: object, width: int) -> str:
    console = Console(width=width, record=True, force_terminal=False, color_system=None)
    with console.capture() as captured:
        console.print(renderable)
    return captured.get()


@pytest.mark.parametrize("width", [80, 160])
def test_no_line_is_wider_than_the_terminal_and_every_section_shows(report: DabenchReport, width: int) -> None:
    text = capture(render_report(report, width=width), width)
    assert max(len(line) for line in text.splitlines()) <= width
    for section in report.sections:
        assert section.title in text, section.title
    assert "10.0/10 HEALTHY" in text and "DEGRADED 66.7% accuracy" in text


def test_numbers_keep_their_columns_at_80(report: DabenchReport) -> None:
    text = capture(render_report(report, width=80), 80)
    assert "task_3     medium   ✗      0.000   failed    600.0s" in text
    assert "0.667 ± 0.577" in text and "[0.000, 1.000]" in text
    assert "3,167 ± 1,607" in text  # large means lose decimals instead of being cut


def test_wide_terminal_shows_the_columns_a_narrow_one_hides(report: DabenchReport) -> None:
    assert "Hidden to fit 80 columns: Tokens" in capture(render_report(report, width=80), 80)
    assert "Hidden to fit" not in capture(render_report(report, width=160), 160)


def test_a_section_without_data_is_one_line_not_zeros() -> None:
    run = RunRows("plain", Path("plain"), ({"task_id": "t1", "final_score": 1.0},))
    text = capture(render_sections([coordinator_section(run), mas_effectiveness_section(run)], 80), 80)
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    assert lines == [
        "Coordinator intervention effectiveness: no coordinator data in these traces",
        "MAS effectiveness: no first-attempt answers with gold: recovery unknown",
    ]


def test_every_empty_section_fits_one_line_at_80_columns() -> None:
    run = RunRows("bare", Path("bare"), ({"task_id": "t1"},))
    sections = [
        *failure_sections(run),
        mas_effectiveness_section(run),
        coordinator_section(run),
        specialist_section(run),
        aat_section(run),
        verification_timeline_section(run),
        phase_timing_section(run, reconcile(run.rows, TableFacts())),
        analyst_team_section(analyst_team(run, {})),
        correlation_section(run),
        *ablation_sections(run),
    ]
    for section in sections:
        assert section.empty is not None, section.id
        assert len(f"{section.title}: {section.empty}") <= 80, section.id


def test_empty_marker_wins_over_rows() -> None:
    section = Section(id="x", title="X", empty="nothing here")
    assert capture(render_sections([section], 80), 80).strip() == "X: nothing here"


def test_text_from_the_run_reaches_the_terminal_with_control_characters_escaped(report: DabenchReport) -> None:
    hostile = report.model_copy(update={"run_id": "run\x1b[2J[red]x[/red]"})
    section = Section(id="s", title="T\x1b[1m", columns=[], notes=["note \x1b]0;t\x07"], empty="empty \x1b[5m")
    text = capture(render_report(hostile, width=100, footer=["wrote \x1b[H"]), 100)
    text += capture(render_sections([section], 100), 100)
    assert "\x1b" not in text and "\x07" not in text
    assert "run\\x1b[2J[red]x[/red]" in text and "wrote \\x1b[H" in text and "T\\x1b[1m: empty \\x1b[5m" in text
