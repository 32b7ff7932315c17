"""Turn finished node states into result records and the run summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tracegrade.atif.criteria._sources import CriteriaFailure, ResolvedCriteria
from tracegrade.atif.reading._records import InputAccount, InputStatus, NodeStatus
from tracegrade.atif.scoring._engine import NodeState
from tracegrade.atif.scoring._maths import (
    NO_SCORED_STEP,
    NodeDraft,
    NodeRollup,
    StepCoverage,
    SubagentAggregation,
    collection_score,
    coverage_rate,
    rollup,
)
from tracegrade.atif.scoring._records import NodeResult, NodeStatusCode, RunSummary, StepResult, StepStatus
from tracegrade.atif.scoring._repeats import repeat_summary
from tracegrade.runs import JobStatus

__all__ = ["node_results", "summarize"]


def node_results(states: Sequence[NodeState], completion_threshold: float) -> list[NodeResult]:
    """Result records in tree order, with own scores, aggregates, completeness and pass/fail."""
    children: dict[str, list[NodeState]] = {}
    for state in states:
        if state.parent is not None:
            children.setdefault(state.parent.node.node_id, []).append(state)
    statuses = {s.node.node_id: _status(s) for s in states}
    rollups: dict[str, NodeRollup] = {}
    for state in states:
        if state.parent is None:
            rollups.update(rollup(_draft(state, children, statuses), completion_threshold))
    return [_record(s, statuses[s.node.node_id], rollups[s.node.node_id], children) for s in states]


def _status(state: NodeState) -> NodeStatusCode:
    node = state.node
    if node.status is NodeStatus.INVALID:
        return NodeStatusCode.INVALID
    if node.status is NodeStatus.UNSCORED:
        return NodeStatusCode.UNSCORED
    if state.error_code is not None:
        return NodeStatusCode.FAILED
    if any(s.status is StepStatus.NOT_RUN for s in state.steps.values()) or state.criteria is None:
        return NodeStatusCode.NOT_RUN
    return NodeStatusCode.SCORED


def _draft(state: NodeState, children: Mapping[str, list[NodeState]],
           statuses: Mapping[str, NodeStatusCode]) -> NodeDraft:
    node_id = state.node.node_id
    scores = tuple(s.score for s in _ordered(state) if s.status is StepStatus.SCORED and s.score is not None)
    kids = tuple(_draft(c, children, statuses) for c in children.get(node_id, []))
    return NodeDraft(node_id, statuses[node_id], scores, kids)


def _ordered(state: NodeState) -> list[StepResult]:
    return [state.steps[i] for i in sorted(state.steps)]


def _record(state: NodeState, status: NodeStatusCode, roll: NodeRollup,
            children: Mapping[str, list[NodeState]]) -> NodeResult:
    node = state.node
    trajectory = node.trajectory
    root = state
    while root.parent is not None:
        root = root.parent
    criteria = state.criteria
    provenance = criteria.provenance() if isinstance(criteria, ResolvedCriteria | CriteriaFailure) else None
    error_code = state.error_code
    if status in (NodeStatusCode.INVALID, NodeStatusCode.UNSCORED):
        error_code = node.reason
    return NodeResult(node_id=node.node_id, parent_id=state.parent.node.node_id if state.parent is not None else None,
                      root_id=root.node.node_id, source_path=node.source_path, location=node.location,
                      trajectory_id=node.trajectory_id,
                      session_id=trajectory.session_id if trajectory is not None else None, agent=node.agent_name,
                      depth=node.depth, status=status, error_code=error_code, message=state.message or node.message,
                      complete=roll.complete, own_score=roll.own_score, aggregate=roll.aggregate, passed=roll.passed,
                      step_count=roll.step_count, subtree_step_count=roll.subtree_step_count,
                      total_steps=len(node.steps), parent_step_index=node.parent_step_index,
                      children=[c.node.node_id for c in children.get(node.node_id, [])], criteria=provenance,
                      steps=_ordered(state))


def summarize(nodes: Sequence[NodeResult], inputs: Sequence[InputAccount], mode: SubagentAggregation, *,
              job_status: JobStatus, failure_reason: str | None, judge_counts: Mapping[str, int], shard: bool = False,
              repeats: int = 1) -> RunSummary:
    """The headline metrics and counts of a run (pure: a merge of shards calls it too).

    A shard that received no roots completes with zero roots (``shard=True``); a whole job with
    nothing to score fails. ``atif_complete`` is false when any input was invalid or skipped.
    """
    heads: list[_Scores] = []  # what the collection score and the categorisation rate read, kept from the walk
    coverage: list[StepCoverage] = []
    roots = failed_roots = steps = candidates = 0
    every_node_complete = True
    node_status: Counter[str] = Counter()
    step_status: Counter[str] = Counter()
    categories: Counter[str] = Counter()
    for node in nodes:  # one walk: spooled nodes are read back each time they are walked
        root_id = node.node_id if node.root_id == node.node_id else node.root_id  # a root: one string for both
        heads.append(_Scores(node.node_id, root_id, node.depth, node.status, node.own_score, node.aggregate))
        coverage.append(StepCoverage.of(node))
        node_status[node.status.value] += 1
        every_node_complete = every_node_complete and node.status is NodeStatusCode.SCORED and node.complete
        if node.depth == 0:
            roots += 1
            failed_roots += node.status is NodeStatusCode.FAILED
        steps += len(node.steps)
        for step in node.steps:
            step_status[step.status.value] += 1
            if step.failure_candidate:
                candidates += 1
                categories[step.category or step.categorization_status.value] += 1
    if job_status == JobStatus.COMPLETED and roots and failed_roots == roots:
        job_status, failure_reason = JobStatus.FAILED, "every root trajectory failed"
    if job_status == JobStatus.COMPLETED and not roots and not shard:
        job_status, failure_reason = JobStatus.FAILED, "no trajectories to score"
    invalid_inputs = sum(1 for a in inputs if a.status is InputStatus.INVALID)
    skipped_inputs = sum(1 for a in inputs if a.status is InputStatus.SKIPPED)
    complete = job_status == JobStatus.COMPLETED and invalid_inputs == 0 and skipped_inputs == 0 and every_node_complete
    counts = {
        "roots": roots,
        **({"roots_failed": failed_roots} if failed_roots else {}),  # present only when a root failed
        "nodes": len(nodes),
        **{f"nodes_{k}": v for k, v in sorted(node_status.items())},
        "steps": steps,
        **{f"steps_{k}": v for k, v in sorted(step_status.items())},
        "failure_candidates": candidates,
        "invalid_inputs": invalid_inputs,
        "skipped_inputs": skipped_inputs,
    }
    score, count = collection_score(heads, mode)
    rate = coverage_rate(coverage)
    null_reasons = {"atif_failure_categorization_rate": NO_SCORED_STEP} if rate is None else {}
    return RunSummary(atif_overall_score=score, atif_trajectory_count=count, atif_failure_categorization_rate=rate,
                      overall_score=score, num_examples_evaluated=count, atif_complete=complete,
                      subagent_aggregation=mode.value, job_status=job_status, failure_reason=failure_reason,
                      counts=counts, categories=dict(sorted(categories.items())), judge=dict(judge_counts),
                      repeats=repeat_summary(nodes, score, mode.value, repeats) if repeats > 1 else None,
                      null_reasons=null_reasons)


@dataclass(frozen=True, slots=True)
class _Scores:
    """The values of a node the collection score reads (:class:`~tracegrade.atif.scoring._maths.NodeScores`)."""

    node_id: str
    root_id: str
    depth: int
    status: NodeStatusCode
    own_score: float | None
    aggregate: float | None
