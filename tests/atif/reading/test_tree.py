from __future__ import annotations

from evalhub.models.atif import Trajectory

from tests.atif.helpers import delegating, trajectory
from tracegrade.atif.reading._tree import StepRefs, iter_file_refs, skeleton


def _delegating() -> Trajectory:
    return Trajectory.model_validate(delegating({"trajectory_path": "sub.json"}, continued_trajectory_ref="next.json"))


def test_step_refs_walks_each_trajectory_once() -> None:
    doc = _delegating()
    refs = StepRefs()
    first = refs.of(doc)
    assert [(offset, r, k, ref.trajectory_path) for offset, r, k, ref in first] == [(1, 0, 0, "sub.json")]
    assert refs.of(doc) is first


def test_iter_file_refs_is_the_same_with_a_shared_search() -> None:
    doc = _delegating()
    assert list(iter_file_refs(doc, StepRefs())) == list(iter_file_refs(doc)) == ["next.json", "sub.json"]


def test_skeleton_keeps_only_referencing_steps() -> None:
    kept = skeleton(_delegating())
    assert len(kept.steps) == 2 and kept.steps[0].observation is None
    assert kept.steps[1].step_id == 2
    assert list(iter_file_refs(kept)) == ["next.json", "sub.json"]


def test_skeleton_of_document_without_refs_has_no_observations() -> None:
    kept = skeleton(Trajectory.model_validate(trajectory(3)))
    assert [step.observation for step in kept.steps] == [None, None, None]


def test_skeletons_share_the_set_of_their_given_fields() -> None:
    first, second = skeleton(_delegating()), skeleton(Trajectory.model_validate(trajectory(3)))
    assert first.model_fields_set is second.model_fields_set  # one set for every skeleton, not one each
    assert first.agent.model_fields_set is second.agent.model_fields_set
    given = {"schema_version", "trajectory_id", "agent", "steps", "continued_trajectory_ref", "subagent_trajectories"}
    assert first.model_fields_set == given and first.agent.model_fields_set == {"name", "version"}


def test_skeletons_without_references_share_their_agent_and_steps() -> None:
    """A collection's documents mostly have the same agent and length: their skeletons hold one copy of each."""
    plain = [skeleton(Trajectory.model_validate(trajectory(3))) for _ in range(2)]
    assert plain[0].agent is plain[1].agent and plain[0].steps is plain[1].steps
    assert plain[0].agent.name == "a" and len(plain[0].steps) == 3
    longer, delegated = skeleton(Trajectory.model_validate(trajectory(4))), skeleton(_delegating())
    assert len(longer.steps) == 4 and longer.steps is not plain[0].steps
    assert delegated.steps is not skeleton(_delegating()).steps  # a step with references is a skeleton of its own


def test_documents_without_references_share_one_skeleton_and_embedded_subagents_keep_their_ids() -> None:
    """Tree building reads no document's own id, only embedded subagents' (to match references to them)."""
    plain = [skeleton(Trajectory.model_validate(trajectory(3, trajectory_id=f"t{i}")), document=True) for i in range(2)]
    assert plain[0] is plain[1] and plain[0].trajectory_id is None and len(plain[0].steps) == 3
    assert skeleton(Trajectory.model_validate(trajectory(3, trajectory_id="t")), document=True) is plain[0]
    assert skeleton(Trajectory.model_validate(trajectory(3, trajectory_id="t"))).trajectory_id == "t"  # not a document
    assert skeleton(Trajectory.model_validate(trajectory(4)), document=True) is not plain[0]
    continued = skeleton(Trajectory.model_validate(trajectory(3, continued_trajectory_ref="n.json")), document=True)
    assert continued is not plain[0] and continued.continued_trajectory_ref == "n.json"
    sub = {**trajectory(2), "trajectory_id": "sub-1"}
    parent = skeleton(Trajectory.model_validate(delegating({"trajectory_id": "sub-1"}, subagent_trajectories=[sub])),
                      document=True)
    assert parent is not plain[0] and [s.trajectory_id for s in parent.subagent_trajectories or ()] == ["sub-1"]
