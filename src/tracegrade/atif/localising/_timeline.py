"""The steps of one trajectory tree in the order they happened, each with a stable reference and its agent.

A subagent's steps follow the parent step that delegated to it; continuation segments are already
joined by the loader. The user's turns are shown to the judge but are no candidate for the decisive step
unless asked for: a run goes wrong where one of its agents acts. Step ``k`` of node ``Tn`` is referred to
as ``Tn.k`` (``n`` counts the nodes of the tree depth first, the root being ``T0``; ``k`` is the logical
index of the results), so a reference is short, stable for the same input and names exactly one step.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracegrade.atif.reading._records import NodeStatus, TrajectoryNode, iter_nodes

if TYPE_CHECKING:
    from tracegrade.atif.reading._models import Step

__all__ = ["Timeline", "TimelineStep", "reference_answer", "step_agent", "timeline"]

_ANNOTATION = re.compile(r"\s*\([^()]*\)\s*")
_CHAT_ROLES = frozenset({"user", "human", "assistant", "system", "tool", "function"})


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
    candidate: bool = True
    """Whether the step may be named as the decisive one (the user's turns only when asked for)."""


@dataclass(frozen=True, slots=True)
class Timeline:
    """A root tree's steps in time order."""

    root: TrajectoryNode
    steps: tuple[TimelineStep, ...]
    unloaded: tuple[str, ...] = ()
    """Nodes of the tree that were not loaded (invalid or beyond the depth limit): their steps are not shown."""

    @property
    def candidates(self) -> tuple[TimelineStep, ...]:
        """The steps that may be named as the decisive one, in time order."""
        return tuple(step for step in self.steps if step.candidate)

    @property
    def agents(self) -> tuple[str, ...]:
        """The distinct agents of the candidate steps, in order of first appearance."""
        return tuple(dict.fromkeys(step.agent for step in self.candidates))

    def by_ref(self) -> dict[str, TimelineStep]:
        """Steps by reference."""
        return {step.ref: step for step in self.steps}

    def position(self, node_id: str, index: int) -> int | None:
        """The 0-based place of a step in time, None when it is not on the timeline."""
        for place, step in enumerate(self.steps):
            if step.node_id == node_id and step.index == index:
                return place
        return None


def timeline(root: TrajectoryNode, *, user_candidates: bool = False) -> Timeline:
    """The loaded steps of ``root`` and its subagents in time order (copied-context replays left out).

    The user's turns are candidates for the decisive step only with ``user_candidates``.
    """
    labels = {node.node_id: f"T{n}" for n, node in enumerate(iter_nodes(root))}
    unloaded = tuple(node.node_id for node in iter_nodes(root) if node.status is not NodeStatus.LOADED)
    return Timeline(root, tuple(_walk(root, labels, user_candidates)), unloaded)


def _walk(node: TrajectoryNode, labels: dict[str, str], users: bool) -> Iterator[TimelineStep]:
    if node.status is not NodeStatus.LOADED:
        return
    delegated: dict[int, list[TrajectoryNode]] = {}
    for child in node.children:
        delegated.setdefault(child.parent_step_index or len(node.steps), []).append(child)
    fallback = node.agent_name or "agent"
    for logical in node.steps:
        if not logical.copied:
            yield TimelineStep(f"{labels[node.node_id]}.{logical.index}", node.node_id, logical.index,
                               logical.step_id, logical.segment, step_agent(logical.step, fallback), logical.step,
                               users or logical.step.source != "user")
        for child in delegated.get(logical.index, []):
            yield from _walk(child, labels, users)


def step_agent(step: Step, fallback: str) -> str:
    """The agent a step belongs to: a speaker recorded by an importer, else ``fallback`` for agent steps."""
    speaker = _recorded_speaker(step.extra)
    if speaker is not None:
        return speaker
    return fallback if step.source == "agent" else step.source


def _recorded_speaker(extra: dict[str, Any] | None) -> str | None:
    """The speaker an import kept: its ``name``, else a ``role`` that names an agent.

    ``Orchestrator (-> WebSurfer)`` is ``Orchestrator``: the annotation in brackets is not part of the name;
    a bare chat role (``user``, ``assistant``...) names nobody.
    """
    origin = (extra or {}).get("who_and_when")
    if not isinstance(origin, dict):
        return None
    name = origin.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    role = origin.get("role")
    if not isinstance(role, str):
        return None
    named = _ANNOTATION.sub(" ", role).strip()
    return named if named and named.lower() not in _CHAT_ROLES else None


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
