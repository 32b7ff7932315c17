from __future__ import annotations

import pytest

from tracegrade.atif.scoring._maths import (
    NodeDraft,
    StepCoverage,
    SubagentAggregation,
    collection_score,
    coverage_rate,
    rollup,
)
from tracegrade.atif.scoring._records import CategorizationStatus, NodeResult, NodeStatusCode, StepResult, StepStatus

S = NodeStatusCode


def test_parent_and_child_aggregate_by_step_count() -> None:
    child = NodeDraft("c", S.SCORED, (0.4, 0.2))
    out = rollup(NodeDraft("p", S.SCORED, (0.8, 0.6), (child,)), 0.5)
    assert out["p"].own_score == pytest.approx(0.7)
    assert out["c"].own_score == pytest.approx(0.3)
    assert out["p"].aggregate == pytest.approx((0.7 * 2 + 0.3 * 2) / 4)
    assert out["p"].passed is True and out["c"].passed is False


def test_zero_step_parent_with_three_perfect_child_steps() -> None:
    child = NodeDraft("c", S.SCORED, (1.0, 1.0, 1.0))
    out = rollup(NodeDraft("p", S.SCORED, (0.0,), (child,)), 0.5)
    assert out["p"].own_score == 0.0
    assert out["p"].aggregate == pytest.approx(0.75)


def test_grandchild_weight_uses_subtree_steps() -> None:
    grand = NodeDraft("g", S.SCORED, (0.0, 0.0))
    child = NodeDraft("c", S.SCORED, (1.0,), (grand,))
    out = rollup(NodeDraft("p", S.SCORED, (1.0,), (child,)), 0.5)
    assert out["c"].aggregate == pytest.approx(1 / 3) and out["c"].subtree_step_count == 3
    assert out["p"].aggregate == pytest.approx(2 / 4)


@pytest.mark.parametrize("status", [S.FAILED, S.UNSCORED, S.INVALID, S.NOT_RUN])
def test_missing_child_makes_ancestors_incomplete(status: NodeStatusCode) -> None:
    bad = NodeDraft("bad", status, ())
    mid = NodeDraft("mid", S.SCORED, (1.0,), (bad,))
    out = rollup(NodeDraft("root", S.SCORED, (1.0,), (mid,)), 0.5)
    assert not out["root"].complete and not out["mid"].complete
    assert out["root"].aggregate == 1.0 and out["root"].passed is False
    assert out["bad"].aggregate is None and out["bad"].passed is None


def test_threshold_is_inclusive() -> None:
    assert rollup(NodeDraft("n", S.SCORED, (0.5,)), 0.5)["n"].passed is True


def test_genuine_zero_is_a_score() -> None:
    out = rollup(NodeDraft("n", S.SCORED, (0.0, 0.0)), 0.0)
    assert out["n"].aggregate == 0.0 and out["n"].passed is True


def _node(
    node_id: str,
    depth: int,
    own: float | None,
    agg: float | None,
    status: NodeStatusCode = S.SCORED,
    steps: list[StepResult] | None = None,
    root: str | None = None,
) -> NodeResult:
    return NodeResult(
        node_id=node_id,
        parent_id=root,
        root_id=root or node_id,
        source_path="x",
        location="",
        trajectory_id=None,
        session_id=None,
        agent=None,
        depth=depth,
        status=status,
        complete=True,
        own_score=own,
        aggregate=agg,
        passed=None,
        step_count=0,
        subtree_step_count=0,
        total_steps=0,
        steps=steps or [],
    )


def test_collection_modes() -> None:
    # parent (0.8, 0.6) with child (0.4, 0.2): flat 0.5, hierarchical 0.5, separate 0.7
    nodes = [_node("p", 0, 0.7, 0.5), _node("c", 1, 0.3, 0.3, root="p"), _node("q", 0, 1.0, 1.0)]
    assert collection_score(nodes, SubagentAggregation.FLAT) == (pytest.approx((0.7 + 0.3 + 1.0) / 3), 3)
    assert collection_score(nodes, SubagentAggregation.HIERARCHICAL) == (pytest.approx(0.75), 2)
    assert collection_score(nodes, SubagentAggregation.SEPARATE) == (pytest.approx(0.85), 2)


