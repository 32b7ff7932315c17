from __future__ import annotations

from pathlib import Path
from typing import Any

from tracegrade._io import ColumnBuffer
from tracegrade.dabench import Reconciliation
from tracegrade.dabench.analyses._reconcile import TableFacts, TaskFacts, format_reconciliation, reconcile, table_facts

GOOD: dict[str, Any] = {
    "task_id": "t1",
    "tool_calls": 2,
    "tool_failures": 1,
    "trajectory_length": 3,
    "total_tokens": 1000,
    "coordinator_final_decision": "APPROVE_FINAL",
    "aat_verification_passed": 1,
    "verification_passed": 1,
    "critic_verification_passed": 1,
    "execution_time": 10.0,
    "data_understanding_score": 0.75,
    "specialist_activation_score": 0.5,
    "replan_count": 1,
    "replan_requested": 1,
    "planner_dead_ends": 0,
    "retry_requested": 0,
    "coordinator_calls": 4,
    "coordinator_interventions": 1,
}
FACTS = TaskFacts(steps=3, tool_calls=2, tool_failures=1, tokens=1000, seconds=6.0)


def check(row: dict[str, Any], facts: TaskFacts = FACTS) -> Reconciliation:
    return reconcile([row], TableFacts(tasks={"t1": facts}))


def findings(result: Reconciliation) -> set[tuple[str, str]]:
    return {(f.check, f.severity) for f in result.findings}


def test_consistent_task_passes_every_check() -> None:
    result = check(GOOD)
    assert result.findings == [] and result.pass_rate == 1.0
    assert all(c["passed"] == 1 for c in result.by_check.values())


def test_table_counts_that_disagree_are_errors() -> None:
    result = check(GOOD, TaskFacts(steps=2, tool_calls=3, tool_failures=0, tokens=1000, seconds=6.0))
    assert findings(result) == {
        ("tool_call_count", "error"),
        ("tool_failure_count", "error"),
        ("trajectory_completeness", "error"),
    }
    assert result.tasks_passed == 0 and not result.passed


def test_token_conservation_allows_a_gap_below_100() -> None:
    assert check({**GOOD, "total_tokens": 1099}).findings == []
    assert findings(check({**GOOD, "total_tokens": 1100})) == {("token_conservation", "error")}


def test_verification_semantics_and_the_boolean_invariant() -> None:
    assert findings(check({**GOOD, "aat_verification_passed": 0})) == {("verification_semantics", "error")}
    assert findings(check({**GOOD, "verification_passed": 2, "critic_verification_passed": 2})) == {
        ("verification_boolean", "error")
    }
    # the critic may pass while the coordinator asks for a retry: independent, not a finding
    independent = {**GOOD, "coordinator_final_decision": "RETRY_EXECUTION", "aat_verification_passed": 0}
    assert check(independent).findings == []


def test_time_accounting_warns_only_below_5_percent_and_informs_above_wall_clock() -> None:
    assert findings(check(GOOD, FACTS.model_copy(update={"seconds": 0.4}))) == {("time_accounting", "warning")}
    assert check(GOOD, FACTS.model_copy(update={"seconds": 0.5})).findings == []
    over = check(GOOD, FACTS.model_copy(update={"seconds": 12.0}))
    assert findings(over) == {("time_accounting", "info")} and over.passed
    skipped = check(GOOD, FACTS.model_copy(update={"seconds": None}))
    assert skipped.by_check["time_accounting"]["skipped"] == 1 and skipped.time_accounting["tasks_timed"] == 0


def test_data_understanding_above_its_ceiling_is_inflation() -> None:
    # ceiling 0.5·0.5 + 0.5 = 0.75: equal passes, above fails
    assert findings(check({**GOOD, "data_understanding_score": 0.76})) == {("data_understanding_inflation", "error")}


def test_coordinator_inconsistencies_are_warnings_never_failures() -> None:
    row = {**GOOD, "replan_requested": 2, "retry_requested": 1, "coordinator_interventions": 3}
    result = check(row)
    assert findings(result) == {
        ("replan_count_consistent", "warning"),
        ("retry_count_consistent", "warning"),
        ("coordinator_metrics_consistent", "warning"),
    }
    assert result.passed and result.pass_rate == 1.0 and result.warnings == 3


def test_missing_inputs_are_skipped_not_failed() -> None:
    result = reconcile([{"task_id": "t9"}], TableFacts())
    named = {"summary_trace_present", "summary_prediction_present", "summary_entry_usable"}  # nothing wrong: passed
    assert result.findings == [] and all(c["skipped"] == 1 for k, c in result.by_check.items() if k not in named)
    assert all(result.by_check[k]["passed"] == 1 for k in named)


def test_a_trace_or_prediction_summary_json_names_but_the_folder_lacks_is_an_error() -> None:
    rows = [{"task_id": "t1"}, {"task_id": "t2"}, {"task_id": "t3"}]
    result = reconcile(rows, TableFacts(), {"trace": ["t1", "t2"], "prediction.csv": ["t2"]})
    assert [(f.task_id, f.check, f.severity) for f in result.findings] == [
        ("t1", "summary_trace_present", "error"),
        ("t2", "summary_trace_present", "error"),
        ("t2", "summary_prediction_present", "error"),
    ]
    assert (result.tasks_passed, result.pass_rate, result.passed) == (1, 1 / 3, False)
    assert result.by_check["summary_trace_present"] == {"passed": 1, "error": 2, "warning": 0, "info": 0, "skipped": 0}


def test_report_text_states_status_and_findings() -> None:
    text = format_reconciliation(check({**GOOD, "total_tokens": 5000}), "run-x")
    assert "Status: FAILED (0/1 tasks without errors, 0.0%)" in text
    assert "[ERROR] t1 token_conservation: total_tokens=5000 but trajectory sums 1000" in text
    assert "wall clock: 10.0s; step durations: 6.0s" in text


def test_table_facts_totals_the_written_step_and_tool_call_tables(tmp_path: Path) -> None:
    steps = ColumnBuffer((("task_id", "str"), ("tokens", "int"), ("duration_seconds", "float")))
    steps.extend([("t1", 100, 1.5), ("t1", None, None), ("t1", 20, 2), ("t2", None, None)])
    calls = ColumnBuffer((("task_id", "str"), ("success", "bool")))
    calls.extend([("t1", True), ("t1", False), ("t3", False)])
    (tmp_path / "trajectory.parquet").write_bytes(steps.parquet_bytes())
    (tmp_path / "tool_calls.parquet").write_bytes(calls.parquet_bytes())
    facts = table_facts(tmp_path).tasks
    assert list(facts) == ["t1", "t2", "t3"]
    assert facts["t1"] == TaskFacts(steps=3, tool_calls=2, tool_failures=1, tokens=120, seconds=3.5)
    assert facts["t2"] == TaskFacts(steps=1)  # no tokens or timings: None, not 0
    assert facts["t3"] == TaskFacts(tool_calls=1, tool_failures=1)


def test_reconciliation_report_of_the_example(example_out: Path) -> None:
    text = (example_out / "artifact_reconciliation_report.txt").read_text()
    assert "Status: PASSED (3/3 tasks without errors, 100.0%)" in text
    assert "[WARNING] task_3 replan_count_consistent" in text


def test_a_lower_case_approve_final_is_an_approval() -> None:
    assert check({**GOOD, "coordinator_final_decision": "approve_final"}).findings == []
    assert findings(check({**GOOD, "coordinator_final_decision": "approve_final", "aat_verification_passed": 0})) == {
        ("verification_semantics", "error")
    }
