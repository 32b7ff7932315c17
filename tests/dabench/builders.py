"""Small builders of traces and task records for metric tests."""

from __future__ import annotations

from typing import Any

from tracegrade.dabench import MetricParams, TaskRecord, evaluate_task, parse_trace
from tracegrade.dabench.reading._records import AnswerTable, TaskInput, Value


def table(header: list[str], *rows: list[str]) -> AnswerTable:
    return AnswerTable(tuple(header), tuple(tuple(r) for r in rows))


def tool_step(
    index: int, name: str, content: object = None, *, ok: bool = True, args: object = None, **extra: Any
) -> dict[str, Any]:
    observation = {"ok": ok, "tool": name, "content": content or {}} if ok else {"ok": False, "error": "Boom: failed"}
    return {
        "step_index": index,
        "action": name,
        "action_input": args or {},
        "observation": observation,
        "ok": ok,
        **extra,
    }


def rich_step(index: int, agent_type: str, phase: str, action: str = "think", **extra: Any) -> dict[str, Any]:
    return {
        "step_index": index,
        "agent": agent_type.title(),
        "agent_type": agent_type,
        "phase": phase,
        "action": action,
        **extra,
    }


def rich_trace(steps: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"trace_format": "tracegrade.dabench.rich", "task_id": "task_1", "steps": steps, **fields}


def record(
    document: dict[str, Any],
    *,
    gold: AnswerTable | None = None,
    prediction: AnswerTable | None = None,
    succeeded: bool | None = True,
    kinds: tuple[str, ...] | None = None,
    failure_reason: str | None = None,
    votes: tuple[AnswerTable | None, ...] = (),
) -> TaskRecord:
    trace = parse_trace(document)
    fields = trace.task_fields
    task = TaskInput(
        "task_1", "easy", "q", kinds, None if kinds is None else len(kinds), gold, None if gold else "no gold.csv"
    )
    return TaskRecord(
        run_id="run",
        task_id="task_1",
        trace_format=trace.format,
        trace_file="trace.json",
        steps=trace.steps,
        succeeded=succeeded,
        failure_reason=failure_reason,
        elapsed_seconds=trace.elapsed_seconds,
        answer=trace.answer,
        prediction=prediction,
        prediction_error=None,
        task=task,
        coordinator_final_decision=fields.get("coordinator_final_decision"),
        plan_attempts=fields.get("plan_attempts"),
        execution_attempts=fields.get("execution_attempts"),
        confidence_score=fields.get("confidence_score"),
        documents_required=fields.get("documents_required"),
        explanation_quality_score=fields.get("explanation_quality_score"),
        vote_answers=votes,
    )


def metrics(rec: TaskRecord, **params: Any) -> dict[str, Value]:
    return evaluate_task(rec, MetricParams(**params)).values


def reasons(rec: TaskRecord) -> dict[str, str]:
    return evaluate_task(rec, MetricParams()).reasons