def test_flat_is_not_step_weighted() -> None:
    nodes = [_node("a", 0, 1.0, 1.0), _node("b", 1, 0.0, 0.0, root="a")]
    assert collection_score(nodes, SubagentAggregation.FLAT)[0] == 0.5


def test_flat_counts_only_the_subtrees_of_successful_roots() -> None:
    # root f failed, but its child g scored 0.0; only root a (1.0) and its child b (0.5) count
    nodes = [
        _node("a", 0, 1.0, 0.75),
        _node("b", 1, 0.5, 0.5, root="a"),
        _node("f", 0, None, None, S.FAILED),
        _node("g", 1, 0.0, 0.0, root="f"),
    ]
    assert collection_score(nodes, SubagentAggregation.FLAT) == (pytest.approx(0.75), 2)


def test_failed_nodes_do_not_count() -> None:
    nodes = [_node("a", 0, None, None, S.FAILED), _node("b", 0, 0.4, 0.4)]
    for mode in SubagentAggregation:
        assert collection_score(nodes, mode) == (pytest.approx(0.4), 1)
    assert collection_score([_node("a", 0, None, None, S.FAILED)], SubagentAggregation.FLAT) == (None, 0)


def _step(candidate: bool, status: CategorizationStatus) -> StepResult:
    return StepResult(
        index=1,
        segment=0,
        step_id=1,
        source="agent",
        status=StepStatus.SCORED,
        score=0.1,
        failure_candidate=candidate,
        categorization_status=status,
    )


def categorization_rate(nodes: list[NodeResult]) -> float | None:
    return coverage_rate(StepCoverage.of(node) for node in nodes)


def test_categorization_rate_edges() -> None:
    C = CategorizationStatus
    assert categorization_rate([_node("a", 0, 1.0, 1.0, steps=[_step(False, C.NOT_NEEDED)])]) == 1.0
    assert categorization_rate([]) is None  # nothing scored: no failure could have been detected
    nodes = [
        _node("a", 0, 0.1, 0.1, steps=[_step(True, C.CATEGORIZED), _step(True, C.CATEGORIZED)]),
        _node("b", 0, 0.1, 0.1, steps=[_step(True, C.CATEGORIZED), _step(True, C.ABSTAINED)]),
        _node("c", 0, 0.1, 0.1, steps=[_step(True, C.UNCATEGORIZED)]),
        _node("d", 0, 0.1, 0.1, steps=[_step(True, C.JUDGE_ERROR)]),
    ]
    assert categorization_rate(nodes) == 0.25


def test_categorization_rate_is_none_when_every_step_failed_not_the_no_failures_convention() -> None:
    failed = _step(False, CategorizationStatus.NOT_RUN).model_copy(update={"status": StepStatus.FAILED, "score": None})
    assert categorization_rate([_node("a", 0, None, None, steps=[failed])]) is None
    scored = _step(False, CategorizationStatus.NOT_NEEDED)
    assert categorization_rate([_node("a", 0, 0.9, 0.9, steps=[failed, scored])]) == 1.0  # none scored low


def test_nodes_with_the_same_step_coverage_share_one_record() -> None:
    C = CategorizationStatus
    first, second = (_node(n, 0, 0.1, 0.1, steps=[_step(True, C.CATEGORIZED)]) for n in ("a", "b"))
    assert StepCoverage.of(first) is StepCoverage.of(second)  # a summary keeps one per node while it walks them
    other = StepCoverage.of(_node("c", 0, 0.1, 0.1, steps=[_step(True, C.ABSTAINED)]))
    assert other is not StepCoverage.of(first) and (other.flagged, other.categorized) == (True, False)
