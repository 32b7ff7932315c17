"""Column lists of the run tables and the trajectory / tool-call rows of one task."""

from __future__ import annotations

import orjson

from tracegrade.dabench._columns import TASK_COLUMNS
from tracegrade.dabench._records import TaskRecord, Value
from tracegrade.dabench._vocab import LEGACY_STAGE, STAGE_PREFIX, tool_category

__all__ = [
    "COMPREHENSIVE_COLUMNS",
    "TOOL_CALL_COLUMNS",
    "TRAJECTORY_COLUMNS",
    "tool_call_rows",
    "trajectory_rows",
]

CELL_CAP = 300
TRAJECTORY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "str"), ("task_id", "str"), ("trace_id", "str"), ("step_id", "int"), ("parent_step_id", "int"),
    ("stage", "str"), ("legacy_stage", "str"), ("phase", "str"), ("agent", "str"), ("trajectory_agent", "str"),
    ("agent_type", "str"), ("tool", "str"), ("action", "str"), ("coordinator_checkpoint", "str"),
    ("confidence", "float"), ("decision", "str"), ("review_type", "str"), ("verification_status", "str"),
    ("specialist_selected", "str"), ("success", "bool"), ("duration_seconds", "float"), ("tokens", "int"),
    ("retries", "int"), ("timestamp", "str"), ("elapsed_seconds", "float"), ("thought", "str"),
    ("action_input", "str"), ("observation", "str"), ("raw_response", "str"), ("metadata_json", "str"),
)  # fmt: skip
TOOL_CALL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "str"), ("task_id", "str"), ("trace_id", "str"), ("step_id", "int"), ("call_id", "str"),
    ("tool_name", "str"), ("tool_category", "str"), ("success", "bool"), ("latency_seconds", "float"),
    ("tokens", "int"), ("retry_count", "int"), ("input_size", "int"), ("output_size", "int"),
    ("error_type", "str"), ("error_message", "str"), ("timestamp", "str"), ("metadata_json", "str"),
)  # fmt: skip
COMPREHENSIVE_COLUMNS = (
    "run_id", "task_id", "difficulty", "final_score", "outcome_status", "execution_success", "execution_time",
    "total_tokens", "llm_calls", "tool_calls", "tool_failures", "trajectory_length", "failure_category",
    "root_cause", "analyst_score",
)  # fmt: skip


def task_metric_columns() -> tuple[tuple[str, str], ...]:
    """(name, dtype) of every task_metrics column, in order."""
    return tuple((c.name, c.dtype) for c in TASK_COLUMNS)


def _cap(text: str) -> str:
    return text if len(text) <= CELL_CAP else text[: CELL_CAP - 1] + "…"


def trajectory_rows(record: TaskRecord, trace_id: str | None) -> list[tuple[Value, ...]]:
    """One trajectory.csv row per step."""
    rows: list[tuple[Value, ...]] = []
    elapsed: float | None = 0.0 if any(s.duration_seconds is not None for s in record.steps) else None
    for s in record.steps:
        if elapsed is not None:
            elapsed += s.duration_seconds or 0.0
        meta = {
            "phase_inferred": s.phase_inferred,
            "is_llm_call": s.is_llm_call,
            "tokens_input": s.tokens_input,
            "tokens_output": s.tokens_output,
            "tokens_reasoning": s.tokens_reasoning,
            "error": s.error,
            "trace_format": record.trace_format.value,
        }
        rows.append(
            (
                record.run_id, record.task_id, trace_id, s.step_id, s.parent_step_id,
                STAGE_PREFIX[s.phase], LEGACY_STAGE[s.phase], s.phase.value, s.agent, s.agent or s.agent_type,
                s.agent_type, s.tool, s.action, s.coordinator_checkpoint, s.confidence, s.decision, s.review_type,
                s.verification_status, s.specialist_selected, s.ok, s.duration_seconds, s.tokens, s.retries,
                s.timestamp, elapsed, _cap(s.thought), _cap(s.action_input), _cap(s.observation),
                _cap(s.raw_response), orjson.dumps(meta).decode(),
            )
        )  # fmt: skip
    return rows


def tool_call_rows(record: TaskRecord, trace_id: str | None) -> list[tuple[Value, ...]]:
    """One tool_calls.csv row per tool invocation."""
    rows: list[tuple[Value, ...]] = []
    for step in record.steps:
        for c in step.tool_calls:
            meta = orjson.dumps({"phase": step.phase.value, "agent": step.agent}).decode()
            rows.append(
                (
                    record.run_id, record.task_id, trace_id, c.step_id, c.call_id, c.tool_name,
                    tool_category(c.tool_name), c.ok, c.latency_seconds, c.tokens, c.retry_count, c.input_size,
                    c.output_size, c.error_type, c.error_message, c.timestamp, meta,
                )
            )  # fmt: skip
    return rows
