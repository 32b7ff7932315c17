from __future__ import annotations

from tests.dabench.builders import record, rich_step, rich_trace, tool_step
from tracegrade.dabench.reading._observe import TaskSignals, observe


def test_reviewer_verdicts_and_flags() -> None:
    steps = [
        rich_step(1, "coordinator", "PLAN", "decide", decision="proceed"),
        rich_step(2, "verifier", "VERIFY", "verify", verification_status="failed"),
        rich_step(3, "critic", "VERIFY", "critique", verification_status="Passed"),
        rich_step(4, "auditor", "VERIFY", "audit", verification_status="warning"),
        rich_step(5, "coordinator", "PLAN", "decide", decision="replan"),
        rich_step(6, "verifier", "VERIFY", "verify", verification_status="approved"),
        rich_step(7, "verifier", "VERIFY", "verify", verification_status="pending"),  # no verdict: not counted
        rich_step(8, "executor", "EXECUTE", "run", verification_status="failed"),  # not a reviewer
    ]
    signals = observe(record(rich_trace(steps)))
    assert signals == TaskSignals(
        task_id="task_1",
        verifier_verdict=True,  # the last verifier verdict
        critic_verdict=True,
        review_flags=2,  # the first verifier and the auditor
        review_steps=4,
    )


def test_a_step_reviewing_as_critic_counts_as_the_critic() -> None:
    steps = [rich_step(1, "executor", "VERIFY", "check", review_type="critic", verification_status="rejected")]
    signals = observe(record(rich_trace(steps)))
    assert (signals.critic_verdict, signals.verifier_verdict, signals.review_flags) == (False, None, 1)


def test_a_trace_without_reviewers_has_no_verdicts() -> None:
    signals = observe(record({"task_id": "task_1", "steps": [tool_step(1, "read_csv")]}))
    assert signals == TaskSignals("task_1", None, None, 0, 0)
