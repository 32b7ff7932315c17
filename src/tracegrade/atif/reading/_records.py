"""Typed, immutable records produced by the ATIF loader."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from tracegrade.atif.reading._models import Step, SubagentTrajectoryRef, Trajectory

__all__ = ["FileReport", "FrozenRecord", "InputAccount", "InputStatus", "LoadResult", "LogicalStep", "NodeStatus",
           "TrajectoryNode", "iter_nodes"]


class FrozenRecord(BaseModel):
    """The base of the pydantic records every ATIF stage writes: immutable, unknown fields refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class InputStatus(StrEnum):
    """What happened to one input document."""

    LOADED = "loaded"
    INVALID = "invalid"
    SKIPPED = "skipped"


class NodeStatus(StrEnum):
    """Whether a tree node holds a usable trajectory."""

    LOADED = "loaded"
    """The trajectory was read and validated."""
    UNSCORED = "unscored"
    """Kept in the tree but deliberately not scored (``reason`` says why, e.g. ``depth_limit``)."""
    INVALID = "invalid"
    """The referenced trajectory could not be used (``reason`` holds a safe code)."""


@dataclass(frozen=True, slots=True)
class InputAccount:
    """The account of one input document (a file, or one line of a JSONL file)."""

    path: str
    """Path of the file as resolved on disk."""
    location: str
    """Place inside the file: ``""`` for a whole JSON file, ``"line N"`` for JSONL."""
    status: InputStatus
    code: str | None = None
    """Safe reason code when invalid or skipped (``invalid_json``, ``schema_violation``, ``too_large``...)."""
    message: str | None = None
    """One-line human explanation naming the place in the file."""


@dataclass(frozen=True, slots=True)
class LogicalStep:
    """One step of a logical trajectory (continuation segments joined)."""

    index: int
    """1-based position in the logical trajectory, across continuation segments."""
    segment: int
    """0 for the main document, 1.. for continuation segments in order."""
    step: Step
    copied: bool
    """True when the producer marked the step ``is_copied_context`` (a replay of earlier context)."""

    @property
    def step_id(self) -> int:
        """The producer's ``step_id`` inside its own segment."""
        return self.step.step_id


@dataclass(frozen=True, slots=True)
class TrajectoryNode:
    """A node of a trajectory tree: a root trajectory or a subagent it delegated to."""

    node_id: str
    """Stable identifier: the root-relative path, plus ``#/subagent_trajectories/i`` or ``->ref`` segments."""
    source_path: str
    """File the trajectory was (or would have been) read from."""
    location: str
    """JSON pointer of the trajectory inside ``source_path`` (``""`` for the document root)."""
    depth: int
    """0 for roots, parent depth + 1 for subagents."""
    status: NodeStatus
    trajectory: Trajectory | None
    """The main segment's model (agent, tool definitions, extras); None when not loaded, and in an outline."""
    steps: tuple[LogicalStep, ...] = ()
    segments: tuple[str, ...] = ()
    """Files of continuation segments joined after the main document, in order."""
    children: tuple[TrajectoryNode, ...] = ()
    reason: str | None = None
    """Safe code for UNSCORED/INVALID nodes (``depth_limit``, ``ref_outside_root``, ``cycle``...)."""
    message: str | None = None
    parent_step_index: int | None = None
    """Logical index of the parent step whose observation delegated to this node."""
    ref: SubagentTrajectoryRef | None = None
    """The reference that led to this node (None for roots)."""
    embedded: bool = False
    """True for subagents embedded in the parent's ``subagent_trajectories``."""

    @property
    def trajectory_id(self) -> str | None:
        """The document's ``trajectory_id`` (or the ref's when not loaded)."""
        if self.trajectory is not None and self.trajectory.trajectory_id:
            return self.trajectory.trajectory_id
        return self.ref.trajectory_id if self.ref is not None else None

    @property
    def agent_name(self) -> str | None:
        """The agent's name when loaded."""
        return self.trajectory.agent.name if self.trajectory is not None else None


def iter_nodes(node: TrajectoryNode) -> Iterator[TrajectoryNode]:
    """Yield ``node`` and all its descendants, depth first, parents before children."""
    yield node
    for child in node.children:
        yield from iter_nodes(child)


@dataclass(frozen=True, slots=True)
class FileReport:
    """Per-file verdict for ``tracegrade validate``."""

    path: str
    location: str
    valid: bool
    schema_version: str | None = None
    agent: str | None = None
    steps: int | None = None
    embedded_subagents: int = 0
    file_subagents: int = 0
    continuation: str | None = None
    role: str = "root"
    """``root``, ``subagent`` or ``continuation``: how other input files reference this one."""
    code: str | None = None
    error: str | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LoadResult:
    """Everything the loader read: the trees and an account of every input."""

    roots: tuple[TrajectoryNode, ...]
    inputs: tuple[InputAccount, ...]
    files: tuple[FileReport, ...] = field(default=())

    @property
    def invalid_inputs(self) -> tuple[InputAccount, ...]:
        """Inputs that could not be used."""
        return tuple(a for a in self.inputs if a.status is InputStatus.INVALID)

    @property
    def all_valid(self) -> bool:
        """True when every input loaded and every reference resolved."""
        return not self.invalid_inputs and all(
            n.status is not NodeStatus.INVALID for r in self.roots for n in iter_nodes(r)
        )
