"""The normalised, typed records every trace variant is read into."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

__all__ = ["AnswerTable", "Phase", "Step", "TaskInput", "TaskRecord", "ToolCall", "TraceFormat", "Value"]

Value = float | int | str | bool | None
"""A metric value as written to the tables (``None`` is an empty CSV cell)."""


class Phase(StrEnum):
    """AAT phases a step belongs to (read from the rich trace, otherwise inferred from the action)."""

    UNDERSTAND = "UNDERSTAND"
    PLAN = "PLAN"
    EXECUTE = "EXECUTE"
    VERIFY = "VERIFY"
    AGGREGATE = "AGGREGATE"
    SUMMARIZE = "SUMMARIZE"


class TraceFormat(StrEnum):
    """The trace variant a task's ``trace.json`` was recognised as (FORMATS.md §2 plus our rich extension)."""

    REACT = "react"
    """Official starter-kit ReAct trace (with or without per-step ``plan``)."""
    DAG = "dag"
    """Planner/executor/reflector DAG pseudo-actions (``__plan__``, ``__dag_node_start__``, ...)."""
    LANGGRAPH = "langgraph"
    """LangGraph model/tool nodes with token counts."""
    RICH = "rich"
    """tracegrade's rich multi-agent extension (docs/schemas/dabench-rich-trace.schema.json)."""
    FAILURE_PAYLOAD = "failure_payload"
    """A timeout/crash payload with no surviving steps."""
    MISSING = "missing"
    """No trace file in the task folder."""


@dataclass(frozen=True, slots=True)
class AnswerTable:
    """A table of answer cells as text (header names plus rows), before normalisation."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


class ToolCall(NamedTuple):
    """One tool invocation (an immutable named tuple)."""

    call_id: str
    step_id: int
    tool_name: str
    ok: bool
    error_type: str | None = None
    error_message: str | None = None
    input_size: int = 0
    output_size: int = 0
    latency_seconds: float | None = None
    tokens: int | None = None
    retry_count: int | None = None
    timestamp: str | None = None
    args_key: str = ""
    """Canonical JSON of the arguments (for repeat detection)."""


class Step(NamedTuple):
    """One normalised trajectory step (an immutable named tuple)."""

    step_id: int
    action: str
    phase: Phase
    phase_inferred: bool
    ok: bool
    tool: str | None = None
    parent_step_id: int | None = None
    agent: str | None = None
    agent_type: str | None = None
    thought: str = ""
    action_input: str = ""
    observation: str = ""
    raw_response: str = ""
    error: str | None = None
    is_llm_call: bool = False
    duration_seconds: float | None = None
    tokens_input: int | None = None
    tokens_output: int | None = None
    tokens_reasoning: int | None = None
    timestamp: str | None = None
    confidence: float | None = None
    decision: str | None = None
    review_type: str | None = None
    verification_status: str | None = None
    specialist_selected: str | None = None
    coordinator_checkpoint: str | None = None
    retries: int | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()
    """Discovery facts read from tool output: ("table", name) and ("column", "table.column")."""
    dag: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """For a planner step: the plan DAG as (node id, depends-on ids)."""
    attempt: int | None = None
    answer: AnswerTable | None = None

    @property
    def tokens(self) -> int | None:
        """Input plus output tokens (reasoning tokens are part of output), or None when unknown."""
        if self.tokens_input is None and self.tokens_output is None:
            return None
        return (self.tokens_input or 0) + (self.tokens_output or 0)


@dataclass(frozen=True, slots=True)
class TaskInput:
    """What the dataset says about a task (``task.json`` and ``context/``); fields None without a data root."""

    task_id: str
    difficulty: str | None = None
    question: str | None = None
    source_kinds: tuple[str, ...] | None = None
    source_count: int | None = None
    gold: AnswerTable | None = None
    gold_reason: str | None = None
    """Why ``gold`` is None (no data root, no gold.csv, unreadable gold)."""


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """Everything read for one task of a run, normalised across trace variants."""

    run_id: str
    task_id: str
    trace_format: TraceFormat
    trace_file: str | None
    steps: tuple[Step, ...]
    succeeded: bool | None
    failure_reason: str | None
    elapsed_seconds: float | None
    answer: AnswerTable | None
    prediction: AnswerTable | None
    prediction_error: str | None
    """Safe error code when ``prediction.csv`` exists but cannot be read."""
    task: TaskInput
    coordinator_final_decision: str | None = None
    plan_attempts: int | None = None
    execution_attempts: int | None = None
    confidence_score: float | None = None
    documents_required: bool | None = None
    explanation_quality_score: float | None = None
    vote_answers: tuple[AnswerTable | None, ...] = ()
    """Answers of further vote rounds (``trace_r2.json``, ...), for reproducibility."""
    errors: tuple[tuple[str, str], ...] = field(default=())
    """(safe code, message) for every part of this task that could not be read."""
    missing_artefacts: tuple[str, ...] = ()
    """Files summary.json says the run wrote that the task folder does not hold (``trace``, ``prediction.csv``):
    a harness or input problem, not the agent's behaviour."""

    @property
    def has_steps(self) -> bool:
        """True when the trace has step data to compute process metrics from."""
        return self.trace_format not in (TraceFormat.FAILURE_PAYLOAD, TraceFormat.MISSING)
