"""Build trajectory trees: join continuations, resolve embedded and file-ref subagents."""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from tracegrade.atif.reading._document import Document, DocumentProblem
from tracegrade.atif.reading._models import (
    Agent,
    Observation,
    ObservationResult,
    Step,
    SubagentTrajectoryRef,
    Trajectory,
)
from tracegrade.atif.reading._records import LogicalStep, NodeStatus, TrajectoryNode
from tracegrade.atif.reading._refs import RefProblem, resolve_ref

__all__ = ["RefIssue", "StepRefs", "TreeBuilder", "iter_file_refs", "skeleton"]

FileLoader = Callable[[Path], Document | DocumentProblem]


@dataclass(frozen=True, slots=True)
class RefIssue:
    """A reference that could not be followed, recorded against the file that made it."""

    referrer: Path
    location: str
    target: str
    code: str
    message: str


@dataclass(slots=True)
class _Segment:
    trajectory: Trajectory
    path: Path
    pointer: str
    first_index: int


StepRef = tuple[int, int, int, SubagentTrajectoryRef]
"""A subagent reference in a step: (step offset, observation result index, index in the list, the ref)."""


class StepRefs:
    """What tree building reads from each trajectory's steps (subagent references, ``is_copied_context`` flags).

    Found with one walk per trajectory per load, which the loader makes right after validating a document.
    """

    def __init__(self) -> None:
        self._found: dict[int, tuple[Trajectory, list[StepRef], list[bool]]] = {}

    def of(self, trajectory: Trajectory) -> list[StepRef]:
        """The references of ``trajectory``'s steps, in document order."""
        return self._entry(trajectory)[1]

    def copied(self, trajectory: Trajectory) -> list[bool]:
        """Whether each step is marked ``is_copied_context``."""
        return self._entry(trajectory)[2]

    def _entry(self, trajectory: Trajectory) -> tuple[Trajectory, list[StepRef], list[bool]]:
        hit = self._found.get(id(trajectory))
        if hit is None or hit[0] is not trajectory:
            hit = (trajectory, *_walk_steps(trajectory))  # holding the model keeps its id unique
            self._found[id(trajectory)] = hit
        return hit


def _walk_steps(trajectory: Trajectory) -> tuple[list[StepRef], list[bool]]:
    found: list[StepRef] = []
    copied: list[bool] = []
    for offset, step in enumerate(trajectory.steps):
        copied.append(bool(step.is_copied_context))
        observation = step.observation
        if observation is None:
            continue
        for r_index, result in enumerate(observation.results):
            refs = result.subagent_trajectory_ref
            if refs:
                found.extend((offset, r_index, k, ref) for k, ref in enumerate(refs))
    return found, copied


def iter_file_refs(trajectory: Trajectory, refs: StepRefs | None = None) -> Iterator[str]:
    """Yield every file path a document references (subagents at any embedding depth, continuation)."""
    if trajectory.continued_trajectory_ref:
        yield trajectory.continued_trajectory_ref
    for _, _, _, ref in (refs or StepRefs()).of(trajectory):
        if ref.trajectory_path and not _embedded_target(trajectory, ref):
            yield ref.trajectory_path
    for sub in trajectory.subagent_trajectories or ():
        yield from iter_file_refs(sub, refs)


def skeleton(trajectory: Trajectory, refs: StepRefs | None = None, *, document: bool = False) -> Trajectory:
    """A copy of a validated trajectory keeping only what tree building reads.

    Kept: version, ids, agent name, continuation and subagent references, embedded subagents (as skeletons)
    and the number of steps; a step without references becomes a shared placeholder, and a whole ``document``
    without references, subagents or continuation the skeleton shared by all such documents.
    """
    subs = trajectory.subagent_trajectories
    offsets = {offset for offset, _, _, _ in (refs or StepRefs()).of(trajectory)}
    if document and not offsets and subs is None and trajectory.continued_trajectory_ref is None:
        agent = trajectory.agent
        return _leaf_skeleton(sys.intern(trajectory.schema_version), agent.name, agent.version, len(trajectory.steps))
    if offsets:
        steps = [_PLACEHOLDER_STEP] * len(trajectory.steps)
        for offset in offsets:
            steps[offset] = _skeleton_step(trajectory.steps[offset])
    else:
        steps = _placeholder_steps(len(trajectory.steps))
    return Trajectory.model_construct(
        _SKELETON_FIELDS,
        schema_version=sys.intern(trajectory.schema_version),  # type: ignore[arg-type]
        trajectory_id=trajectory.trajectory_id,
        agent=_agent_skeleton(trajectory.agent.name, trajectory.agent.version),
        steps=steps,
        continued_trajectory_ref=trajectory.continued_trajectory_ref,
        subagent_trajectories=None if subs is None else [skeleton(sub, refs) for sub in subs],
    )


