from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracegrade.dabench import RunRows, draw_figures

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
    assert [f.name for f in figures] == ["score_distribution", "failure_distribution", "autonomy_vs_efficiency",
                                        "correlation_matrix"]
    assert all(f.png is not None and f.png.startswith(PNG) and f.skipped is None for f in figures)


def test_figures_without_data_are_skipped_with_a_reason() -> None:
    figures = draw_figures(RunRows("r", Path("r"), ({"task_id": "t1", "final_score": None},)))
    assert [(f.png, f.skipped) for f in figures] == [
        (None, "no final_score (no gold answers)"),
        (None, "no failed task with a failure category"),
        (None, "no task with both autonomy_score and tool_efficiency"),
        (None, "fewer than two key metrics with 3 or more values"),
    ]


def test_figure_labels_use_the_table_names_and_counts_read_as_words(monkeypatch: pytest.MonkeyPatch) -> None:
    import tracegrade.render

    drawn: list[Any] = []
    monkeypatch.setattr(tracegrade.render, "figure_png", lambda fig: drawn.append(fig) or PNG)
    rows = tuple({"final_score": s, "autonomy_score": a, "tool_efficiency": e, "outcome_status": o,
                  "failure_category": c} for s, a, e, o, c in [
        (0.0, 0.9, 0.9, "failed", "TOOL_EXECUTION_FAILURE"), (1.0, 0.1, 0.2, "correct", None),
        (0.5, 0.5, 0.5, "correct", None)])
    draw_figures(RunRows("r", Path("r"), rows))
    scores, failures, autonomy, correlation = (fig.axes[0] for fig in drawn)
    assert failures.get_title() == "Failure distribution: 1 task failed or partial"
    assert [label.get_text() for label in failures.get_xticklabels()] == ["TOOL_EXECUTION_FAILURE"]
    assert scores.get_title() == "Score distribution: 3 tasks" and autonomy.get_title().endswith(": 3 tasks")
    for text in correlation.texts:  # white on the dark ends of the colour map, black in between
        assert text.get_color() == ("white" if abs(float(text.get_text())) >= 0.6 else "black")
    assert {"white"} <= {text.get_color() for text in correlation.texts}


def test_the_failure_figure_names_the_missing_artefacts_it_leaves_out() -> None:
    rows = ({"task_id": "t1", "final_score": 0.0, "outcome_status": "failed", "failure_category": "REASONING_FAILURE"},
            {"task_id": "t2", "final_score": 0.0, "outcome_status": "missing_artefact",
             "failure_category": "HARNESS_INPUT_FAILURE"})
    failures = next(f for f in draw_figures(RunRows("r", Path("r"), rows)) if f.name == "failure_distribution")
    assert failures.title == "Failure distribution (1 missing artefact left out)" and failures.png is not None
