from __future__ import annotations

import pytest

from tests.dabench.builders import metrics, reasons, record, rich_step, rich_trace, tool_step


def test_recovery_after_failed_steps() -> None:
    steps = [
        tool_step(1, "read_csv", ok=False),
        tool_step(2, "read_csv", {"path": "a.csv"}),
        tool_step(3, "execute_python", ok=False),
        tool_step(4, "answer", {"status": "submitted"}),
    ]
    values = metrics(record({"steps": steps}))
    assert values["failure_detected"] == 1
    assert values["failure_stage"] == "UNDERSTAND"
    assert values["recovery_success"] == 1 and values["recovery_depth"] == 2
    assert values["recovery_success_rate"] == 0.5  # read_csv succeeded later, execute_python never did


def test_no_failure_leaves_recovery_null_with_reason() -> None:
    rec = record({"steps": [tool_step(1, "list_context")]})
    values = metrics(rec)
    assert values["failure_detected"] == 0 and values["recovery_success"] is None
    assert reasons(rec)["recovery_success"] == "no failure to recover from"


def test_failure_payload_knows_the_failure_but_not_the_steps() -> None:
    document = {"steps": [], "failure_reason": "Task timed out after 600 seconds.", "succeeded": False}
    rec = record(document, succeeded=False)
    values = metrics(rec)
    assert values["failure_detected"] == 1 and values["recovery_success"] == 0
    assert values["trajectory_length"] is None and values["llm_calls"] is None
    assert "no steps" in reasons(rec)["trajectory_length"]


def test_trajectory_pattern_marks_replan_and_retry() -> None:
    phases = ["UNDERSTAND", "PLAN", "EXECUTE", "VERIFY", "PLAN", "EXECUTE", "VERIFY", "SUMMARIZE"]
    steps = [rich_step(i, "agent", p, f"a{i}") for i, p in enumerate(phases, 1)]
    assert metrics(record(rich_trace(steps)))["trajectory_summary"] == (
        "UNDERSTAND→PLAN→EXECUTE→VERIFY→REPLAN→RETRY→VERIFY→SUMMARIZE"
    )


def test_branching_and_depth_from_parent_links() -> None:
    parents = [None, 1, 1, 1, 2, 5]
    steps = [rich_step(i, "agent", "EXECUTE", f"a{i}", parent_step_id=p) for i, p in enumerate(parents, 1)]
    values = metrics(record(rich_trace(steps)))
    assert values["branching_factor"] == pytest.approx((3 + 1 + 1) / 3)
    assert values["max_execution_depth"] == 3


def test_branching_from_the_plan_dag_and_null_for_flat_traces() -> None:
    plan = {
        "ok": True,
        "content": {
            "dag": {
                "nodes": [
                    {"id": "a", "depends_on": []},
                    {"id": "b", "depends_on": ["a"]},
                    {"id": "c", "depends_on": ["a"]},
                ]
            }
        },
    }
    dag = metrics(record({"steps": [{"step_index": 1, "action": "__plan__", "observation": plan}]}))
    assert (dag["branching_factor"], dag["max_execution_depth"]) == (2.0, 1)
    flat = record({"steps": [tool_step(1, "list_context")]})
    assert metrics(flat)["branching_factor"] is None
    assert "no step hierarchy" in reasons(flat)["branching_factor"]


def test_trajectory_efficiency_excludes_failed_and_repeated_steps() -> None:
    steps = [
        tool_step(1, "read_csv", args={"p": 1}),
        tool_step(2, "read_csv", args={"p": 1}),
        tool_step(3, "execute_python", ok=False),
        tool_step(4, "answer"),
    ]
    assert metrics(record({"steps": steps}))["trajectory_efficiency"] == 0.5
