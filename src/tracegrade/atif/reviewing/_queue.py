"""The order a reviewer sees a run's scored steps in: lowest first, contested first, or a seeded random sample."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from tracegrade.atif.scoring._records import NodeResult, StepResult, StepStatus

__all__ = ["QueuedStep", "ReviewOrder", "contested_reason", "order_description", "review_queue"]


class ReviewOrder(StrEnum):
    """How the review queue is ordered."""

    LOWEST = "lowest"
    """Lowest judge score first."""
    CONTESTED = "contested"
    """Steps the judge was unsure of first, then the rest closest to the failure threshold first."""
    RANDOM = "random"
    """A seeded random sample: the order whose labels give agreement figures that describe the whole run."""


@dataclass(frozen=True, slots=True)
class QueuedStep:
    """One scored step in the queue."""

    node_id: str
    index: int
    """The step's 1-based logical index (``step`` in a label)."""
    score: float
    contested: str | None
    """Why the judge's verdict is contested, or None."""

    @property
    def key(self) -> tuple[str, int]:
        """The step's identity in the run."""
        return (self.node_id, self.index)


def contested_reason(step: StepResult, failure_threshold: float) -> str | None:
    """Why a scored step's verdict is in doubt, or None.

    In doubt: repeated verdicts on both sides of the threshold, or a low score the judge then named no failure for.
    """
    if step.repeats is not None and step.repeats.unstable:
        return (f"repeated verdicts straddle the failure threshold {failure_threshold:g} "
                f"({step.repeats.min:.2f}–{step.repeats.max:.2f})")
    if step.failure_candidate and step.category == "none":
        return f"scored below the failure threshold {failure_threshold:g}, yet the judge named no failure category"
    return None


def review_queue(nodes: Sequence[NodeResult], order: ReviewOrder, *, failure_threshold: float,
                 seed: int = 0) -> tuple[QueuedStep, ...]:
    """Every scored step of ``nodes`` in ``order`` (steps without a judge score are left out).

    Ties keep the run's order (node, then step), so the same run and seed always give the same queue.
    """
    steps = [
        QueuedStep(node.node_id, step.index, step.score, contested_reason(step, failure_threshold))
        for node in nodes
        for step in node.steps
        if step.status is StepStatus.SCORED and step.score is not None
    ]
    if order is ReviewOrder.RANDOM:
        shuffled = list(steps)
        random.Random(seed).shuffle(shuffled)
        return tuple(shuffled)
    if order is ReviewOrder.LOWEST:
        return tuple(sorted(steps, key=lambda s: s.score))
    return tuple(sorted(steps, key=lambda s: (s.contested is None, abs(s.score - failure_threshold))))


def order_description(order: ReviewOrder, seed: int) -> str:
    """One sentence on what figures from labels taken in ``order`` describe."""
    if order is ReviewOrder.RANDOM:
        return (f"a seeded random sample (seed {seed}): figures from it estimate the judge's agreement on the "
                "whole run")
    if order is ReviewOrder.LOWEST:
        return ("lowest judge scores first: figures from it describe the judge on its low verdicts, not on the "
                "whole run (use --order random for figures to quote)")
    return ("contested verdicts first: figures from it describe the judge where it was unsure, not on the whole run "
            "(use --order random for figures to quote)")
