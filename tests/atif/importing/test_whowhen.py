from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.atif.delayed import marker_judge
from tracegrade.atif._run import JobContext, score_paths
from tracegrade.atif.agreement._agree import measure_agreement
from tracegrade.atif.agreement._labels import read_labels
from tracegrade.atif.importing._whowhen import convert_log, import_whowhen, source_of
from tracegrade.atif.output._artifacts import write_artifacts
from tracegrade.atif.reading._load import load_trajectories
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.atif.scoring._params import parse_parameters
from tracegrade.errors import InputError

HAND_CRAFTED = {
    "question": "Find a dojo near the exchange.",
    "is_correct": False,
    "ground_truth": "Dojo X",
    "history": [
        {"content": "Find a dojo near the exchange.", "role": "human"},
        {"content": "plan SCORE:0.9", "role": "Orchestrator (thought)"},
        {"content": "searched the wrong city SCORE:0.2", "role": "WebSurfer"},
        {"content": "final answer SCORE:0.6", "role": "Orchestrator (thought)"},
    ],
    "mistake_agent": "WebSurfer",
    "mistake_step": "2",
    "mistake_reason": "Searched the wrong city.",
}
ALGORITHM = {
    "question": "Count the even addresses.",
    "history": [
        {"content": "code without edge cases SCORE:0.7", "name": "Excel_Expert", "role": "assistant"},
        {"content": "exitcode: 0 SCORE:0.3", "name": "Computer_terminal", "role": "user"},
        {"content": "looks right SCORE:0.8", "name": "Verifier", "role": "user"},
        {"content": "TERMINATE SCORE:0.9", "name": "Verifier", "role": "user"},
    ],
    "mistake_agent": "Excel_Expert",
    "mistake_step": 0,
    "mistake_reason": "Edge cases ignored.",
}


def write_logs(folder: Path) -> Path:
    (folder / "Hand-Crafted").mkdir(parents=True)
    (folder / "Hand-Crafted" / "1.json").write_bytes(orjson.dumps(HAND_CRAFTED))
    (folder / "Algorithm-Generated").mkdir()
    (folder / "Algorithm-Generated" / "1.json").write_bytes(orjson.dumps(ALGORITHM))
    return folder


def test_turns_become_steps_with_speaker_task_and_labels() -> None:
    imported = convert_log("hc-1", "hc/1.json", HAND_CRAFTED)
    steps = imported.trajectory["steps"]
    assert [(s["step_id"], s["source"]) for s in steps] == [(1, "user"), (2, "agent"), (3, "agent"), (4, "agent")]
    assert steps[2]["message"] == "WebSurfer:\nsearched the wrong city SCORE:0.2"
    assert steps[0]["message"] == "Find a dojo near the exchange."
    assert imported.trajectory["extra"]["task_instruction"] == "Find a dojo near the exchange."
    trajectory, decisive = imported.labels
    assert (trajectory.trajectory_id, trajectory.failed, trajectory.is_step) == ("hc-1", True, False)
    assert (decisive.step, decisive.decisive, decisive.failed, decisive.note) == (
        3,
        True,
        True,
        "Searched the wrong city.",
    )
    assert imported.warnings == ()


@pytest.mark.parametrize("correct", [None, "no", 0])
def test_a_log_without_a_usable_is_correct_is_labelled_failed_never_passed(correct: object) -> None:
    log = {key: value for key, value in HAND_CRAFTED.items() if key != "is_correct"}
    if correct is not None:
        log["is_correct"] = correct
    trajectory = convert_log("hc", "hc.json", log).labels[0]
    assert not trajectory.is_step and trajectory.failed is True
    assert convert_log("hc", "hc.json", {**HAND_CRAFTED, "is_correct": True}).labels[0].failed is False


def test_the_last_turn_can_carry_the_mistake() -> None:
    decisive = convert_log("x", "x.json", {**ALGORITHM, "mistake_step": 3}).labels[1]
    assert decisive.step == 4 and decisive.decisive


