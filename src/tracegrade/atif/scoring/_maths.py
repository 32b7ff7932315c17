"""Pure score maths: node roll-ups over the subagent tree and collection metrics."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from tracegrade.atif.scoring._params import SubagentAggregation
from tracegrade.atif.scoring._records import CategorizationStatus, NodeResult, NodeStatusCode, StepStatus

__all__ = ["NodeDraft", "NodeRollup", "NodeScores", "StepCoverage", "SubagentAggregation", "collection_score",
           "coverage_rate", "mean", "rollup"]


@dataclass(frozen=True, slots=True)
class NodeDraft:
    """What the maths needs of a node: its status, its scored steps and its children."""

    node_id: str
    status: NodeStatusCode
    step_scores: tuple[float, ...]
    children: tuple[NodeDraft, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeRollup:
    """Scores of one node once its subtree is known."""

    own_score: float | None
    aggregate: float | None
    complete: bool
    passed: bool | None
    step_count: int
    subtree_step_count: int


def mean(values: Iterable[float]) -> float | None:
    """Arithmetic mean, or None for no values."""
    items = list(values)
    return sum(items) / len(items) if items else None


def rollup(draft: NodeDraft, completion_threshold: float) -> dict[str, NodeRollup]:
    """Roll scores up the tree rooted at ``draft``; returns one entry per node id.

    own = mean of the node's step scores; aggregate = (own * own_steps + sum(child_aggregate *
    child_steps)) / (own_steps + sum(child_steps)) over children that have an aggregate. A node is
    complete when it scored and every descendant scored; it passes when complete and its aggregate
    is at least ``completion_threshold``.
    """
    out: dict[str, NodeRollup] = {}
    _rollup(draft, completion_threshold, out)
    return out


def _rollup(draft: NodeDraft, threshold: float, out: dict[str, NodeRollup]) -> NodeRollup:
    children = [_rollup(child, threshold, out) for child in draft.children]
    scored = draft.status is NodeStatusCode.SCORED
    own = mean(draft.step_scores) if scored else None
    own_steps = len(draft.step_scores) if scored else 0
    weighted = [(c.aggregate, c.subtree_step_count) for c in children if c.aggregate is not None]
    total_steps = own_steps + sum(steps for _, steps in weighted)
    aggregate: float | None = None
    if scored and total_steps > 0:
        aggregate = ((own or 0.0) * own_steps + sum(a * s for a, s in weighted)) / total_steps
    complete = scored and all(c.complete for c in children)
    passed = None if aggregate is None else complete and aggregate >= threshold
    result = NodeRollup(own, aggregate, complete, passed, own_steps, total_steps if scored else 0)
    out[draft.node_id] = result
    return result


class NodeScores(Protocol):
    """What the collection score reads of a node (a :class:`NodeResult`, or a copy of just these values)."""

    @property
    def node_id(self) -> str: ...
    @property
    def root_id(self) -> str: ...
    @property
    def depth(self) -> int: ...
    @property
    def status(self) -> NodeStatusCode: ...
    @property
    def own_score(self) -> float | None: ...
    @property
    def aggregate(self) -> float | None: ...


def collection_score(nodes: Sequence[NodeScores], mode: SubagentAggregation) -> tuple[float | None, int]:
    """The collection score and how many trajectories contribute to it."""
    if mode is SubagentAggregation.FLAT:
        # only the subtrees of roots that scored count (as in the other modes)
        good_roots = {n.node_id for n in nodes if n.depth == 0 and n.status is NodeStatusCode.SCORED}
        values = [
            n.own_score
            for n in nodes
            if n.status is NodeStatusCode.SCORED and n.own_score is not None and n.root_id in good_roots
        ]
    elif mode is SubagentAggregation.HIERARCHICAL:
        values = [n.aggregate for n in nodes if n.depth == 0 and n.aggregate is not None]
    else:
        values = [n.own_score for n in nodes if n.depth == 0 and n.own_score is not None]
    scores = [v for v in values if v is not None]
    return mean(scores), len(scores)


NO_SCORED_STEP = "no step was scored, so no failure could be detected"
"""Why ``atif_failure_categorization_rate`` is null."""


@dataclass(frozen=True, slots=True)
class StepCoverage:
    """What the categorisation rate reads of one node's steps."""

    scored: bool
    """A step was scored."""
    flagged: bool
    """A step scored below the failure threshold."""
    categorized: bool
    """Every such step got an actionable category."""

    @classmethod
    def of(cls, node: NodeResult) -> StepCoverage:
        scored = flagged = False
        categorized = True
        for step in node.steps:
            scored = scored or step.status is StepStatus.SCORED
            if step.failure_candidate:
                flagged = True
                categorized = categorized and step.categorization_status is CategorizationStatus.CATEGORIZED
        return _coverage(scored, flagged, categorized)


@cache
def _coverage(scored: bool, flagged: bool, categorized: bool) -> StepCoverage:
    """One record per combination, shared by the nodes (a summary keeps one per node while it walks them)."""
    return StepCoverage(scored, flagged, categorized)


def coverage_rate(nodes: Iterable[StepCoverage]) -> float | None:
    """Share of nodes with low-scoring steps whose every low step got an actionable category.

    ``none`` (abstention), uncategorised answers and judge errors all count against coverage. By convention
    the rate is 1.0 when steps were scored and none scored low; it is None when no step was scored at all
    (:data:`NO_SCORED_STEP`). It reflects the validity of the judge's answers, not whether the categories are
    right.
    """
    scored = False
    low = covered = 0
    for node in nodes:
        scored = scored or node.scored
        if node.flagged:
            low += 1
            covered += node.categorized
    if not scored:
        return None
    return covered / low if low else 1.0
