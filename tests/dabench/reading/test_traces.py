from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tracegrade.dabench import parse_trace, read_trace
from tracegrade.dabench.reading._records import Phase, TraceFormat
from tracegrade.errors import InputError


def react_step(index: int, action: str, observation: object, **extra: object) -> dict[str, object]:
    return {
        "step_index": index,
        "thought": "t",
        "action": action,
        "action_input": extra.pop("args", {}),
        "raw_response": "r",
        "observation": observation,
        "ok": extra.pop("ok", True),
        **extra,
    }


def test_official_react_trace_with_error_step_and_string_wrapped_input() -> None:
    listing = {"ok": True, "tool": "list_context", "content": {"entries": [{"path": "csv/a.csv", "kind": "file"}]}}
    steps = [
        react_step(1, "list_context", listing),
        react_step(2, "__error__", {"ok": False, "error": "action_input must be a JSON object."}, ok=False),
        react_step(
            3,
            "execute_python",
            {"ok": True, "tool": "execute_python", "content": {"success": False, "error": "KeyError: 'x'"}},
            args='{"code": "x"}',
        ),
        react_step(
            4,
            "answer",
            {"ok": True, "tool": "answer", "content": {"status": "submitted"}},
            args={"columns": ["a"], "rows": [[1]]},
        ),
    ]
    trace = parse_trace(
        {"task_id": "task_1", "answer": None, "steps": steps, "succeeded": True, "e2e_elapsed_seconds": 3.5}
    )
    assert trace.format is TraceFormat.REACT
    error, python = trace.steps[1], trace.steps[2]
    assert (error.ok, error.tool, error.tool_calls, error.phase) == (False, None, (), Phase.UNDERSTAND)
    assert python.tool_calls[0].error_type == "KeyError"
    assert python.action_input == '{"code":"x"}'
    assert trace.steps[0].facts == (("table", "a"),)
    assert trace.steps[3].answer is not None and trace.steps[3].answer.rows == (("1",),)
    assert all(s.is_llm_call for s in trace.steps)
    assert trace.elapsed_seconds == 3.5


def test_action_input_wrapped_in_content_is_unwrapped_and_a_one_key_object_is_kept() -> None:
    read = {"ok": True, "tool": "read_csv", "content": {"columns": ["x", "y"]}}
    steps = [
        react_step(1, "read_csv", read, args={"content": '{"path": "csv/t.csv"}'}),
        react_step(2, "read_csv", read, args={"path": "csv/u.csv"}),
        react_step(3, "read_csv", read, args={"content": {"path": "csv/v.csv"}}),
    ]
    wrapped, plain, nested = parse_trace({"steps": steps}).steps
    assert wrapped.action_input == '{"path":"csv/t.csv"}'
    assert wrapped.facts == (("table", "t"), ("column", "t.x"), ("column", "t.y"))
    assert plain.facts[0] == ("table", "u") and plain.tool_calls[0].args_key == '{"path":"csv/u.csv"}'
    assert nested.action_input == '{"content":{"path":"csv/v.csv"}}' and nested.facts == ()


def test_dag_trace_unwraps_string_content_and_reads_plan_and_reflector() -> None:
    inspect = {"path": "/input/context/csv/att.csv", "columns": [{"name": "event"}, {"name": "member"}]}
    plan = {
        "dag": {
            "nodes": [
                {"id": "n1", "depends_on": []},
                {"id": "n2", "depends_on": ["n1"]},
                {"id": "n3", "depends_on": ["n1"]},
            ]
        }
    }
    steps = [
        react_step(1, "__plan__", orjson.dumps({"ok": True, "content": plan}).decode()),
        react_step(2, "__dag_node_start__", {"ok": True, "content": {"node_id": "n1", "attempt": 2}}),
        react_step(
            3,
            "inspect_data",
            {"ok": True, "tool": "inspect_data", "content": {"content": orjson.dumps(inspect).decode()}},
        ),
        react_step(4, "__reflect__", {"ok": True, "content": {"verdict": "OK"}}),
    ]
    trace = parse_trace({"task_id": "task_2", "steps": steps})
    assert trace.format is TraceFormat.DAG
    assert trace.steps[0].dag == (("n1", ()), ("n2", ("n1",)), ("n3", ("n1",)))
    assert trace.steps[1].attempt == 2 and not trace.steps[1].is_llm_call
    assert trace.steps[2].facts == (("table", "att"), ("column", "att.event"), ("column", "att.member"))
    reflect = trace.steps[3]
    assert (reflect.agent_type, reflect.verification_status, reflect.phase) == ("critic", "passed", Phase.VERIFY)


