from __future__ import annotations

from pathlib import Path

from tracegrade.dabench import RunRows, draw_figures
from tracegrade.dabench.report._figures import FIGURES

PNG = b"\x89PNG\r\n\x1a\n"


def test_every_figure_is_a_png_when_there_is_data() -> None:
    rows = tuple(
        {
            "final_score": s,
            "autonomy_score": a,
            "tool_efficiency": e,
            "analyst_score": (a + e) / 2,
            "failure_category": None if s >= 0.8 else "REASONING_FAILURE",
            "outcome_status": "correct" if s >= 0.8 else "partial",
        }
        for s, a, e in [(1.0, 1.0, 0.9), (0.0, 0.5, 0.2), (0.4, 0.7, 0.5), (0.9, 0.9, 0.8)]
    )
    figures = draw_figures(RunRows("r", Path("r"), rows))
    assert [f.name for f in figures] == list(FIGURES)
    assert all(f.png is not None and f.png.startswith(PNG) and f.skipped is None for f in figures)


def test_figures_without_data_are_skipped_with_a_reason() -> None:
    figures = draw_figures(RunRows("r", Path("r"), ({"task_id": "t1", "final_score": None},)))
    assert [(f.png, f.skipped) for f in figures] == [
        (None, "no final_score (no gold answers)"),
        (None, "no failed task with a failure category"),
        (None, "no task with both autonomy_score and tool_efficiency"),
        (None, "fewer than two key metrics with 3 or more values"),
    ]
