from __future__ import annotations

from typing import Any

from tracegrade.atif.output._pairing import matched_nodes, matched_steps, pair_roots
from tracegrade.atif.scoring import NodeResult
from tracegrade.atif.scoring._records import NodeStatusCode, StepResult, StepStatus


def node(node_id: str, *, root: str | None = None, task: str | None = None, **values: Any) -> NodeResult:
    fields: dict[str, Any] = {
        "node_id": node_id, "parent_id": None if root is None else root, "root_id": root or node_id,
        "source_path": f"/in/{node_id}", "location": "", "trajectory_id": None, "session_id": None, "agent": "a",
        "depth": 0 if root is None else 1, "status": NodeStatusCode.SCORED, "complete": True, "own_score": 0.5,
        "aggregate": 0.5, "passed": True, "step_count": 1, "subtree_step_count": 1, "total_steps": 1,
        "criteria": None if task is None else {"task_hash": task},
    }
    return NodeResult(**{**fields, **values})


def test_ids_come_first_then_paths_then_task_text() -> None:
    baseline = [node("a.json", trajectory_id="t-a"), node("b.json", session_id="s-b"), node("c.json"),
                node("d.json", task="h-d"), node("gone.json")]
    candidate = [node("renamed-a.json", trajectory_id="t-a"), node("x/b.json", session_id="s-b"), node("c.json"),
                 node("e.json", task="h-d"), node("new.json")]
    pairing = pair_roots(baseline, candidate)
    assert [(p.id, p.candidate.node_id, p.matched_by) for p in pairing.pairs] == [
        ("a.json", "renamed-a.json", "trajectory_id"), ("b.json", "x/b.json", "session_id"),
        ("c.json", "c.json", "relative_path"), ("d.json", "e.json", "task_hash")]
    assert pairing.methods == {"trajectory_id": 1, "session_id": 1, "relative_path": 1, "task_hash": 1}
    assert (pairing.only_in_baseline, pairing.only_in_candidate) == (["gone.json"], ["new.json"])


def test_an_id_shared_by_two_roots_does_not_pair_and_the_path_is_tried() -> None:
    baseline = [node("a.json", trajectory_id="dup"), node("b.json", trajectory_id="dup")]
    candidate = [node("a.json", trajectory_id="dup"), node("b.json", trajectory_id="dup")]
    assert {p.matched_by for p in pair_roots(baseline, candidate).pairs} == {"relative_path"}


def test_a_task_text_shared_by_two_roots_stays_unpaired() -> None:
    pairing = pair_roots([node("a.json", task="h"), node("b.json", task="h")], [node("c.json", task="h")])
    assert pairing.pairs == [] and pairing.only_in_baseline == ["a.json", "b.json"]


def test_subagents_are_not_roots_and_match_by_their_place() -> None:
    base = [node("r.json"), node("r.json::sub-1", root="r.json"), node("r.json::old", root="r.json")]
    cand = [node("r.json"), node("r.json::sub-1", root="r.json"), node("r.json::new", root="r.json")]
    (pair,) = pair_roots(base, cand).pairs
    places = [(p, b is not None, c is not None) for p, b, c in matched_nodes(base, cand)]
    assert pair.id == "r.json" and places == [("", True, True), ("::new", False, True), ("::old", True, False),
                                               ("::sub-1", True, True)]


def test_steps_match_by_segment_and_step_id() -> None:
    def step(segment: int, step_id: int) -> StepResult:
        return StepResult(index=step_id, segment=segment, step_id=step_id, source="agent", status=StepStatus.SCORED)

    first = node("r.json", steps=[step(0, 1), step(0, 2), step(1, 1)])
    second = node("r.json", steps=[step(1, 1), step(0, 2), step(0, 3)])
    assert [(a.segment, a.step_id) for a, _ in matched_steps(first, second)] == [(0, 2), (1, 1)]