def test_langgraph_trace_reads_tokens_and_parallel_tool_calls() -> None:
    model = {
        "step_index": 1,
        "node": "model",
        "tool_calls": [{"id": "c1", "name": "read_csv", "args": {}}],
        "tool_results": [],
        "ok": True,
        "model_request": None,
        "model_response": {"input_tokens": 100, "output_tokens": 20, "reasoning_tokens": 5},
    }
    calls = [{"id": "c1", "name": "read_csv", "args": {"path": "a.csv"}}, {"id": "c2", "name": "read_json", "args": {}}]
    results = [
        {"ok": True, "tool": "read_csv", "content": {"path": "a.csv", "columns": ["x"]}},
        {"ok": False, "error": "boom"},
    ]
    tool = {
        "step_index": 2,
        "node": "tool",
        "tool_calls": calls,
        "tool_results": orjson.dumps(results).decode(),
        "ok": True,
        "model_request": None,
        "model_response": None,
    }
    trace = parse_trace({"task_id": "task_3", "steps": [model, tool]})
    assert trace.format is TraceFormat.LANGGRAPH
    assert trace.steps[0].tokens == 120 and trace.steps[0].tokens_reasoning == 5
    assert [c.ok for c in trace.steps[1].tool_calls] == [True, False]
    assert trace.steps[1].facts == (("table", "a"), ("column", "a.x"))
    assert not trace.steps[1].ok and not trace.steps[1].is_llm_call


def test_empty_steps_failure_payload_is_recognised() -> None:
    trace = parse_trace(
        {
            "task_id": "task_11",
            "answer": None,
            "steps": [],
            "succeeded": False,
            "failure_reason": "Task timed out after 600 seconds.",
            "e2e_elapsed_seconds": 600.1,
        }
    )
    assert trace.format is TraceFormat.FAILURE_PAYLOAD
    assert trace.succeeded is False


def test_rich_trace_reads_agents_phases_timings_and_task_fields() -> None:
    step = {
        "step_index": 1,
        "action": "verify",
        "phase": "verify",
        "agent": "V",
        "agent_type": "verifier",
        "duration_seconds": 2.5,
        "tokens": {"input": 10, "output": 5},
        "confidence": 0.7,
        "verification_status": "passed",
        "parent_step_id": None,
    }
    trace = parse_trace(
        {
            "trace_format": "tracegrade.dabench.rich",
            "task_id": "t",
            "steps": [step],
            "coordinator_final_decision": "APPROVE_FINAL",
            "plan_attempts": 2,
        }
    )
    parsed = trace.steps[0]
    assert trace.format is TraceFormat.RICH
    assert (parsed.phase, parsed.phase_inferred, parsed.tool, parsed.is_llm_call) == (Phase.VERIFY, False, None, True)
    assert (parsed.duration_seconds, parsed.tokens, parsed.confidence) == (2.5, 15, 0.7)
    assert trace.task_fields == {"coordinator_final_decision": "APPROVE_FINAL", "plan_attempts": 2}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "top level is not a JSON object"),
        ({"steps": {}}, "'steps' is not a list"),
        ({"steps": [1]}, r"steps\[0\] is not an object"),
        ({"steps": [{"action": "x", "phase": "DANCE"}]}, r"steps\[0\]\.phase 'DANCE'"),
        ({"steps": [{"action": "x", "duration_seconds": -1}]}, r"steps\[0\]\.duration_seconds"),
        ({"steps": [{"action": "x", "tokens": {"input": "many"}}]}, r"steps\[0\]\.tokens\.input"),
    ],
)
def test_malformed_trace_names_the_place(tmp_path: Path, document: object, message: str) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(orjson.dumps(document))
    with pytest.raises(InputError, match=message) as caught:
        read_trace(path)
    assert caught.value.code == "invalid_trace" and str(path) in caught.value.message


def test_invalid_json_trace_names_file_and_position(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_text('{"steps": [}')
    with pytest.raises(InputError, match=r"trace\.json: invalid JSON .*line 1"):
        read_trace(path)


def test_example_rich_traces_validate_against_the_published_schema() -> None:
    import jsonschema

    root = Path(__file__).resolve().parents[3]
    schema = orjson.loads((root / "docs/schemas/dabench-rich-trace.schema.json").read_bytes())
    jsonschema.Draft202012Validator.check_schema(schema)
    traces = sorted((root / "examples/dabench/runs").rglob("trace*.json"))
    assert len(traces) == 4
    for path in traces:
        jsonschema.validate(orjson.loads(path.read_bytes()), schema)
        assert read_trace(path).format is TraceFormat.RICH
