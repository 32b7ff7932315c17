"""A tree's steps in time order, their references and agents, and the reference answer."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.atif.helpers import write
from tests.atif.localising.plant import document, hand_crafted, planted_tree, steps
from tracegrade.atif import LoadOptions, load_trajectories
from tracegrade.atif.importing import import_whowhen
from tracegrade.atif.localising._timeline import reference_answer, timeline


def test_subagent_steps_follow_the_step_that_delegated(tmp_path: Path) -> None:
    planted_tree(tmp_path, "subagent")
    line = timeline(load_trajectories([tmp_path / "root.json"], LoadOptions()).roots[0])
    refs = [step.ref for step in line.steps]
    assert refs[:6] == ["T0.1", "T0.2", "T0.3", "T0.4", "T1.1", "T1.2"] and refs[-1] == "T0.12" and len(refs) == 17
    assert line.steps[5].node_id == "root.json::child.json" and line.steps[5].agent == "browser"
    assert line.steps[0].agent == "coder" and not line.steps[0].candidate  # a recorded speaker names a user turn
    assert line.agents == ("checker", "planner", "coder", "browser")  # the candidates': the user's turns are not
    assert line.position("root.json::child.json", 2) == 5 and line.position("root.json", 99) is None
    assert line.unloaded == ()


def test_continuation_steps_carry_on_the_logical_index(tmp_path: Path) -> None:
    planted_tree(tmp_path, "continuation")
    line = timeline(load_trajectories([tmp_path / "root.json"], LoadOptions()).roots[0])
    last = line.steps[-1]
    assert (last.ref, last.index, last.step_id, last.segment) == ("T0.18", 18, 6, 1)


def test_without_a_recorded_speaker_the_agent_is_the_trajectorys(tmp_path: Path) -> None:
    made = steps(3)
    for step in made:
        del step["extra"]
    write(tmp_path / "r.json", document(made))
    line = timeline(load_trajectories([tmp_path / "r.json"], LoadOptions()).roots[0])
    assert [s.agent for s in line.steps] == ["user", "team", "team"]


def test_an_unloaded_subagent_is_named(tmp_path: Path) -> None:
    main = steps(3)
    main[1]["observation"] = {"results": [{"subagent_trajectory_ref": [{"trajectory_path": "gone.json"}]}]}
    write(tmp_path / "r.json", document(main))
    loaded = load_trajectories([tmp_path / "r.json"], LoadOptions(strict=False))
    line = timeline(loaded.roots[0])
    assert line.unloaded == ("r.json::gone.json",) and len(line.steps) == 3


def test_the_reference_answer_comes_from_the_trajectory_or_its_import(tmp_path: Path) -> None:
    cases = [({"reference_answer": " 42 "}, "42"), ({"who_and_when": {"ground_truth": 8}}, "8"),
             ({"who_and_when": {"ground_truth": ""}}, None), ({}, None)]
    for n, (extra, expected) in enumerate(cases):
        write(tmp_path / f"{n}.json", document(steps(2), extra=extra))
        root = load_trajectories([tmp_path / f"{n}.json"], LoadOptions()).roots[0]
        assert reference_answer(root) == expected


def test_a_hand_crafted_logs_roles_name_its_agents(tmp_path: Path) -> None:
    (tmp_path / "log.json").write_bytes(orjson.dumps(hand_crafted()))
    import_whowhen([tmp_path / "log.json"], tmp_path / "ww")
    line = timeline(load_trajectories([tmp_path / "ww" / "trajectories"], LoadOptions()).roots[0])
    assert [s.agent for s in line.steps] == ["user", "Orchestrator", "Orchestrator", "WebSurfer", "Orchestrator",
                                             "Orchestrator"]
    assert [s.ref for s in line.candidates] == ["T0.2", "T0.3", "T0.4", "T0.5", "T0.6"]
    assert line.agents == ("Orchestrator", "WebSurfer")
    asked = timeline(line.root, user_candidates=True)
    assert asked.agents == ("user", "Orchestrator", "WebSurfer") and len(asked.candidates) == 6