def test_a_user_role_with_a_name_is_an_agent_of_the_system() -> None:
    assert source_of({"role": "user", "name": "Computer_terminal"}) == "agent"
    assert source_of({"role": "user"}) == "user"
    assert source_of({"role": "human"}) == "user"


def test_a_mistake_agent_that_did_not_speak_that_step_is_a_warning() -> None:
    imported = convert_log("x", "x.json", {**ALGORITHM, "mistake_agent": "Verifier"})
    assert imported.warnings == ("x: mistake_agent 'Verifier' is not the speaker of history[0]",)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"history": []}, "x.json: history: expected a non-empty list"),
        ({"mistake_step": 9}, "x.json: mistake_step: expected an index into history (0..3), got 9"),
        ({"mistake_step": 4}, "x.json: mistake_step: expected an index into history (0..3), got 4"),  # len(history)
        ({"mistake_step": "4"}, "x.json: mistake_step: expected an index into history (0..3), got 4"),
        ({"mistake_step": -1}, "x.json: mistake_step: expected an index into history (0..3), got -1"),
        ({"mistake_step": "two"}, "x.json: mistake_step: expected an index"),
        ({"history": [{"content": 3, "role": "human"}]}, "x.json: history[0].content: expected a string"),
    ],
)
def test_an_unusable_log_is_an_error_naming_the_field(change: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as caught:
        convert_log("x", "x.json", {**ALGORITHM, **change})
    assert caught.value.message.startswith(message)


def test_import_writes_valid_atif_and_labels(tmp_path: Path) -> None:
    result = import_whowhen([write_logs(tmp_path / "logs")], tmp_path / "out")
    assert [p.name for p in result.trajectories] == ["Algorithm-Generated-1.json", "Hand-Crafted-1.json"]
    loaded = load_trajectories([tmp_path / "out" / "trajectories"], LoadOptions())
    assert len(loaded.roots) == 2
    labels = read_labels(result.labels_path)
    assert [(label.trajectory_id, label.step, label.decisive) for label in labels] == [
        ("Algorithm-Generated-1", None, None),
        ("Algorithm-Generated-1", 1, True),
        ("Hand-Crafted-1", None, None),
        ("Hand-Crafted-1", 3, True),
    ]


def test_jsonl_logs_are_named_by_line_and_bad_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_bytes(orjson.dumps(ALGORITHM) + b"\n" + orjson.dumps(HAND_CRAFTED) + b"\n{oops\n")
    with pytest.raises(InputError, match=r"set\.jsonl:3: "):
        import_whowhen([path], tmp_path / "out")
    path.write_bytes(orjson.dumps(ALGORITHM) + b"\n\n" + orjson.dumps(HAND_CRAFTED) + b"\n")
    result = import_whowhen([path], tmp_path / "out")
    assert [p.stem for p in result.trajectories] == [f"{tmp_path.name}-set-1", f"{tmp_path.name}-set-3"]


async def test_imported_logs_run_through_judge_and_agree(tmp_path: Path) -> None:
    imported = import_whowhen([write_logs(tmp_path / "logs")], tmp_path / "out")
    options, criteria = parse_parameters({})
    folder = tmp_path / "out" / "trajectories"
    results = await score_paths([folder], options, criteria, marker_judge(), JobContext("ww"))
    write_artifacts(results, tmp_path / "run")
    report = measure_agreement(results, read_labels(imported.labels_path), labels_file="labels.jsonl")
    # Hand-Crafted: decisive step 3 is the lowest (0.2); Algorithm-Generated: decisive 1, lowest 2 (0.3)
    assert [(r.decisive_step, r.judge_lowest_step) for r in report.localisation.rows] == [(1, 2), (3, 3)]
    localisation = report.localisation
    assert (localisation.exact.value, localisation.within_1.value, localisation.within_3.value) == (0.5, 1.0, 1.0)
    assert report.unmatched == [] and report.matched == 4
