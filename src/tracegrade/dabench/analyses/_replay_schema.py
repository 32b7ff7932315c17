"""The typed shape of ``task_replay.json`` (source of ``docs/schemas/dabench-task-replay.schema.json``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["TaskReplay", "replay_schema"]

Scalar = float | int | str | bool | None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExecutionAttempt(_Strict):
    """One execution attempt (attempts are split at the coordinator's REPLAN / RETRY_EXECUTION)."""

    attempt_number: int
    step_ids: list[int]
    plan: str | None
    code_executed: str | None
    stdout: str | None
    stderr: str | None
    success: bool


class AgentExecution(_Strict):
    """One step of a named agent (multi-agent observability)."""

    step_id: int
    agent_name: str | None
    agent_type: str | None
    phase: str
    checkpoint: str | None
    decision: str | None
    confidence: float | None
    verification_status: str | None
    duration: float | None
    tokens: int | None
    success: bool


class ReplayToolCall(_Strict):
    """One tool invocation."""

    step_id: int
    call_id: str
    tool_name: str
    success: bool
    error_type: str | None
    error_message: str | None
    latency_seconds: float | None


class CoordinatorDecision(_Strict):
    """One coordinator step."""

    step_id: int
    checkpoint: str | None
    decision: str | None
    confidence: float | None


class FinalAnswer(_Strict):
    """The submitted answer (first rows) and where it was read."""

    source: str
    csv_file: str
    columns: list[str]
    rows: list[list[str]]
    row_count: int
    rows_truncated: bool


class FailureAttribution(_Strict):
    """Structured attribution of a failed task, with the trace steps that show it."""

    failure_category: str
    root_cause: str | None
    failure_stage: str | None
    failure_agent: str | None
    failure_reason: str | None
    outcome_error_type: str | None
    evidence_trace_step_ids: list[int]
    evidence_summary: str | None
    suggested_fix: str | None
    severity: str | None
    recoverable: bool | None
    execution_success: bool | None
    tool_failure_count: int | None


class TimeAccounting(_Strict):
    """Wall clock against the time the steps account for."""

    wall_clock_seconds: float | None
    component_seconds: float | None
    unaccounted_overhead_time_seconds: float | None
    time_accounting_ratio: float | None


class RunContext(_Strict):
    """The run a task belongs to: harness health, run quality and the task's own outcome."""

    harness_health_status: str
    harness_health_score: float
    run_quality_status: str
    outcome_status: str | None
    time_accounting: TimeAccounting


class TaskReplay(_Strict):
    """``task_<id>/task_replay.json``: everything needed to debug one task without re-running it."""

    format: str
    run_id: str
    task_id: str
    trace_id: str | None
    trace_format: str
    difficulty: str | None
    question: str | None
    available_sources: list[str] | None
    execution_attempts: list[ExecutionAttempt]
    agent_executions: list[AgentExecution]
    tool_calls: list[ReplayToolCall]
    coordinator_decisions: list[CoordinatorDecision]
    coordinator_final_decision: str | None
    verification_passed: bool | None
    """Legacy critic verdict (independent of the coordinator's approval)."""
    aat_verification_passed: bool | None
    """The coordinator approved the final answer (APPROVE_FINAL)."""
    verifier_output: dict[str, Any]
    final_answer: FinalAnswer | None
    final_answer_csv: str | None
    evaluation_result: dict[str, Scalar]
    failure_attribution: FailureAttribution | None
    task_errors: list[dict[str, str | None]]
    run_context: RunContext


def replay_schema() -> dict[str, Any]:
    """The JSON Schema of a task replay."""
    schema = TaskReplay.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://tracegrade.dev/schemas/dabench-task-replay.schema.json"
    return schema
