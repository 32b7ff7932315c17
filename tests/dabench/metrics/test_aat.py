from __future__ import annotations

import pytest

from tests.dabench.builders import metrics, reasons, record, rich_step, rich_trace, table, tool_step

GOLD = table(["n"], ["3"])


def answer_step(index: int, value: str) -> dict[str, object]:
    return rich_step(
        index,
        "executor",
        "SUMMARIZE",
        "answer",
        tool="answer",
        action_input={"columns": ["n"], "rows": [[value]]},
        observation={"ok": True, "content": {"status": "submitted"}},
    )


def test_coordinator_and_specialists() -> None:
    steps = [
        rich_step(1, "coordinator", "UNDERSTAND", coordinator_checkpoint="UNDERSTANDING", decision="PROCEED"),
        rich_step(2, "schema_specialist", "UNDERSTAND"),
        rich_step(3, "executor", "UNDERSTAND", specialist_selected="document"),
        rich_step(4, "coordinator", "VERIFY", coordinator_checkpoint="VERIFICATION", decision="APPROVE_FINAL"),
    ]
    values = metrics(record(rich_trace(steps, coordinator_final_decision="APPROVE_FINAL")))
    assert (values["coordinator_calls"], values["coordinator_checkpoints"]) == (2, 2)
    assert (values["schema_agent_called"], values["domain_agent_called"], values["document_agent_called"]) == (1, 0, 1)
    assert values["specialist_participation"] == pytest.approx(2 / 3)
    assert values["coordinator_final_decision"] == "APPROVE_FINAL" and values["aat_verification_passed"] == 1


def test_mas_effectiveness_first_wrong_then_right_after_replan_and_retry() -> None:
    steps = [
        answer_step(1, "4"),
        rich_step(2, "coordinator", "VERIFY", decision="REPLAN"),
        rich_step(3, "coordinator", "VERIFY", decision="RETRY_EXECUTION"),
        answer_step(4, "3"),
    ]
    document = rich_trace(steps, plan_attempts=2, execution_attempts=2)
    values = metrics(record(document, gold=GOLD, prediction=GOLD))
    assert (values["initial_answer_correct"], values["final_answer_correct"]) == (0, 1)
    assert (values["recovered_after_replan"], values["recovered_after_retry"]) == (1, 1)
    assert (values["replan_requested"], values["replan_successful"]) == (1, 1)
    assert (values["retry_requested"], values["retry_successful"]) == (1, 1)


def test_non_rich_traces_have_null_coordinator_metrics_with_reason() -> None:
    rec = record({"steps": [tool_step(1, "list_context")]})
    assert metrics(rec)["coordinator_calls"] is None
    assert "rich trace extension only" in reasons(rec)["coordinator_calls"]


def test_per_stage_sums_time_calls_and_tokens() -> None:
    steps = [
        rich_step(1, "schema_specialist", "UNDERSTAND", duration_seconds=1.5, tokens={"input": 10, "output": 5}),
        rich_step(2, "schema_specialist", "UNDERSTAND", duration_seconds=0.5),
        rich_step(3, "executor", "EXECUTE", duration_seconds=2.0, tokens={"input": 1, "output": 1}),
        rich_step(4, "executor", "AGGREGATE", duration_seconds=1.0),
    ]
    values = metrics(record(rich_trace(steps)))
    assert (values["understanding_time"], values["understanding_calls"], values["understanding_tokens"]) == (2.0, 2, 15)
    assert (values["execution_stage_time"], values["execution_calls"], values["execution_tokens"]) == (2.0, 1, 2)
    assert (values["summary_time"], values["summary_calls"]) == (1.0, 1)
    assert values["planning_calls"] == 0 and values["planning_time"] == 0.0


def test_per_action_counts_knowledge_reads_apart_and_nulls_time_without_timings() -> None:
    steps = [
        tool_step(1, "read_doc", args={"path": "knowledge.md"}),
        tool_step(2, "read_doc", args={"path": "doc/a.md"}),
        tool_step(3, "custom_tool"),
        {"step_index": 4, "action": "__plan__", "observation": {"ok": True}},
    ]
    rec = record({"steps": steps})
    values = metrics(rec)
    assert (values["read_knowledge_calls"], values["read_doc_calls"]) == (1, 1)
    assert (values["other_tool_calls"], values["planner_calls"]) == (1, 1)
    assert values["read_doc_time"] is None
    assert reasons(rec)["read_doc_time"] == "no per-step timings in this trace format"
    assert reasons(rec)["understanding_time"] == "no per-step timings in this trace format"
