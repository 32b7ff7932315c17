from __future__ import annotations

import orjson

from tests.dabench.builders import record, rich_step, rich_trace, tool_step
from tracegrade.dabench import TaskRecord
from tracegrade.dabench._tables import (
    TOOL_CALL_COLUMNS,
    TRAJECTORY_COLUMNS,
    tool_call_columns,
    tool_call_rows,
    trajectory_columns,
    trajectory_rows,
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


def test_rows_are_the_columns_transposed() -> None:
    rec = timed_record()
    rows = trajectory_rows(rec, None)
    assert rows == list(zip(*trajectory_columns(rec, None), strict=True))
    assert len(rows) == 3 and all(len(row) == len(TRAJECTORY_COLUMNS) for row in rows)


def test_tool_call_columns_and_an_empty_trace() -> None:
    rec = record({"steps": [tool_step(1, "read_csv"), tool_step(2, "execute_python", ok=False)]})
    columns = tool_call_columns(rec, None)
    cells = dict(zip((name for name, _ in TOOL_CALL_COLUMNS), columns, strict=True))
    assert list(cells["tool_category"]) == ["explore", "execute"]
    assert list(cells["success"]) == [True, False]
    assert tool_call_rows(rec, None) == list(zip(*columns, strict=True))
    empty = record({"steps": []})
    assert all(len(column) == 0 for column in trajectory_columns(empty, None))
    assert tool_call_rows(empty, None) == []