_SKELETON_FIELDS = {
    "schema_version", "trajectory_id", "agent", "steps", "continued_trajectory_ref", "subagent_trajectories"
}
"""The fields every skeleton is given, one set shared by all of them (skeletons are never changed)."""
_AGENT_FIELDS = {"name", "version"}

_PLACEHOLDER_STEP = Step.model_construct(step_id=1, source="agent", message="")


@lru_cache(maxsize=1024)
def _placeholder_steps(count: int) -> list[Step]:
    """The steps of a skeleton without references: one list per length, shared by every such skeleton."""
    return [_PLACEHOLDER_STEP] * count


@lru_cache(maxsize=1024)
def _leaf_skeleton(schema_version: str, name: str, version: str, count: int) -> Trajectory:
    """The skeleton of every document without references, subagents or continuation with these values."""
    return Trajectory.model_construct(
        _SKELETON_FIELDS,
        schema_version=schema_version,  # type: ignore[arg-type]
        trajectory_id=None,
        agent=_agent_skeleton(name, version),
        steps=_placeholder_steps(count),
        continued_trajectory_ref=None,
        subagent_trajectories=None,
    )


@lru_cache(maxsize=1024)
def _agent_skeleton(name: str, version: str) -> Agent:
    """The agent of a skeleton, one per name and version (a collection's documents mostly share theirs)."""
    return Agent.model_construct(_AGENT_FIELDS, name=name, version=version)


def _skeleton_step(step: Step) -> Step:
    results = step.observation.results if step.observation else []
    kept = [ObservationResult.model_construct(subagent_trajectory_ref=r.subagent_trajectory_ref) for r in results]
    return Step.model_construct(
        step_id=step.step_id, source=step.source, message="", observation=Observation.model_construct(results=kept)
    )


def _embedded_target(trajectory: Trajectory, ref: SubagentTrajectoryRef) -> tuple[int, Trajectory] | None:
    if not ref.trajectory_id:
        return None
    for index, sub in enumerate(trajectory.subagent_trajectories or ()):
        if sub.trajectory_id == ref.trajectory_id:
            return index, sub
    return None


