from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.dabench.example import raw, rows
from tracegrade.dabench import RunRows, specialist_section
from tracegrade.dabench.analyses._mas import (
    NO_COORDINATOR,
    aat_section,
    coordinator_section,
    failure_sections,
    mas_effectiveness_section,
    verification_timeline_section,
)


def test_mas_coordinator_and_specialists(example_report: dict[str, Any]) -> None:
    mas = raw(example_report, "mas-effectiveness")
    assert mas == {
        "Tasks with both answers": 2,
        "First attempt accuracy": 0.5,
        "Final accuracy": 1.0,
        "Recovered tasks": 1,
        "Lost after first attempt": 0,
        "MAS recovery gain": 0.5,
    }
    assert rows(example_report, "coordinator") == [
        {"kind": "Replans", "tasks": 2, "requests": 2, "successful": 1, "rate": 0.5},
        {"kind": "Retries", "tasks": 1, "requests": 1, "successful": 1, "rate": 1.0},
    ]
    specialists = {
        r["agent"]: (r["used"], r["with"], r["without"], r["impact"]) for r in rows(example_report, "specialists")
    }
    assert specialists["Schema"] == (3, pytest.approx(2 / 3), None, None)
    assert specialists["Domain"] == (1, 1.0, 0.5, 0.5) and specialists["Document"] == (1, 1.0, 0.5, 0.5)


def test_failure_analysis_aat_and_timeline(example_report: dict[str, Any]) -> None:
    report = example_report
    assert rows(report, "failure-categories") == [{"name": "TOOL_EXECUTION_FAILURE", "tasks": 1, "share": 1.0}]
    assert rows(report, "failure-stages") == [{"name": "EXECUTE", "tasks": 1, "share": 1.0}]
    assert rows(report, "outcome-errors") == [{"name": "missing_prediction", "tasks": 1, "share": 1.0}]
    aat = raw(report, "aat")
    assert aat["Final decision APPROVE_FINAL"] == 2 and aat["Final decision REPLAN"] == 1
    assert aat["Mean coordinator calls"] == 3.0 and aat["Mean specialist participation"] == pytest.approx(5 / 9)
    assert aat["AAT verification passed"] == pytest.approx(2 / 3) and aat["Critic verification passed"] == 1.0
    assert aat["Critic verification triggered"] == pytest.approx(1 / 3)
    assert rows(report, "verification-timeline") == [
        {"approval": "Approved", "correct": 2, "incorrect": 0, "unknown": 0, "total": 2},
        {"approval": "Not approved", "correct": 0, "incorrect": 1, "unknown": 0, "total": 1},
    ]


def run(*data: dict[str, Any]) -> RunRows:
    return RunRows("r", Path("r"), data)


def test_recovery_counts_tasks_that_turned_right_and_tasks_that_turned_wrong() -> None:
    pairs = [(0, 1), (1, 1), (1, 0), (0, 0), (None, 1)]
    data = ({"initial_answer_correct": a, "final_answer_correct": b} for a, b in pairs)
    section = mas_effectiveness_section(run(*data))
    by = {r["measure"]: (r["value"], r["raw"]) for r in section.rows}
    assert by["Tasks with both answers"] == ("4", 4)  # the task without a first answer is left out
    assert by["First attempt accuracy"] == ("50.0%", 0.5) and by["Final accuracy"] == ("50.0%", 0.5)
    assert by["Recovered tasks"] == ("1", 1) and by["Lost after first attempt"] == ("1", 1)
    assert by["MAS recovery gain"] == ("+0.0 pp", 0.0)


def test_specialist_impact_is_accuracy_with_minus_without() -> None:
    data = [
        {"schema_agent_used": 1, "final_answer_correct": 1},
        {"schema_agent_used": 1, "final_answer_correct": 0},
        {"schema_agent_used": 0, "final_answer_correct": 1},
    ]
    section = specialist_section(run(*data))
    assert section.rows == [{"agent": "Schema", "used": 2, "with": 0.5, "without": 1.0, "impact": -0.5}]
    assert specialist_section(run({"task_id": "t"})).empty == "no specialist data in these traces"


def test_failures_are_counted_over_failed_and_partial_tasks_most_common_first() -> None:
    data = [
        {"outcome_status": "failed", "failure_category": "A", "root_cause": "x"},
        {"outcome_status": "partial", "failure_category": "B"},
        {"outcome_status": "failed", "failure_category": "B"},
        {"outcome_status": "failed", "failure_category": None},
        {"outcome_status": "correct", "failure_category": "C"},
    ]
    categories, stages, errors = failure_sections(run(*data))
    assert categories.rows == [
        {"name": "B", "tasks": 2, "share": pytest.approx(2 / 3)},
        {"name": "A", "tasks": 1, "share": pytest.approx(1 / 3)},
    ]
    assert stages.empty == errors.empty == "no failed tasks"
    assert failure_sections(run())[0].empty == "no tasks in this run"


def test_timeline_splits_approval_from_correctness() -> None:
    data = [
        {"coordinator_final_decision": "approve_final", "final_answer_correct": 0},
        {"coordinator_final_decision": "APPROVE_FINAL", "final_answer_correct": None},
        {"coordinator_final_decision": "REPLAN", "final_answer_correct": 1},
        {"final_answer_correct": 1},
    ]
    section = verification_timeline_section(run(*data))
    assert section.rows == [
        {"approval": "Approved", "correct": 0, "incorrect": 1, "unknown": 1, "total": 2},
        {"approval": "Not approved", "correct": 1, "incorrect": 0, "unknown": 0, "total": 1},
    ]


def test_aat_and_coordinator_sections_without_coordinator_data_say_so() -> None:
    bare = run({"task_id": "t1", "final_score": 1.0})
    assert aat_section(bare).empty == NO_COORDINATOR
    assert coordinator_section(bare).empty == NO_COORDINATOR
    assert verification_timeline_section(bare).empty == NO_COORDINATOR


def test_aat_rates_name_their_denominator() -> None:
    data = [{"aat_verification_passed": 1}, {"aat_verification_passed": 0}, {"aat_verification_passed": 1}, {}]
    (row,) = aat_section(run(*data)).rows
    assert (row["measure"], row["value"]) == ("AAT verification passed", "66.7% (2/3)")
    assert row["raw"] == pytest.approx(2 / 3)
