from __future__ import annotations

import orjson

from tests.dabench.builders import record, rich_step, rich_trace, tool_step
from tracegrade.dabench import TaskRecord
from tracegrade.dabench.tables._layout import (
    TOOL_CALL_COLUMNS,
    TRAJECTORY_COLUMNS,
    tool_call_columns,
    trajectory_columns,
)


def timed_record() -> TaskRecord:
    steps = [
        rich_step(1, "planner", "PLAN", duration_seconds=1.5, tokens={"input": 100, "output": 20}),
        rich_step(2, "executor", "EXECUTE", action="run", tool="execute_python", duration_seconds=2.0),
        rich_step(3, "verifier", "VERIFY", verification_status="passed"),
    ]
    return record(rich_trace(steps))


def test_trajectory_columns_hold_one_cell_per_step_in_column_order() -> None:
    columns = trajectory_columns(timed_record(), "task_1/trace.json")
    cells = dict(zip((name for name, _ in TRAJECTORY_COLUMNS), columns, strict=True))
    assert list(cells["step_id"]) == [1, 2, 3]
    assert list(cells["stage"]) == ["planning", "execution", "verification"]
    assert list(cells["elapsed_seconds"]) == [1.5, 3.5, 3.5]  # running sum; an untimed step adds nothing
    assert list(cells["tokens"]) == [120, None, None]
    assert list(cells["trace_id"]) == ["task_1/trace.json"] * 3
    assert orjson.loads(cells["metadata_json"][0])["tokens_input"] == 100


def test_every_column_has_one_cell_per_step() -> None:
    columns = trajectory_columns(timed_record(), None)
    assert len(columns) == len(TRAJECTORY_COLUMNS) and all(len(column) == 3 for column in columns)


def test_tool_call_columns_and_an_empty_trace() -> None:
    rec = record({"steps": [tool_step(1, "read_csv"), tool_step(2, "execute_python", ok=False)]})
    columns = tool_call_columns(rec, None)
    cells = dict(zip((name for name, _ in TOOL_CALL_COLUMNS), columns, strict=True))
    assert list(cells["tool_category"]) == ["explore", "execute"]
    assert list(cells["success"]) == [True, False]
    assert len(columns) == len(TOOL_CALL_COLUMNS) and all(len(column) == 2 for column in columns)
    empty = record({"steps": []})
    assert all(len(column) == 0 for column in trajectory_columns(empty, None))
    assert all(len(column) == 0 for column in tool_call_columns(empty, None))
