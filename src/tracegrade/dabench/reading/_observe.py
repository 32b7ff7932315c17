"""Review signals of one task read from its trace while the record is in memory (analyst team, auditor)."""

from __future__ import annotations

from dataclasses import dataclass

from tracegrade.dabench.reading._records import TaskRecord

__all__ = ["FLAG_STATUSES", "PASS_STATUSES", "REVIEWER_TYPES", "TaskSignals", "observe"]

REVIEWER_TYPES = frozenset({"verifier", "critic", "reflector", "auditor"})
PASS_STATUSES = frozenset({"passed", "pass", "ok", "approved", "verified", "success"})
FLAG_STATUSES = frozenset({"failed", "fail", "rejected", "warning", "warn", "flagged", "error"})


@dataclass(frozen=True, slots=True)
class TaskSignals:
    """What the reviewers of one task said (rich traces; empty for formats without reviewer steps)."""

    task_id: str
    verifier_verdict: bool | None
    """Last verifier step: True passed, False flagged, None when no verifier gave a verdict."""
    critic_verdict: bool | None
    """Last critic/reflector verdict, None without one."""
    review_flags: int
    """Reviewer steps (verifier, critic, auditor) that flagged a problem."""
    review_steps: int
    """Reviewer steps with a verdict."""


def _verdict(status: str | None) -> bool | None:
    word = (status or "").strip().lower()
    if word in PASS_STATUSES:
        return True
    if word in FLAG_STATUSES:
        return False
    return None


def observe(record: TaskRecord) -> TaskSignals:
    """The review signals of one task."""
    verifier: bool | None = None
    critic: bool | None = None
    flags = reviews = 0
    for step in record.steps:
        kind = (step.agent_type or "").lower()
        if kind not in REVIEWER_TYPES and step.review_type not in REVIEWER_TYPES:
            continue
        verdict = _verdict(step.verification_status)
        if verdict is None:
            continue
        reviews += 1
        flags += not verdict
        if kind == "verifier":
            verifier = verdict
        elif kind in ("critic", "reflector") or step.review_type == "critic":
            critic = verdict
    return TaskSignals(record.task_id, verifier, critic, flags, reviews)
