from __future__ import annotations

import dataclasses

import pytest

from tests.dabench.builders import record, rich_step, rich_trace, tool_step
from tracegrade.dabench.reading._records import Phase, Step
from tracegrade.dabench.reading._task_signals import (
    critic_steps,
    critic_verdict,
    execution_attempts,
    phase_pattern,
    plan_attempts,
    specialists_called,
    verifier_steps,
)


def step(phase: Phase, **fields: object) -> Step:
    return Step(1, "x", phase, False, True, **fields)  # type: ignore[arg-type]


def test_plans_are_counted_from_planner_steps_unless_the_trace_says() -> None:
    planned = record(rich_trace([rich_step(1, "planner", "PLAN", "plan"), rich_step(2, "planner", "PLAN", "replan"),
                                 rich_step(3, "executor", "EXECUTE", "run")]))
    assert plan_attempts(planned) == 2
    assert plan_attempts(dataclasses.replace(planned, plan_attempts=5)) == 5
    assert plan_attempts(record(rich_trace([rich_step(1, "executor", "EXECUTE", "run")]))) is None  # no planner
    assert plan_attempts(record({"task_id": "task_1", "steps": [tool_step(1, "read_csv")]})) is None  # ReAct


def test_execution_attempts_are_the_highest_attempt_unless_the_trace_says() -> None:
    rec = record({"task_id": "task_1", "steps": [tool_step(1, "read_csv")]})
    assert execution_attempts(rec) is None
    steps = (step(Phase.EXECUTE, attempt=1), step(Phase.EXECUTE, attempt=3), step(Phase.EXECUTE))
    assert execution_attempts(dataclasses.replace(rec, steps=steps)) == 3
    assert execution_attempts(dataclasses.replace(rec, steps=steps, execution_attempts=2)) == 2


@pytest.mark.parametrize(
    ("status", "decision", "verdict"),
    [("passed", None, True), (None, "APPROVE_FINAL", True), (" Retry_Execution ", None, False),
     (None, "replan", False), ("maybe", None, None), (None, None, None), ("failed", "approve", False)],
)
def test_critic_verdict_reads_the_status_then_the_decision(
    status: str | None, decision: str | None, verdict: bool | None
) -> None:
    assert critic_verdict(step(Phase.VERIFY, verification_status=status, decision=decision)) is verdict


def test_critics_and_verifiers_are_told_apart() -> None:
    steps = (
        step(Phase.VERIFY, agent_type="critic"),
        step(Phase.VERIFY, agent_type="reflector"),
        step(Phase.VERIFY, agent_type="verifier"),
        Step(4, "__reflect__", Phase.VERIFY, True, True),
    )
    assert [s.agent_type for s in critic_steps(steps)] == ["critic", "reflector", None]
    assert [s.agent_type for s in verifier_steps(steps)] == ["verifier"]


def test_specialists_by_agent_type_or_selection() -> None:
    steps = (
        step(Phase.UNDERSTAND, agent_type="schema_specialist"),
        step(Phase.PLAN, agent_type="coordinator", specialist_selected="Domain"),
        step(Phase.PLAN, agent_type="coordinator", specialist_selected="nobody"),
    )
    assert specialists_called(steps) == {"schema", "domain"}


def test_phase_pattern_names_replans_and_retries() -> None:
    phases = [Phase.UNDERSTAND, Phase.UNDERSTAND, Phase.PLAN, Phase.EXECUTE, Phase.VERIFY, Phase.PLAN,
              Phase.EXECUTE, Phase.VERIFY, Phase.EXECUTE, Phase.SUMMARIZE]
    assert phase_pattern(tuple(step(p) for p in phases)) == (
        "UNDERSTAND→PLAN→EXECUTE→VERIFY→REPLAN→RETRY→VERIFY→RETRY→SUMMARIZE"
    )
    assert phase_pattern(()) == ""
