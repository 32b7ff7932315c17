from __future__ import annotations

from evalhub.models.atif import Step, SubagentTrajectoryRef, Trajectory

from tests.atif.helpers import trajectory
from tracegrade.atif.reading._records import (
    InputAccount,
    InputStatus,
    LoadResult,
    LogicalStep,
    NodeStatus,
    TrajectoryNode,
    iter_nodes,
)


def tree(name: str, *children: TrajectoryNode, status: NodeStatus = NodeStatus.LOADED) -> TrajectoryNode:
    return TrajectoryNode(node_id=name, source_path=f"/in/{name}", location="", depth=0, status=status,
                          trajectory=None, children=children)


def test_nodes_are_walked_depth_first_parents_before_children() -> None:
    root = tree("r", tree("a", tree("a1"), tree("a2")), tree("b"))
    assert [n.node_id for n in iter_nodes(root)] == ["r", "a", "a1", "a2", "b"]


def test_a_loaded_node_takes_its_id_and_agent_from_the_document() -> None:
    document = Trajectory.model_validate(trajectory(trajectory_id="doc-id"))
    node = TrajectoryNode(node_id="n", source_path="/in/n", location="", depth=0, status=NodeStatus.LOADED,
                          trajectory=document, ref=SubagentTrajectoryRef(trajectory_id="ref-id"))
    assert (node.trajectory_id, node.agent_name) == ("doc-id", "a")


def test_a_node_that_was_not_loaded_is_known_by_its_reference() -> None:
    node = TrajectoryNode(node_id="n", source_path="/in/n", location="", depth=1, status=NodeStatus.INVALID,
                          trajectory=None, ref=SubagentTrajectoryRef(trajectory_id="ref-id"), reason="cycle")
    assert (node.trajectory_id, node.agent_name) == ("ref-id", None)
    assert tree("root").trajectory_id is None


def test_a_logical_step_keeps_the_producers_step_id() -> None:
    step = LogicalStep(index=7, segment=1, step=Step(step_id=2, source="agent", message="m"), copied=False)
    assert (step.index, step.step_id) == (7, 2)


def test_a_load_is_valid_only_when_every_input_and_every_node_is() -> None:
    loaded = InputAccount(path="/in/r", location="", status=InputStatus.LOADED)
    invalid = InputAccount(path="/in/x", location="line 2", status=InputStatus.INVALID, code="invalid_json")
    skipped = InputAccount(path="/in/p", location="", status=InputStatus.SKIPPED, code="not_a_file")
    assert LoadResult(roots=(tree("r"),), inputs=(loaded, skipped)).all_valid
    assert LoadResult(roots=(tree("r"),), inputs=(loaded, invalid)).invalid_inputs == (invalid,)
    assert not LoadResult(roots=(tree("r"),), inputs=(loaded, invalid)).all_valid
    broken_child = tree("r", tree("c", status=NodeStatus.INVALID))
    assert not LoadResult(roots=(broken_child,), inputs=(loaded,)).all_valid
    assert LoadResult(roots=(tree("r", tree("c", status=NodeStatus.UNSCORED)),), inputs=(loaded,)).all_valid
