from __future__ import annotations

import pytest

from tests.dabench.builders import metrics, reasons, record, rich_step, rich_trace, table, tool_step


def test_tool_usage_counts_useful_wasted_and_retries() -> None:
    steps = [
        tool_step(1, "list_context", {"entries": []}),
        tool_step(2, "read_csv", {"path": "t.csv", "columns": ["a"]}, args={"path": "t.csv"}),
        tool_step(3, "read_csv", {"path": "t.csv", "columns": ["a"]}, args={"path": "t.csv"}),
        tool_step(4, "execute_python", ok=False),
        tool_step(5, "execute_python", {"success": True}),
        tool_step(6, "answer", {"status": "submitted"}, args={"columns": ["a"], "rows": [["1"]]}),
    ]
    values = metrics(record({"steps": steps}))
    assert values["tool_calls"] == 6 and values["tool_failures"] == 1
    assert values["unique_tools_used"] == 4
    assert values["tool_diversity"] == pytest.approx(4 / 6)
    assert values["useful_tool_calls"] == 4  # 2 distinct explore calls + execute + answer
    assert values["wasted_tool_calls"] == 2
    assert values["tool_efficiency"] == pytest.approx(4 / 6)
    assert values["tool_selection_accuracy"] == pytest.approx((4 - 1) / 6)
    assert values["tool_retry_count"] == 1


def test_without_tool_calls_the_ratios_are_null_not_zero() -> None:
    rec = record({"steps": [{"step_index": 1, "action": "__plan__", "observation": {"ok": True}}]})
    values = metrics(rec)
    assert values["tool_calls"] == 0 and values["tool_efficiency"] is None
    assert reasons(rec)["tool_efficiency"] == "no tool calls (0/0)"


def test_autonomy_and_planning_from_rich_attempts() -> None:
    steps = [rich_step(i, "coordinator", "PLAN") for i in range(1, 6)]
    values = metrics(record(rich_trace(steps, plan_attempts=3, execution_attempts=2)), max_replans=3)
    assert values["replan_count"] == 2 and values["planner_revisions"] == 2
    assert values["autonomy_score"] == pytest.approx(1 - 2 / 3)
    assert values["coordinator_interventions"] == 2  # 5 calls − 3 baseline checkpoints
    assert values["planner_dead_ends"] == 1
    assert values["plan_execution_alignment"] == 0.5
    assert values["first_try_success"] == 0
    assert values["user_intervention_count"] == 0


def test_react_trace_has_no_plan_attempts_so_autonomy_is_null_with_reason() -> None:
    rec = record({"steps": [tool_step(1, "list_context")]})
    assert metrics(rec)["autonomy_score"] is None
    assert reasons(rec)["autonomy_score"] == "no plan attempts recorded in this trace format"


def _understanding_record(documents_required: bool, called: list[str]) -> dict[str, object]:
    steps = [
        rich_step(
            1,
            f"{kind}_specialist",
            "UNDERSTAND",
            "read_csv",
            tool="read_csv",
            observation={"ok": True, "content": {"path": "t.csv", "columns": ["a", "b"]}},
        )
        for kind in called
    ]
    gold = table(["a", "b"], ["1", "2"])
    rec = record(rich_trace(steps, documents_required=documents_required), gold=gold, prediction=gold)
    return metrics(rec)


def test_data_understanding_score_can_exceed_the_specialist_only_score() -> None:
    values = _understanding_record(True, ["schema", "document"])
    assert values["specialist_activation_score"] == pytest.approx(2 / 3)
    assert (values["tables_discovered"], values["columns_discovered"], values["relevant_columns_found"]) == (1, 2, 2)
    assert values["discovery_score"] == 1.0
    assert values["data_understanding_score"] == pytest.approx(0.8333, abs=1e-4)
    assert values["data_understanding_score"] > values["specialist_activation_score"]


def test_document_specialist_is_not_required_without_documents() -> None:
    values = _understanding_record(False, ["schema", "domain"])
    assert values["specialist_activation_score"] == 1.0
    assert values["data_understanding_score"] == 1.0


@pytest.mark.parametrize(
    ("statuses", "passed", "score", "failures"),
    [
        (["passed", "passed", "passed"], 1, 1.0, 0),
        (["failed", "passed"], 1, 0.5, 1),
        (["passed", "failed"], 0, 0.5, 1),
    ],
)
def test_verification_passed_is_a_boolean_never_a_count(
    statuses: list[str], passed: int, score: float, failures: int
) -> None:
    steps = [rich_step(i, "critic", "VERIFY", "critique", verification_status=s) for i, s in enumerate(statuses, 1)]
    values = metrics(record(rich_trace(steps)))
    assert values["verification_passed"] == values["critic_verification_passed"] == passed
    assert values["verification_score"] == pytest.approx(score)
    assert values["verification_failures_detected"] == failures
    assert values["verification_steps"] == len(statuses) and values["verification_triggered"] == 1
    assert values["critic_loops"] == len(statuses) - 1


def test_aat_verification_follows_the_coordinator_not_the_critic() -> None:
    steps = [
        rich_step(1, "critic", "VERIFY", verification_status="passed"),
        rich_step(2, "verifier", "VERIFY", verification_status="failed", confidence=0.4),
    ]
    values = metrics(record(rich_trace(steps, coordinator_final_decision="RETRY_EXECUTION")))
    assert values["critic_verification_passed"] == 1
    assert (values["aat_verification_triggered"], values["aat_verification_passed"]) == (1, 0)
    assert values["aat_verification_score"] == 0.4


def test_discovery_score_clamps_matched_columns_beyond_those_discovered() -> None:
    from tracegrade.dabench.metrics._process import _discovery

    assert _discovery(1, 2, 5) == 1.0  # more gold columns matched than columns seen: the column share is capped at 1
    assert _discovery(1, 4, 1) == pytest.approx(0.625)
    assert _discovery(0, 4, 1) is None and _discovery(1, 4, None) is None


@pytest.mark.parametrize(("decision", "passed"), [("APPROVE_FINAL", 1), ("approve_final", 1), ("REPLAN", 0)])
def test_aat_verification_passes_on_approve_final_in_any_case(decision: str, passed: int) -> None:
    values = metrics(record(rich_trace([rich_step(1, "coordinator", "VERIFY")], coordinator_final_decision=decision)))
    assert values["aat_verification_passed"] == passed
