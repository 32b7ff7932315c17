"""Replay artifacts: ``task_<id>/task_replay.json`` (a debug snapshot) and ``task_<id>/answer.csv``.

The snapshot is built while the task's record is in memory (eval-v2's ``on_task`` hook); the run
context (harness health, run quality) is only known at the end, so :func:`finish_replay` adds it then.
Text taken from the trace is cut at :data:`TEXT_CAP` characters and long lists at :data:`LIST_CAP`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracegrade._io import csv_chunks, spreadsheet_safe_row
from tracegrade.dabench.reading._observe import TaskSignals
from tracegrade.dabench.reading._records import AnswerTable, Phase, Step, TaskRecord, Value

__all__ = ["LIST_CAP", "REPLAY_FORMAT", "TEXT_CAP", "answer_csv", "build_replay", "evidence_steps", "finish_replay"]

REPLAY_FORMAT = "tracegrade.dabench.task_replay/1"
TEXT_CAP = 1000
LIST_CAP = 500
ANSWER_ROWS_CAP = 50
_RESTART = frozenset({"REPLAN", "RETRY_EXECUTION"})
_ANSWER_BUCKETS = frozenset({"extra_columns", "low_recall", "wrong_schema", "wrong_row_count", "wrong_aggregate",
                             "wrong_values", "invalid_prediction"})
_EVALUATION = ("final_score", "kdd_recall", "answer_precision", "answer_recall", "answer_f1", "column_f1", "row_f1",
               "dataspace_task_accuracy", "dataspace_error_code", "answer_error_code", "execution_success",
               "outcome_status", "outcome_error_type", "severity")


def _cap(text: str | None) -> str | None:
    return text if text is None or len(text) <= TEXT_CAP else text[: TEXT_CAP - 1] + "…"


def answer_csv(table: AnswerTable) -> bytes:
    """The answer as UTF-8 CSV (header row, LF line ends; cells made :func:`~tracegrade._io.spreadsheet_safe`)."""
    return b"".join(csv_chunks(spreadsheet_safe_row(table.columns), map(spreadsheet_safe_row, table.rows)))


def final_answer(record: TaskRecord) -> tuple[AnswerTable | None, str | None]:
    """The answer the agent submitted and where it was read: prediction.csv first, else the trace."""
    if record.prediction is not None:
        return record.prediction, "prediction.csv"
    if record.answer is not None:
        return record.answer, "trace answer"
    return None, None


def _attempts(steps: tuple[Step, ...]) -> list[dict[str, Any]]:
    attempts: dict[int, list[Step]] = {}
    current = 1
    for step in steps:
        number = step.attempt if step.attempt is not None else current
        attempts.setdefault(number, []).append(step)
        if (step.agent_type or "") == "coordinator" and (step.decision or "").upper() in _RESTART:
            current += 1
    return [_attempt(number, group) for number, group in sorted(attempts.items())]


def _attempt(number: int, steps: list[Step]) -> dict[str, Any]:
    plans = [s for s in steps if s.phase is Phase.PLAN]
    executed = [s for s in steps if s.tool in ("execute_python", "execute_context_sql", "query_dataframe")]
    failed = [s for s in steps if not s.ok]
    plan = plans[-1] if plans else None
    return {
        "attempt_number": number,
        "step_ids": [s.step_id for s in steps],
        "plan": None if plan is None else _cap(_plan_text(plan)),
        "code_executed": _cap("\n".join(s.action_input for s in executed)) if executed else None,
        "stdout": _cap("\n".join(s.observation for s in executed if s.ok)) or None,
        "stderr": _cap("\n".join(s.error or s.observation for s in failed)) if failed else None,
        "success": not failed,
    }


def _plan_text(step: Step) -> str | None:
    for text in (step.action_input, step.thought, step.raw_response):
        if text and text.strip() not in ("{}", "null"):
            return text
    return None


def _agent_execution(s: Step) -> dict[str, Any]:
    return {"step_id": s.step_id, "agent_name": s.agent, "agent_type": s.agent_type, "phase": s.phase.value,
            "checkpoint": s.coordinator_checkpoint, "decision": s.decision, "confidence": s.confidence,
            "verification_status": s.verification_status, "duration": s.duration_seconds, "tokens": s.tokens,
            "success": s.ok}


def _tool_calls(steps: tuple[Step, ...]) -> list[dict[str, Any]]:
    return [
        {"step_id": c.step_id, "call_id": c.call_id, "tool_name": c.tool_name, "success": c.ok,
         "error_type": c.error_type, "error_message": _cap(c.error_message), "latency_seconds": c.latency_seconds}
        for s in steps for c in s.tool_calls
    ][:LIST_CAP]


def evidence_steps(record: TaskRecord, values: Mapping[str, Value]) -> list[int]:
    """Step ids that show the failure: failed steps, the answer steps of a wrong answer, or the failing stage."""
    failed = [s.step_id for s in record.steps if not s.ok]
    ids = list(failed)
    if values.get("outcome_error_type") in _ANSWER_BUCKETS:
        ids += [s.step_id for s in record.steps if s.answer is not None or s.tool == "answer"]
    if not ids:
        stage = values.get("failure_attribution_stage")
        ids = [s.step_id for s in record.steps if s.phase.value == stage][-2:]
    return sorted(set(ids))[:20]


def _evidence_summary(record: TaskRecord, ids: list[int]) -> str | None:
    if not ids:
        return "no step evidence (the trace has no steps)" if not record.steps else None
    by_id = {s.step_id: s for s in record.steps}
    parts = []
    for step_id in ids[:3]:
        s = by_id.get(step_id)
        if s is None:
            continue
        what = s.tool or s.action
        detail = f" with {s.error}" if s.error else ""
        parts.append(f"Step {step_id}: {what} {'failed' if not s.ok else 'ran'}{detail}")
    return _cap("; ".join(parts)) if parts else None


def _attribution(record: TaskRecord, values: Mapping[str, Value]) -> dict[str, Any] | None:
    if values.get("failure_category") is None:
        return None
    ids = evidence_steps(record, values)
    return {
        "failure_category": values.get("failure_category"),
        "root_cause": values.get("root_cause"),
        "failure_stage": values.get("failure_attribution_stage"),
        "failure_agent": values.get("failure_agent"),
        "failure_reason": _cap(_text(values.get("failure_reason"))),
        "outcome_error_type": values.get("outcome_error_type"),
        "evidence_trace_step_ids": ids,
        "evidence_summary": _evidence_summary(record, ids),
        "suggested_fix": values.get("suggested_fix"),
        "severity": values.get("severity"),
        "recoverable": _bool(values.get("recoverable_failure")),
        "execution_success": _bool(values.get("execution_success")),
        "tool_failure_count": values.get("tool_failures"),
    }


def _text(value: Value) -> str | None:
    return None if value is None else str(value)


def _bool(value: Value) -> bool | None:
    return None if value is None else bool(value)


def _verifier(steps: tuple[Step, ...], values: Mapping[str, Value], signals: TaskSignals) -> dict[str, Any]:
    reviews = [
        {"step_id": s.step_id, "agent_type": s.agent_type, "verification_status": s.verification_status,
         "confidence": s.confidence}
        for s in steps if s.verification_status is not None
    ][:LIST_CAP]
    return {
        "critic": {
            "triggered": _bool(values.get("verification_triggered")),
            "passed": _bool(values.get("critic_verification_passed")),
            "score": values.get("critic_verification_score"),
            "failures_detected": values.get("critic_failures_detected"),
        },
        "aat": {
            "triggered": _bool(values.get("aat_verification_triggered")),
            "passed": _bool(values.get("aat_verification_passed")),
            "score": values.get("aat_verification_score"),
            "last_verdict": signals.verifier_verdict,
        },
        "reviews": reviews,
    }


def _answer(record: TaskRecord) -> dict[str, Any] | None:
    table, source = final_answer(record)
    if table is None:
        return None
    return {
        "source": source,
        "csv_file": "answer.csv",
        "columns": list(table.columns),
        "rows": [list(r) for r in table.rows[:ANSWER_ROWS_CAP]],
        "row_count": len(table.rows),
        "rows_truncated": len(table.rows) > ANSWER_ROWS_CAP,
    }


def build_replay(record: TaskRecord, values: Mapping[str, Value], signals: TaskSignals) -> dict[str, Any]:
    """Everything about one task needed to debug it offline, except the run context."""
    steps = record.steps
    timed = [s.duration_seconds for s in steps if s.duration_seconds is not None]
    answer = _answer(record)
    return {
        "format": REPLAY_FORMAT,
        "run_id": record.run_id,
        "task_id": record.task_id,
        "trace_id": values.get("trace_id"),
        "trace_format": record.trace_format.value,
        "difficulty": record.task.difficulty,
        "question": record.task.question,
        "available_sources": list(record.task.source_kinds) if record.task.source_kinds is not None else None,
        "execution_attempts": _attempts(steps),
        "agent_executions": [_agent_execution(s) for s in steps if s.agent or s.agent_type][:LIST_CAP],
        "tool_calls": _tool_calls(steps),
        "coordinator_decisions": [
            {"step_id": s.step_id, "checkpoint": s.coordinator_checkpoint, "decision": s.decision,
             "confidence": s.confidence}
            for s in steps if s.agent_type == "coordinator"
        ][:LIST_CAP],
        "coordinator_final_decision": record.coordinator_final_decision,
        "verification_passed": _bool(values.get("verification_passed")),
        "aat_verification_passed": _bool(values.get("aat_verification_passed")),
        "verifier_output": _verifier(steps, values, signals),
        "final_answer": answer,
        "final_answer_csv": "answer.csv" if answer else None,
        "evaluation_result": {k: values.get(k) for k in _EVALUATION},
        "failure_attribution": _attribution(record, values),
        "time_accounting": _time(values.get("execution_time"), sum(timed) if timed else None),
        "task_errors": [{"code": c, "message": _cap(m)} for c, m in record.errors],
    }


def _time(wall: Value, component: float | None) -> dict[str, float | None]:
    clock = float(wall) if isinstance(wall, int | float) else None
    unaccounted = clock - component if clock is not None and component is not None else None
    ratio = component / clock if clock and component is not None else None
    return {
        "wall_clock_seconds": clock,
        "component_seconds": component,
        "unaccounted_overhead_time_seconds": unaccounted,
        "time_accounting_ratio": ratio,
    }


def finish_replay(body: dict[str, Any], context: Mapping[str, Any]) -> dict[str, Any]:
    """The replay with its run context: harness health, run quality, the task's outcome and time accounting."""
    run_context = dict(context)
    run_context["outcome_status"] = body["evaluation_result"].get("outcome_status")
    run_context["time_accounting"] = body.pop("time_accounting")
    body["run_context"] = run_context
    return body