@dataclass
class TreeBuilder:
    """Turns root documents into trees; one builder per load."""

    root: Path
    base: Path
    max_depth: int
    load_file: FileLoader
    keep_steps: bool = True
    """False: nodes get neither ``steps`` nor their ``trajectory`` model (only ids, references and counts are
    wanted, as in ``validate`` and a job's outline)."""
    refs: StepRefs = field(default_factory=StepRefs)
    """Shared by the builders of one load, so each trajectory's steps are searched for references once."""
    issues: list[RefIssue] = field(default_factory=list)
    step_count: int = 0
    """Steps of every node built so far (a file reached twice counts twice)."""
    loaded_steps: int = 0
    """Steps of the nodes built so far within the depth limit (the steps a job scores)."""

    def build(self, document: Document, source_path: str | None = None) -> TrajectoryNode:
        """Build the tree whose root is ``document`` (``source_path``: its file as a string the caller keeps)."""
        node_id = os.path.relpath(document.path, self.base).replace(os.sep, "/")
        if document.location:
            node_id += ":" + document.location.removeprefix("line ")
        chain = frozenset({document.path})
        return self._node(document.trajectory, document.path, "", 0, node_id, chain, source_path=source_path)

    def _node(self, trajectory: Trajectory, path: Path, pointer: str, depth: int, node_id: str, chain: frozenset[Path],
              ref: SubagentTrajectoryRef | None = None, parent_step_index: int | None = None, embedded: bool = False,
              source_path: str | None = None) -> TrajectoryNode:
        segments, chain, broken = self._segments(trajectory, path, pointer, node_id, chain, depth)
        count = sum(len(seg.trajectory.steps) for seg in segments)
        over = depth > self.max_depth
        self.step_count += count
        self.loaded_steps += 0 if over else count
        steps = tuple([LogicalStep(index, number, step, copied)
                       for number, seg in enumerate(segments)
                       for index, (step, copied) in enumerate(
                           zip(seg.trajectory.steps, self.refs.copied(seg.trajectory), strict=True),
                           start=seg.first_index)]) if self.keep_steps else ()
        children = self._children(segments, depth, node_id, chain) + broken
        return TrajectoryNode(
            node_id=node_id, source_path=source_path or str(path), location=pointer, depth=depth,
            status=NodeStatus.UNSCORED if over else NodeStatus.LOADED,
            trajectory=trajectory if self.keep_steps else None, steps=steps,
            segments=tuple(str(seg.path) for seg in segments[1:]), children=children,
            reason="depth_limit" if over else None,
            message=f"depth {depth} is beyond max_subagent_depth={self.max_depth}" if over else None,
            parent_step_index=parent_step_index, ref=ref, embedded=embedded,
        )

    def _segments(self, trajectory: Trajectory, path: Path, pointer: str, node_id: str, chain: frozenset[Path],
                  depth: int) -> tuple[list[_Segment], frozenset[Path], tuple[TrajectoryNode, ...]]:
        segments = [_Segment(trajectory, path, pointer, 1)]
        current = segments[0]
        while current.trajectory.continued_trajectory_ref:
            target = current.trajectory.continued_trajectory_ref
            loaded = self._follow(target, current.path, f"{current.pointer}/continued_trajectory_ref", chain)
            if isinstance(loaded, RefProblem):
                broken = self._invalid(f"{node_id}::continuation", current.path, target, loaded, depth + 1)
                return segments, chain, (broken,)
            next_path, document = loaded
            chain = chain | {next_path}
            first = current.first_index + len(current.trajectory.steps)
            current = _Segment(document.trajectory, next_path, "", first)
            segments.append(current)
        return segments, chain, ()

    def _children(self, segments: list[_Segment], depth: int, node_id: str,
                  chain: frozenset[Path]) -> tuple[TrajectoryNode, ...]:
        children: list[TrajectoryNode] = []
        labels: defaultdict[str, int] = defaultdict(int)
        for seg in segments:
            used: set[int] = set()
            for offset, r_index, k, ref in self.refs.of(seg.trajectory):
                where = f"{seg.pointer}/steps/{offset}/observation/results/{r_index}/subagent_trajectory_ref/{k}"
                child = self._child(seg, ref, where, depth, node_id, chain, seg.first_index + offset, used, labels)
                children.append(child)
            for index, sub in enumerate(seg.trajectory.subagent_trajectories or ()):
                if index not in used:
                    name = sub.trajectory_id or str(index)
                    children.append(self._embedded(seg, index, sub, name, depth, node_id, chain, labels))
        return tuple(children)

    def _child(self, seg: _Segment, ref: SubagentTrajectoryRef, where: str, depth: int, node_id: str,
               chain: frozenset[Path], step_index: int, used: set[int],
               labels: defaultdict[str, int]) -> TrajectoryNode:
        embedded = _embedded_target(seg.trajectory, ref)
        if embedded is not None:
            index, sub = embedded
            used.add(index)
            return self._embedded(seg, index, sub, ref.trajectory_id or str(index), depth, node_id, chain, labels, ref,
                                  step_index)
        target = ref.trajectory_path or ""
        label = self._label(target, labels)
        loaded = self._follow(target, seg.path, where, chain)
        if isinstance(loaded, RefProblem):
            return self._invalid(f"{node_id}::{label}", seg.path, target, loaded, depth + 1, ref, step_index)
        child_path, document = loaded
        return self._node(document.trajectory, child_path, "", depth + 1, f"{node_id}::{label}", chain | {child_path},
                          ref, step_index)

    def _embedded(self, seg: _Segment, index: int, sub: Trajectory, name: str, depth: int, node_id: str,
                  chain: frozenset[Path], labels: defaultdict[str, int], ref: SubagentTrajectoryRef | None = None,
                  step_index: int | None = None) -> TrajectoryNode:
        """The node of the sub-agent embedded at ``index`` of ``seg`` (``name`` makes its label)."""
        child_id = f"{node_id}::{self._label(name, labels)}"
        pointer = f"{seg.pointer}/subagent_trajectories/{index}"
        return self._node(sub, seg.path, pointer, depth + 1, child_id, chain, ref, step_index, embedded=True)

    def _follow(self, target: str, referrer: Path, where: str,
                chain: frozenset[Path]) -> tuple[Path, Document] | RefProblem:
        resolved = resolve_ref(target, referrer, self.root)
        if isinstance(resolved, RefProblem):
            problem = resolved
        elif resolved in chain:
            problem = RefProblem("cycle", f"reference {target!r} leads back to a file already on this path")
        else:
            loaded = self.load_file(resolved)
            if isinstance(loaded, Document):
                return resolved, loaded
            problem = RefProblem(loaded.code, f"referenced file is invalid: {loaded.describe()}")
        self.issues.append(RefIssue(referrer, where, target, problem.code, problem.message))
        return problem

    def _invalid(self, node_id: str, referrer: Path, target: str, problem: RefProblem, depth: int,
                 ref: SubagentTrajectoryRef | None = None, step_index: int | None = None) -> TrajectoryNode:
        source = str(referrer.parent / target) if target else str(referrer)
        return TrajectoryNode(node_id=node_id, source_path=source, location="", depth=depth, status=NodeStatus.INVALID,
                              trajectory=None, reason=problem.code, message=problem.message,
                              parent_step_index=step_index, ref=ref)

    @staticmethod
    def _label(label: str, labels: defaultdict[str, int]) -> str:
        labels[label] += 1
        return label if labels[label] == 1 else f"{label}#{labels[label]}"
