from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.dabench.example import notes, rows
from tracegrade.dabench import RunRows
from tracegrade.dabench.analyses._reconcile import TableFacts, TaskFacts, reconcile
from tracegrade.dabench.analyses._timing import phase_timing_section


def test_phase_timing_of_the_example(example_report: dict[str, Any]) -> None:
    table = {r["stage"]: r for r in rows(example_report, "phase-timing")}
    assert table["UNDERSTAND"]["total_time"] == 11.0 and table["UNDERSTAND"]["share"] == pytest.approx(11 / 37)
    assert table["VERIFY"]["tokens"] == pytest.approx(5500 / 3) and table["SUMMARIZE"]["calls"] == 1.0
    assert notes(example_report, "phase-timing") == [
        "Reconciliation: wall clock 655.5s, step durations 37.0s (5.6%); unaccounted overhead 618.5s "
        "(framework, I/O, queuing)."
    ]


DATA = (
    {"task_id": "t1", "understanding_time": 3.0, "understanding_calls": 1, "understanding_tokens": 100,
     "execution_stage_time": 1.0, "execution_calls": 2, "execution_time": 20.0},
    {"task_id": "t2", "understanding_time": 1.0, "understanding_calls": 1, "understanding_tokens": 300},
)


def test_stages_share_the_step_time_and_stages_without_calls_are_left_out() -> None:
    run = RunRows("r", Path("r"), DATA)
    section = phase_timing_section(run, reconcile(run.rows, TableFacts()))
    assert section.rows == [
        {"stage": "UNDERSTAND", "mean_time": 2.0, "share": 0.8, "calls": 1.0, "tokens": 200.0, "total_time": 4.0},
        {"stage": "EXECUTE", "mean_time": 1.0, "share": 0.2, "calls": 2.0, "tokens": None, "total_time": 1.0},
    ]
    assert section.notes == [
        "No per-step durations in these traces: time columns are empty and the wall clock is not reconciled."
    ]


def test_the_note_reconciles_wall_clock_with_the_step_durations() -> None:
    run = RunRows("r", Path("r"), DATA)
    rec = reconcile(run.rows, TableFacts(tasks={"t1": TaskFacts(seconds=4.0)}))
    (note,) = phase_timing_section(run, rec).notes
    assert note == (
        "Reconciliation: wall clock 20.0s, step durations 4.0s (20.0%); unaccounted overhead 16.0s "
        "(framework, I/O, queuing)."
    )


def test_without_calls_there_is_no_phase_timing() -> None:
    run = RunRows("r", Path("r"), ({"task_id": "t1", "understanding_time": 2.0},))
    assert phase_timing_section(run, reconcile(run.rows, TableFacts())).empty == (
        "no steps in these traces: no phase timing"
    )
