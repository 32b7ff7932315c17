"""What the review page shows of one step: the task, the step, the history the judge kept, the verdict.

The verdict is left out until the reviewer has answered when the review is blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracegrade.atif.agreement._agree import judge_step_category
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.scoring._records import NodeResult, StepResult

__all__ = ["MAX_HISTORY", "RunIndex", "answer_view", "item_view", "judge_view"]

MAX_HISTORY = 50
"""Earlier steps listed in the folded history (the most recent ones the judge kept)."""


class RunIndex:
    """The run's nodes by id, and each node's task."""

    def __init__(self, nodes: Sequence[NodeResult]) -> None:
        self.nodes = {node.node_id: node for node in nodes}

    def step(self, node_id: str, index: int) -> tuple[NodeResult, StepResult] | None:
        """The node and step with that logical index, or None."""
        node = self.nodes.get(node_id)
        if node is None:
            return None
        for step in node.steps:
            if step.index == index:
                return node, step
        return None

    def task(self, node: NodeResult) -> str | None:
        """The first user message of the node, else of its root (None when the results hold none)."""
        for candidate in (node, self.nodes.get(node.root_id)):
            for step in candidate.steps if candidate is not None else ():
                if step.source == "user" and step.content is not None and step.content.message:
                    return step.content.message
        return None


def judge_view(node: NodeResult, step: StepResult, failure_threshold: float) -> dict[str, Any]:
    """The judge's verdict on ``step``: score, criterion scores, rationale, category, repeats."""
    return {
        "score": step.score,
        "failed": step.failure_candidate,
        "failure_threshold": failure_threshold,
        "criterion_scores": step.criterion_scores or {},
        "rationale": step.rationale,
        "category": judge_step_category(step),
        "categorization_rationale": step.categorization_rationale,
        "repeats": None if step.repeats is None else step.repeats.scores,
        "node_aggregate": node.aggregate,
        "node_passed": node.passed,
    }


def item_view(index: RunIndex, node: NodeResult, step: StepResult, *, reveal: bool, failure_threshold: float,
              position: int, contested: str | None) -> dict[str, Any]:
    """The page's item for ``step`` (plain JSON values; every string is data for ``textContent``)."""
    omitted = step.omitted_history or 0
    earlier = [s for s in node.steps if s.index < step.index][omitted:]
    return {
        "node_id": node.node_id,
        "step": step.index,
        "position": position,
        "trajectory_id": node.trajectory_id,
        "session_id": node.session_id,
        "agent": node.agent,
        "depth": node.depth,
        "source_path": node.source_path,
        "step_id": step.step_id,
        "segment": step.segment,
        "source": step.source,
        "task": index.task(node),
        "content": _content(step),
        "history": [
            {"step": s.index, "source": s.source, "content": _content(s)} for s in earlier[-MAX_HISTORY:]
        ],
        "history_left_out": max(0, len(earlier) - MAX_HISTORY),
        "omitted_history": omitted,
        "contested": contested,
        "judge": judge_view(node, step, failure_threshold) if reveal else None,
    }


def answer_view(label: Label | None) -> dict[str, Any] | None:
    """A reviewer's answer as the page's form holds it."""
    if label is None:
        return None
    return {"failed": label.failed, "score": label.score, "category": label.category, "decisive": label.decisive,
            "note": label.note}


def _content(step: StepResult) -> dict[str, Any] | None:
    return None if step.content is None else step.content.model_dump(mode="json")
