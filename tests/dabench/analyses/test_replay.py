from __future__ import annotations

from pathlib import Path

import orjson

from tests.dabench.builders import record, table, tool_step
from tracegrade.dabench import MetricParams, TaskReplay, evaluate_task
from tracegrade.dabench.analyses._replay import answer_csv, build_replay, finish_replay
from tracegrade.dabench.analyses._replay_schema import replay_schema
from tracegrade.dabench.reading._observe import observe

SCHEMA = Path(__file__).resolve().parents[3] / "docs" / "schemas" / "dabench-task-replay.schema.json"
CONTEXT = {"harness_health_status": "HEALTHY", "harness_health_score": 10.0, "run_quality_status": "GOOD"}


def test_the_schema_file_is_generated_from_the_model() -> None:
    assert orjson.loads(SCHEMA.read_bytes()) == replay_schema()


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
