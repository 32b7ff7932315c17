"""The steps of one trajectory tree in the order they happened, each with a stable reference and its agent.

A subagent's steps follow the parent step that delegated to it; continuation segments are already
joined by the loader. Step ``k`` of node ``Tn`` is referred to as ``Tn.k`` (``n`` counts the nodes of
the tree depth first, the root being ``T0``; ``k`` is the logical index of the results), so a
reference is short, stable for the same input and names exactly one step.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracegrade.atif.reading._records import NodeStatus, TrajectoryNode, iter_nodes

if TYPE_CHECKING:
    from tracegrade.atif.reading._models import Step

__all__ = ["Timeline", "TimelineStep", "reference_answer", "step_agent", "timeline"]


@dataclass(frozen=True, slots=True)
class TimelineStep:
    """One step of a tree, placed in time."""

    ref: str
    """``Tn.k``: node label and logical step index."""
    node_id: str
    index: int
    """Logical 1-based index within the node (continuations joined), as in the results."""
    step_id: int
    segment: int
    agent: str
    """Who acted: the speaker recorded with the step, else the node's agent (``user``/``system`` for those)."""
    step: Step


@dataclass(frozen=True, slots=True)
class Timeline:
    """A root tree's steps in time order."""

    root: TrajectoryNode
    steps: tuple[TimelineStep, ...]
    unloaded: tuple[str, ...] = ()
    """Nodes of the tree that were not loaded (invalid or beyond the depth limit): their steps are not shown."""

    @property
    def agents(self) -> tuple[str, ...]:
        """The distinct agents, in order of first appearance."""
        return tuple(dict.fromkeys(step.agent for step in self.steps))

    def by_ref(self) -> dict[str, TimelineStep]:
        """Steps by reference."""
        return {step.ref: step for step in self.steps}

    def position(self, node_id: str, index: int) -> int | None:
        """The 0-based place of a step in time, None when it is not on the timeline."""
        for place, step in enumerate(self.steps):
            if step.node_id == node_id and step.index == index:
                return place
        return None


def timeline(root: TrajectoryNode) -> Timeline:
    """The loaded steps of ``root`` and its subagents in time order (copied-context replays left out)."""
    labels = {node.node_id: f"T{n}" for n, node in enumerate(iter_nodes(root))}
    unloaded = tuple(node.node_id for node in iter_nodes(root) if node.status is not NodeStatus.LOADED)
    return Timeline(root, tuple(_walk(root, labels)), unloaded)


def _walk(node: TrajectoryNode, labels: dict[str, str]) -> Iterator[TimelineStep]:
    if node.status is not NodeStatus.LOADED:
        return
    delegated: dict[int, list[TrajectoryNode]] = {}
    for child in node.children:
        delegated.setdefault(child.parent_step_index or len(node.steps), []).append(child)
    fallback = node.agent_name or "agent"
    for logical in node.steps:
        if not logical.copied:
            yield TimelineStep(f"{labels[node.node_id]}.{logical.index}", node.node_id, logical.index,
                               logical.step_id, logical.segment, step_agent(logical.step, fallback), logical.step)
        for child in delegated.get(logical.index, []):
            yield from _walk(child, labels)


def step_agent(step: Step, fallback: str) -> str:
    """The agent a step belongs to: a speaker recorded by an importer, else ``fallback`` for agent steps."""
    speaker = _recorded_speaker(step.extra)
    if speaker is not None:
        return speaker
    return fallback if step.source == "agent" else step.source


def _recorded_speaker(extra: dict[str, Any] | None) -> str | None:
    origin = (extra or {}).get("who_and_when")
    name = origin.get("name") if isinstance(origin, dict) else None
    return name.strip() if isinstance(name, str) and name.strip() else None


def reference_answer(root: TrajectoryNode) -> str | None:
    """The task's reference answer when the trajectory carries one.

    That is ``extra.reference_answer``, or the ``ground_truth`` an import kept in ``extra.who_and_when``.
    """
    extra = (root.trajectory.extra if root.trajectory is not None else None) or {}
    value = extra.get("reference_answer")
    if value is None and isinstance(extra.get("who_and_when"), dict):
        value = extra["who_and_when"].get("ground_truth")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    return value.strip() if isinstance(value, str) and value.strip() else None
