"""Find the task a trajectory was asked to do, and give it a stable hash.

The task comes from the trajectory's own metadata or from what the user said first;
it is never guessed from tool output, observations or agent messages.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tracegrade.atif.reading._models import Step, Trajectory
    from tracegrade.atif.reading._records import TrajectoryNode

__all__ = ["TaskSources", "normalize_task", "resolve_task", "task_facts", "task_hash"]


def resolve_task(node: TrajectoryNode) -> str | None:
    """The normalised task (:func:`normalize_task`) of a trajectory node, or None when it has none.

    The order is: a non-blank string ``extra.task_instruction`` on the trajectory, then the text of the first
    user step that carries any text (the text parts of a multimodal message joined). Later user messages are
    history and never replace the first one.
    """
    trajectory = node.trajectory
    if trajectory is None:
        return None
    declared = _declared_task(trajectory)
    if declared is not None:
        return declared
    return _first_user_text(_node_steps(node, trajectory))


class TaskSources(NamedTuple):
    """What one document holds of a task: a declared one, and a user step with text."""

    declared: bool
    user_text: bool


def task_facts(trajectory: Trajectory) -> TaskSources:
    """The task facts of one document, taken while it is read (a job's outline keeps no steps).

    A root has a task when its own document declares one or any of its segments (continuations
    joined) has a user step with text: what :func:`resolve_task` finds in its full tree.
    """
    return TaskSources(_declared_task(trajectory) is not None, _first_user_text(trajectory.steps) is not None)


def normalize_task(text: str) -> str:
    """Task text with LF line endings, no trailing spaces and no blank lines at either end (empty if all blank).

    Indentation inside the text is kept, because it can carry meaning (code in the task); :func:`task_hash`
    ignores it.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip()


def task_hash(task: str) -> str:
    """SHA-256 (hex) of the task with all whitespace runs collapsed to one space and the ends stripped.

    Tasks that differ only in spacing, indentation or line breaks share a hash, and so one criteria derivation.
    """
    return hashlib.sha256(" ".join(task.split()).encode("utf-8")).hexdigest()


def _declared_task(trajectory: Trajectory) -> str | None:
    value = (trajectory.extra or {}).get("task_instruction")
    if not isinstance(value, str):
        return None
    return normalize_task(value) or None


def _node_steps(node: TrajectoryNode, trajectory: Trajectory) -> Iterable[Step]:
    # Nodes built by the loader carry the logical steps (continuations joined); a node
    # built by hand may only carry the trajectory model.
    if node.steps:
        return (logical.step for logical in node.steps)
    return trajectory.steps


def _first_user_text(steps: Iterable[Step]) -> str | None:
    for step in steps:
        if step.source != "user":
            continue
        text = normalize_task(_message_text(step))
        if text:
            return text
    return None


def _message_text(step: Step) -> str:
    message = step.message
    if isinstance(message, str):
        return message
    return "\n".join(part.text for part in message if part.type == "text" and part.text)
