"""Column lists of the run tables and the trajectory / tool-call rows of one task."""

from __future__ import annotations

import orjson

from tracegrade.dabench._columns import TASK_COLUMNS
from tracegrade.dabench._records import Phase, Step, TaskRecord, Value
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


_STAGES = {phase: (STAGE_PREFIX[phase], LEGACY_STAGE[phase], phase.value) for phase in Phase}
"""stage, legacy_stage and phase text of every phase (looked up once per step)."""


def trajectory_rows(record: TaskRecord, trace_id: str | None) -> list[tuple[Value, ...]]:
    """One trajectory.csv row per step."""
    rows: list[tuple[Value, ...]] = []
    elapsed: float | None = 0.0 if any(s.duration_seconds is not None for s in record.steps) else None
    run_id, task_id, trace_format = record.run_id, record.task_id, record.trace_format.value
    metadata: dict[tuple[Value, ...], str] = {}  # most steps of a trace share their metadata cell
    for s in record.steps:
        if elapsed is not None:
            elapsed += s.duration_seconds or 0.0
        key = (s.phase_inferred, s.is_llm_call, s.tokens_input, s.tokens_output, s.tokens_reasoning, s.error)
        meta = metadata.get(key)
        if meta is None:
            meta = metadata[key] = _metadata(s, trace_format)
        stage, legacy, phase = _STAGES[s.phase]
        thought, action_input, observation, raw = s.thought, s.action_input, s.observation, s.raw_response
        rows.append(
            (
                run_id, task_id, trace_id, s.step_id, s.parent_step_id, stage, legacy, phase, s.agent,
                s.agent or s.agent_type, s.agent_type, s.tool, s.action, s.coordinator_checkpoint, s.confidence,
                s.decision, s.review_type, s.verification_status, s.specialist_selected, s.ok, s.duration_seconds,
                s.tokens, s.retries, s.timestamp, elapsed,
                thought if len(thought) <= CELL_CAP else _cap(thought),
                action_input if len(action_input) <= CELL_CAP else _cap(action_input),
                observation if len(observation) <= CELL_CAP else _cap(observation),
                raw if len(raw) <= CELL_CAP else _cap(raw),
                meta,
            )
        )  # fmt: skip
    return rows


def _metadata(step: Step, trace_format: str) -> str:
    meta = {
        "phase_inferred": step.phase_inferred,
        "is_llm_call": step.is_llm_call,
        "tokens_input": step.tokens_input,
        "tokens_output": step.tokens_output,
        "tokens_reasoning": step.tokens_reasoning,
        "error": step.error,
        "trace_format": trace_format,
    }
    return orjson.dumps(meta).decode()


def tool_call_rows(record: TaskRecord, trace_id: str | None) -> list[tuple[Value, ...]]:
    """One tool_calls.csv row per tool invocation."""
    rows: list[tuple[Value, ...]] = []
    run_id, task_id = record.run_id, record.task_id
    metadata: dict[tuple[str, str | None], str] = {}
    for step in record.steps:
        if not step.tool_calls:
            continue
        key = (step.phase.value, step.agent)
        meta = metadata.get(key)
        if meta is None:
            meta = metadata[key] = orjson.dumps({"phase": key[0], "agent": key[1]}).decode()
        for c in step.tool_calls:
            rows.append(
                (
                    run_id, task_id, trace_id, c.step_id, c.call_id, c.tool_name, tool_category(c.tool_name), c.ok,
                    c.latency_seconds, c.tokens, c.retry_count, c.input_size, c.output_size, c.error_type,
                    c.error_message, c.timestamp, meta,
                )
            )  # fmt: skip
    return rows
