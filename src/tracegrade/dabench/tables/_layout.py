"""Column lists of the run tables and the trajectory / tool-call rows of one task."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

import orjson

from tracegrade.dabench.metrics._columns import TASK_COLUMNS
from tracegrade.dabench.reading._records import Phase, TaskRecord, ToolCall, Value
from tracegrade.dabench.reading._vocab import LEGACY_STAGE, STAGE_PREFIX, tool_category

__all__ = ["COMPREHENSIVE_COLUMNS", "TOOL_CALL_COLUMNS", "TRAJECTORY_COLUMNS", "Columns", "tool_call_columns",
           "trajectory_columns"]

CELL_CAP = 300
TRAJECTORY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "str"), ("task_id", "str"), ("trace_id", "str"), ("step_id", "int"), ("parent_step_id", "int"),
    ("stage", "str"), ("legacy_stage", "str"), ("phase", "str"), ("agent", "str"), ("trajectory_agent", "str"),
    ("agent_type", "str"), ("tool", "str"), ("action", "str"), ("coordinator_checkpoint", "str"),
    ("confidence", "float"), ("decision", "str"), ("review_type", "str"), ("verification_status", "str"),
    ("specialist_selected", "str"), ("success", "bool"), ("duration_seconds", "float"), ("tokens", "int"),
    ("retries", "int"), ("timestamp", "str"), ("elapsed_seconds", "float"), ("thought", "str"),
    ("action_input", "str"), ("observation", "str"), ("raw_response", "str"), ("metadata_json", "str"),
)
TOOL_CALL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "str"), ("task_id", "str"), ("trace_id", "str"), ("step_id", "int"), ("call_id", "str"),
    ("tool_name", "str"), ("tool_category", "str"), ("success", "bool"), ("latency_seconds", "float"),
    ("tokens", "int"), ("retry_count", "int"), ("input_size", "int"), ("output_size", "int"),
    ("error_type", "str"), ("error_message", "str"), ("timestamp", "str"), ("metadata_json", "str"),
)
COMPREHENSIVE_COLUMNS = (
    "run_id", "task_id", "difficulty", "final_score", "outcome_status", "execution_success", "execution_time",
    "total_tokens", "llm_calls", "tool_calls", "tool_failures", "trajectory_length", "failure_category",
    "root_cause", "analyst_score",
)


def task_metric_columns() -> tuple[tuple[str, str], ...]:
    """(name, dtype) of every task_metrics column, in order."""
    return tuple((c.name, c.dtype) for c in TASK_COLUMNS)


def _cap(text: str) -> str:
    return text if len(text) <= CELL_CAP else text[: CELL_CAP - 1] + "…"


_STAGES = {phase: (STAGE_PREFIX[phase], LEGACY_STAGE[phase], phase.value) for phase in Phase}
"""stage, legacy_stage and phase text of every phase."""


Columns = list[Sequence[Value]]
"""A table slice held by column (values in row order), as :meth:`tracegrade._io.ColumnBuffer.extend_columns`
takes it."""


def _capped(texts: Sequence[str]) -> list[str]:
    return [t if len(t) <= CELL_CAP else _cap(t) for t in texts]


def trajectory_columns(record: TaskRecord, trace_id: str | None) -> Columns:
    """The trajectory.csv cells of a task's steps, column by column (one pass per column, no row tuples)."""
    steps = record.steps
    count = len(steps)
    if not count:
        return [() for _ in TRAJECTORY_COLUMNS]
    (step_id, action, phases, inferred, ok, tool, parent, agent, agent_type, thought, action_input, observation,
     raw, error, llm, duration, t_in, t_out, t_reason, stamp, confidence, decision, review, verification,
     specialist, checkpoint, retries, *_) = zip(*steps, strict=True)
    timed = any(d is not None for d in duration)
    elapsed = list(accumulate((s or 0.0 for s in duration), initial=0.0))[1:] if timed else [None] * count
    stages = [_STAGES[phase] for phase in phases]
    trace_format = record.trace_format.value
    metadata: dict[tuple[Value, ...], str] = {}  # most steps of a trace share their metadata cell
    meta = []
    for key in zip(inferred, llm, t_in, t_out, t_reason, error, strict=True):
        cell = metadata.get(key)
        if cell is None:
            cell = metadata[key] = _metadata(key, trace_format)
        meta.append(cell)
    tokens = [None if a is None and b is None else (a or 0) + (b or 0) for a, b in zip(t_in, t_out, strict=True)]
    return [
        [record.run_id] * count, [record.task_id] * count, [trace_id] * count, step_id, parent,
        [t[0] for t in stages], [t[1] for t in stages], [t[2] for t in stages], agent,
        [a or b for a, b in zip(agent, agent_type, strict=True)], agent_type, tool, action, checkpoint, confidence,
        decision, review, verification, specialist, ok, duration, tokens, retries, stamp,
        elapsed, _capped(thought), _capped(action_input), _capped(observation), _capped(raw), meta,
    ]


_META_KEYS = ("phase_inferred", "is_llm_call", "tokens_input", "tokens_output", "tokens_reasoning", "error")


def _metadata(values: tuple[Value, ...], trace_format: str) -> str:
    """The metadata_json cell of a step (``values`` in :data:`_META_KEYS` order)."""
    return orjson.dumps({**dict(zip(_META_KEYS, values, strict=True)), "trace_format": trace_format}).decode()


def tool_call_columns(record: TaskRecord, trace_id: str | None) -> Columns:
    """The tool_calls.csv cells of a task's tool invocations, column by column."""
    calls: list[ToolCall] = []
    meta: list[str] = []
    metadata: dict[tuple[Phase, str | None], str] = {}
    for step in record.steps:
        if not step.tool_calls:
            continue
        key = (step.phase, step.agent)  # the member itself: ``.value`` goes through a slow enum descriptor
        cell = metadata.get(key)
        if cell is None:
            cell = metadata[key] = orjson.dumps({"phase": step.phase.value, "agent": step.agent}).decode()
        calls.extend(step.tool_calls)
        meta.extend([cell] * len(step.tool_calls))
    count = len(calls)
    if not count:
        return [() for _ in TOOL_CALL_COLUMNS]
    (call_id, step_id, name, ok, error_type, error_message, input_size, output_size, latency, tokens, retries,
     stamp, _) = zip(*calls, strict=True)
    return [
        [record.run_id] * count, [record.task_id] * count, [trace_id] * count, step_id, call_id, name,
        [tool_category(n) for n in name], ok, latency, tokens, retries, input_size, output_size, error_type,
        error_message, stamp, meta,
    ]
