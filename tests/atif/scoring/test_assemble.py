"""Finished node states into result records, and results into the run summary."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from tests.atif.nodes import node_from_document
from tests.atif.scripted import trajectory
from tracegrade.atif.criteria._sources import ResolvedCriteria
from tracegrade.atif.reading._records import InputAccount, InputStatus, NodeStatus, TrajectoryNode
from tracegrade.atif.scoring._assemble import node_results, summarize
from tracegrade.atif.scoring._engine import NodeState
from tracegrade.atif.scoring._maths import StepCoverage, SubagentAggregation, collection_score, coverage_rate
from tracegrade.atif.scoring._records import CategorizationStatus, NodeResult, NodeStatusCode, StepResult, StepStatus
from tracegrade.rubric import Criterion, Rubric, ScoringMode
from tracegrade.runs import JobStatus

CRITERIA = ResolvedCriteria(Rubric(criteria=(Criterion(name="quality", description="Good step"),)), ScoringMode.CUSTOM)


def node(node_id: str, count: int, *, depth: int = 0, **changes: object) -> TrajectoryNode:
    loaded = node_from_document(trajectory(*[f"m{i}" for i in range(count)]), node_id)
    return replace(loaded, depth=depth, **changes)  # type: ignore[arg-type]


def scored(state: NodeState, *scores: float | None, low: float = 0.5) -> NodeState:
    """Fill ``state`` with step results: a number is a score, None a step that did not run."""
    state.criteria = CRITERIA
    for logical, score in zip(state.node.steps, scores, strict=True):
        status = StepStatus.SCORED if score is not None else StepStatus.NOT_RUN
        state.steps[logical.index] = StepResult(
            index=logical.index, segment=0, step_id=logical.step_id, source="agent", status=status, score=score,
            failure_candidate=score is not None and score < low,
            categorization_status=CategorizationStatus.CATEGORIZED if score is not None and score < low
            else CategorizationStatus.NOT_NEEDED,
            category="context_loss" if score is not None and score < low else None,
        )
    return state


def test_a_tree_comes_out_in_order_with_its_links_scores_and_completeness() -> None:
    parent = scored(NodeState(node("p.json", 2), None), 0.8, 0.6)
    child = scored(NodeState(node("p.json::c.json", 2, depth=1, parent_step_index=2), parent), 0.4, 0.2)
    p, c = node_results([parent, child], completion_threshold=0.5)
    assert (p.node_id, p.root_id, p.children, c.parent_id, c.root_id, c.parent_step_index) == (
        "p.json", "p.json", ["p.json::c.json"], "p.json", "p.json", 2
    )
    assert (p.own_score, c.own_score, p.aggregate) == (pytest.approx(0.7), pytest.approx(0.3), pytest.approx(0.5))
    assert (p.step_count, p.subtree_step_count, p.complete, p.passed) == (2, 4, True, True)
    assert p.criteria is not None and p.criteria["scoring_mode"] == "custom"


def test_an_unfinished_child_adds_no_partial_score_and_leaves_its_parent_incomplete() -> None:
    parent = scored(NodeState(node("p.json", 2), None), 0.8, 0.6)
    child = scored(NodeState(node("p.json::c.json", 2, depth=1), parent), 0.4, None)
    p, c = node_results([parent, child], completion_threshold=0.5)
    assert (c.status, c.own_score, c.complete) == (NodeStatusCode.NOT_RUN, None, False)
    assert (c.step_count, c.total_steps) == (0, 2)
    assert (p.status, p.aggregate, p.subtree_step_count) == (NodeStatusCode.SCORED, pytest.approx(0.7), 2)
    assert p.complete is False and p.passed is False


def test_each_kind_of_node_gets_its_status_and_reason() -> None:
    invalid = NodeState(node("bad.json", 1, status=NodeStatus.INVALID, reason="invalid_json", steps=()), None)
    unscored = NodeState(node("deep.json", 1, status=NodeStatus.UNSCORED, reason="depth_limit"), None)
    failed = scored(NodeState(node("f.json", 1), None), 0.9)
    failed.error_code, failed.message = "timeout", "step 1: timeout"
    waiting = NodeState(node("w.json", 1), None)  # criteria never resolved
    records = {r.node_id: r for r in node_results([invalid, unscored, failed, waiting], 0.5)}
    assert (records["bad.json"].status, records["bad.json"].error_code) == (NodeStatusCode.INVALID, "invalid_json")
    assert (records["deep.json"].status, records["deep.json"].error_code) == (NodeStatusCode.UNSCORED, "depth_limit")
    assert (records["f.json"].status, records["f.json"].message) == (NodeStatusCode.FAILED, "step 1: timeout")
    assert records["w.json"].status is NodeStatusCode.NOT_RUN and records["w.json"].criteria is None


def records(*states: NodeState) -> list[NodeResult]:
    return node_results(list(states), 0.5)


def test_the_summary_counts_steps_nodes_and_low_steps_by_category() -> None:
    a = scored(NodeState(node("a.json", 3), None), 0.9, 0.2, 0.4)
    nodes = records(a, scored(NodeState(node("b.json", 1), None), 0.6))
    result = summarize(nodes, (), SubagentAggregation.FLAT, job_status=JobStatus.COMPLETED, failure_reason=None,
                       judge_counts={"requests": 4})
    assert result.atif_overall_score == pytest.approx((0.5 + 0.6) / 2) == result.overall_score
    assert (result.atif_trajectory_count, result.num_examples_evaluated, result.atif_complete) == (2, 2, True)
    assert result.counts == {"roots": 2, "nodes": 2, "nodes_scored": 2, "steps": 4, "steps_scored": 4,
                             "failure_candidates": 2, "invalid_inputs": 0, "skipped_inputs": 0}
    assert result.categories == {"context_loss": 2} and result.judge == {"requests": 4}
    assert result.repeats is None and result.job_status is JobStatus.COMPLETED


class _Walked(list[NodeResult]):
    """Nodes that count how often they are walked (spooled nodes are read back from disk each time)."""

    walks = 0

    def __iter__(self) -> Iterator[NodeResult]:
        self.walks += 1
        return super().__iter__()


@pytest.mark.parametrize("mode", list(SubagentAggregation))
def test_the_summary_walks_the_nodes_once_and_keeps_its_numbers(mode: SubagentAggregation) -> None:
    a = scored(NodeState(node("a.json", 3), None), 0.9, 0.2, 0.4)
    nodes = records(a, scored(NodeState(node("b.json", 2), None), 0.6, None))
    walked = _Walked(nodes)
    result = summarize(walked, (), mode, job_status=JobStatus.COMPLETED, failure_reason=None, judge_counts={})
    assert walked.walks == 1
    assert (result.atif_overall_score, result.atif_trajectory_count) == collection_score(nodes, mode)
    assert result.atif_failure_categorization_rate == coverage_rate(StepCoverage.of(n) for n in nodes) == 1.0


def test_a_job_whose_every_root_failed_or_that_had_none_fails_but_an_empty_shard_completes() -> None:
    failed = scored(NodeState(node("a.json", 1), None), 0.9)
    failed.error_code = "timeout"
    every = summarize(records(failed), (), SubagentAggregation.FLAT, job_status=JobStatus.COMPLETED,
                      failure_reason=None, judge_counts={})
    assert (every.job_status, every.failure_reason) == (JobStatus.FAILED, "every root trajectory failed")
    none = summarize([], (), SubagentAggregation.FLAT, job_status=JobStatus.COMPLETED, failure_reason=None,
                     judge_counts={})
    assert (none.job_status, none.failure_reason) == (JobStatus.FAILED, "no trajectories to score")
    shard = summarize([], (), SubagentAggregation.FLAT, job_status=JobStatus.COMPLETED, failure_reason=None,
                      judge_counts={}, shard=True)
    assert shard.job_status is JobStatus.COMPLETED and shard.atif_overall_score is None


def test_an_input_that_was_not_read_makes_the_run_incomplete() -> None:
    nodes = records(scored(NodeState(node("a.json", 1), None), 0.9))
    skipped = (InputAccount("link.json", "", InputStatus.SKIPPED, "ref_outside_root", "outside the input"),)
    result = summarize(nodes, skipped, SubagentAggregation.FLAT, job_status=JobStatus.COMPLETED,
                       failure_reason=None, judge_counts={})
    assert result.atif_complete is False and result.counts["skipped_inputs"] == 1
    assert result.job_status is JobStatus.COMPLETED and result.atif_overall_score == pytest.approx(0.9)
