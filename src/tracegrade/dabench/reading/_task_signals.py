"""Task-level signals read from a normalised record, shared by several metric families."""

from __future__ import annotations

from tracegrade.dabench.reading._records import Phase, Step, TaskRecord, TraceFormat
from tracegrade.dabench.reading._vocab import CRITIC_TYPES, PLAN_ACTIONS, SPECIALISTS

__all__ = ["critic_steps", "critic_verdict", "execution_attempts", "phase_pattern", "plan_attempts",
           "specialists_called", "verifier_steps"]

_PASS = frozenset({"passed", "pass", "ok", "approved", "approve", "approve_final", "success"})
_FAIL = frozenset({"failed", "fail", "rejected", "reject", "error", "retry", "retry_execution", "replan"})


def plan_attempts(record: TaskRecord) -> int | None:
    """Plans made: the rich field, else the number of planner steps (DAG ``__plan__``, rich ``plan``)."""
    if record.plan_attempts is not None:
        return record.plan_attempts
    if record.trace_format in (TraceFormat.DAG, TraceFormat.RICH):
        count = sum(1 for s in record.steps if s.action in PLAN_ACTIONS)
        return count or None
    return None


def execution_attempts(record: TaskRecord) -> int | None:
    """Execution attempts: the rich field, else the highest DAG node ``attempt``."""
    if record.execution_attempts is not None:
        return record.execution_attempts
    attempts = [s.attempt for s in record.steps if s.attempt is not None]
    return max(attempts) if attempts else None


def critic_steps(steps: tuple[Step, ...]) -> list[Step]:
    """Step-level critic checks (legacy critic agent, DAG reflector)."""
    return [s for s in steps if s.agent_type in CRITIC_TYPES or s.action == "__reflect__"]


def verifier_steps(steps: tuple[Step, ...]) -> list[Step]:
    """AAT verifier steps (rich trace)."""
    return [s for s in steps if s.agent_type == "verifier"]


def critic_verdict(step: Step) -> bool | None:
    """True for a passing check, False for a failing one, None when the step states no verdict."""
    status = (step.verification_status or step.decision or "").strip().lower()
    if status in _PASS:
        return True
    if status in _FAIL:
        return False
    return None


def specialists_called(steps: tuple[Step, ...]) -> set[str]:
    """Which of schema/domain/document specialists ran (agent_type ``<kind>_specialist`` or selection)."""
    called: set[str] = set()
    for step in steps:
        for kind in SPECIALISTS:
            if step.agent_type == f"{kind}_specialist" or (step.specialist_selected or "").lower() == kind:
                called.add(kind)
    return called


def phase_pattern(steps: tuple[Step, ...]) -> str:
    """Phases in order with repeats collapsed; a second PLAN is REPLAN, EXECUTE after VERIFY is RETRY."""
    labels: list[str] = []
    seen_plan = seen_verify = False
    previous: Phase | None = None
    for step in steps:
        if step.phase is previous:
            continue
        label = step.phase.value
        if step.phase is Phase.PLAN:
            label = "REPLAN" if seen_plan else label
            seen_plan = True
        elif step.phase is Phase.EXECUTE and seen_verify:
            label = "RETRY"
        elif step.phase is Phase.VERIFY:
            seen_verify = True
        labels.append(label)
        previous = step.phase
    return "→".join(labels)
