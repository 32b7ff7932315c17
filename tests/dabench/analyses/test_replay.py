from __future__ import annotations

from pathlib import Path

from tests.dabench.builders import record, table, tool_step
from tracegrade.dabench import MetricParams, TaskReplay, evaluate_task
from tracegrade.dabench.analyses._replay import answer_csv, build_replay, finish_replay
from tracegrade.dabench.reading._observe import observe

CONTEXT = {"harness_health_status": "HEALTHY", "harness_health_score": 10.0, "run_quality_status": "GOOD"}


def test_replay_attributes_the_failure_to_its_steps(example_out: Path) -> None:
    replay = TaskReplay.model_validate_json((example_out / "task_3" / "task_replay.json").read_bytes())
    attribution = replay.failure_attribution
    assert attribution is not None
    assert (attribution.failure_category, attribution.root_cause, attribution.failure_stage) == (
        "TOOL_EXECUTION_FAILURE",
        "timeout",
        "EXECUTE",
    )
    assert attribution.evidence_trace_step_ids == [3, 5, 6]  # the failed read_csv and execute_python steps
    assert replay.run_context.harness_health_status == "HEALTHY"
    assert replay.run_context.time_accounting.unaccounted_overhead_time_seconds == 592.0
    assert [d.decision for d in replay.coordinator_decisions] == ["PROCEED", "REPLAN"]
    ok = TaskReplay.model_validate_json((example_out / "task_1" / "task_replay.json").read_bytes())
    assert ok.failure_attribution is None and ok.final_answer is not None and ok.final_answer.source == "prediction.csv"
    assert (example_out / "task_1" / "answer.csv").read_text().splitlines()[0] == ",".join(ok.final_answer.columns)


def test_wrong_answer_points_at_its_answer_step() -> None:
    steps = [
        tool_step(1, "read_csv", {"columns": ["a"]}),
        tool_step(2, "execute_python", ok=False),
        tool_step(3, "answer", args={"columns": ["x"], "rows": [["2"]]}),
    ]
    document = {"task_id": "task_1", "steps": steps, "answer": {"columns": ["x"], "rows": [["2"]]}}
    rec = record(document, gold=table(["x"], ["1"]), prediction=table(["x"], ["2"]))
    metrics = evaluate_task(rec, MetricParams())
    replay = finish_replay(build_replay(rec, metrics.values, observe(rec)), CONTEXT)
    parsed = TaskReplay.model_validate(replay)
    assert parsed.failure_attribution is not None
    assert parsed.failure_attribution.evidence_trace_step_ids == [2, 3]  # the failed step and the answer step
    assert parsed.failure_attribution.evidence_summary is not None
    assert parsed.failure_attribution.evidence_summary.startswith("Step 2: execute_python failed")
    assert [c.tool_name for c in parsed.tool_calls] == ["read_csv", "execute_python", "answer"]
    assert parsed.final_answer is not None and parsed.final_answer.source == "prediction.csv"


def test_answer_csv_round_trips_commas_and_quotes() -> None:
    assert answer_csv(table(["name", "n"], ['a, "b"', "1"])) == b'name,n\n"a, ""b""",1\n'


def test_answer_csv_neutralises_formulas_in_the_header_and_the_cells() -> None:
    assert answer_csv(table(["=h", "n"], ["@SUM(1)", "-4"])) == b"'=h,n\n'@SUM(1),-4\n"
