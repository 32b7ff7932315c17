from __future__ import annotations

import itertools
import json
from typing import Any

import orjson
import pytest
from evalhub.models.atif import (
    AudioSource,
    ContentPart,
    ImageSource,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    SubagentTrajectoryRef,
    ToolCall,
)

from tracegrade.atif.asking._evidence import TASK_MARKER, Evidence, Frames, build_evidence, project_step
from tracegrade.atif.asking._prompts import score_request
from tracegrade.errors import ConfigError, JudgeError
from tracegrade.rubric import Rubric

from .conftest import agent_step


def test_projection_keeps_what_the_judge_needs() -> None:
    step = Step(step_id=4, source="agent", message="run it", reasoning_content="because",
                tool_calls=[ToolCall(tool_call_id="c1", function_name="sh", arguments={"cmd": "ls"}, extra={"x": 1})],
                observation=Observation(results=[ObservationResult(source_call_id="c1", content="out",
                                                                   extra={"score": 3})]))
    assert project_step(step) == {
        "step_id": 4, "source": "agent", "message": "run it", "reasoning_content": "because",
        "tool_calls": [{"tool_call_id": "c1", "function_name": "sh", "arguments": {"cmd": "ls"}}],
        "observation": [{"source_call_id": "c1", "content": "out"}],
    }


def test_projection_drops_metrics_token_arrays_and_extras() -> None:
    step = Step(step_id=1, source="agent", message="hi", timestamp="2025-01-01T00:00:00Z", extra={"secret_sauce": 1},
                metrics=Metrics(prompt_tokens=5, prompt_token_ids=[1, 2, 3], completion_token_ids=[4],
                                logprobs=[-0.1], extra={"gpu": "a100"}))
    text = json.dumps(project_step(step))
    for absent in ("metrics", "prompt_token_ids", "completion_token_ids", "logprobs", "secret_sauce", "gpu", "extra"):
        assert absent not in text


def test_media_become_explicit_markers() -> None:
    step = Step(step_id=1, source="user", message=[
        ContentPart(type="text", text="look"),
        ContentPart(type="image", source=ImageSource(media_type="image/png", path="shots/a.png")),
        ContentPart(type="audio", source=AudioSource(media_type="audio/wav", path="rec/b.wav")),
    ], observation=Observation(results=[ObservationResult(content=[
        ContentPart(type="image", source=ImageSource(media_type="image/jpeg", path="https://x/c.jpg"))])]))
    view = project_step(step)
    assert view["message"] == ["look", "[image omitted: shots/a.png]", "[audio omitted: rec/b.wav]"]
    assert view["observation"][0]["content"] == ["[image omitted: https://x/c.jpg]"]


def test_subagent_references_are_kept_without_extras() -> None:
    ref = SubagentTrajectoryRef(trajectory_id="sub-1", trajectory_path="sub.json", extra={"k": 1})
    step = Step(step_id=1, source="agent", message="delegate",
                observation=Observation(results=[ObservationResult(subagent_trajectory_ref=[ref])]))
    assert project_step(step)["observation"][0]["subagent_trajectory_ref"] == [
        {"trajectory_id": "sub-1", "trajectory_path": "sub.json"}]


def steps(evidence: Evidence) -> list[dict[str, Any]]:
    return [json.loads(line) for line in evidence.steps]


def test_evidence_carries_every_part() -> None:
    parent = agent_step(7, "delegating to a helper")
    evidence = build_evidence("the task", [{"type": "function"}], [agent_step(1)], agent_step(2), parent, 65536)
    assert json.loads(evidence.task) == "the task"
    assert json.loads(evidence.tools) == [{"type": "function"}]
    assert [s["step_id"] for s in steps(evidence)] == [1, 2]  # the history, then the current step last
    assert json.loads(evidence.current)["step_id"] == 2
    assert evidence.delegation is not None and json.loads(evidence.delegation)["step_id"] == 7
    assert evidence.omitted_history == 0


def test_serialisation_is_deterministic() -> None:
    def make() -> Evidence:
        return build_evidence("t", [{"b": 1, "a": 2}], [agent_step(1)], agent_step(2), None, 65536)
    assert make() == make()
    assert make().tools.index('"a"') < make().tools.index('"b"')


def test_a_step_reads_the_same_as_the_current_step_and_as_history() -> None:
    trajectory = [agent_step(i, f"step {i}") for i in range(1, 6)]
    frames: Frames = {}
    lines = [build_evidence("t", None, trajectory[:k], trajectory[k], None, 65536, frames=frames).steps
             for k in range(len(trajectory))]
    for k in range(1, len(lines)):
        assert lines[k][:-1] == lines[k - 1]  # each request's steps extend the previous request's


def test_the_task_is_sent_once() -> None:
    first = Step(step_id=1, source="user", message="List the files")
    evidence = build_evidence("List the files", None, [first], agent_step(2), None, 65536)
    assert json.loads(evidence.steps[0])["message"] == TASK_MARKER
    other = Step(step_id=1, source="user", message="Something else")
    assert json.loads(build_evidence("List the files", None, [other], agent_step(2), None, 65536).steps[0])[
        "message"] == "Something else"


def test_oldest_history_is_dropped_first_and_counted() -> None:
    history = [agent_step(i, f"step {i} " + "x" * 400) for i in range(1, 21)]
    evidence = build_evidence("t", None, history, agent_step(21), None, 4096)
    kept = [s["step_id"] for s in steps(evidence)][:-1]
    assert kept == list(range(21 - len(kept), 21))
    assert 0 < len(kept) < 20
    assert evidence.omitted_history == 20 - len(kept)
    assert sum(len(line) + 1 for line in evidence.steps) <= 4096 // 2


def test_history_is_dropped_in_blocks_so_the_kept_history_stays_put() -> None:
    trajectory = [agent_step(i, f"step {i} " + "x" * 300) for i in range(1, 80)]
    frames: Frames = {}
    built = [build_evidence("t", None, trajectory[:k], trajectory[k], None, 16384, frames=frames)
             for k in range(len(trajectory))]
    omitted = [e.omitted_history for e in built]
    assert omitted == sorted(omitted) and omitted[-1] > 0  # oldest first, never taken back
    moves = sum(1 for a, b in itertools.pairwise(omitted) if a != b)
    assert moves <= len(built) // 5  # one frame at a time would move the window with almost every request
    assert all(b - a > 1 for a, b in itertools.pairwise(omitted) if a != b)  # blocks, not frames


def test_history_before_a_context_replace_boundary_is_not_context() -> None:
    boundary = Step(step_id=3, source="system", message="summary of earlier work",
                    extra={"context_management": {"type": "compaction", "boundary": "replace"}})
    history = [agent_step(1), agent_step(2), boundary, agent_step(4)]
    evidence = build_evidence("t", None, history, agent_step(5), None, 65536)
    assert [s["step_id"] for s in steps(evidence)] == [3, 4, 5]
    assert evidence.omitted_history == 0


@pytest.mark.parametrize("part", ["task", "current", "delegation"])
def test_required_evidence_that_does_not_fit_is_an_error(part: str) -> None:
    big = "y" * 3000
    task = big if part == "task" else "t"
    current = agent_step(2, big if part == "current" else "ok")
    delegation = agent_step(1, big) if part == "delegation" else None
    with pytest.raises(JudgeError) as caught:
        build_evidence(task, None, [], current, delegation, 4096)
    assert caught.value.code == "context_overflow"


def test_a_complete_request_over_the_limit_is_an_error(rubric: Rubric) -> None:
    evidence = build_evidence("t" * 1500, [{"description": "d" * 400}], [], agent_step(1, "s" * 1500), None, 4096)
    with pytest.raises(JudgeError) as caught:
        score_request(rubric, evidence)
    assert caught.value.code == "context_overflow"


def test_budget_below_the_minimum_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        build_evidence("t", None, [], agent_step(1), None, 1023)


def test_reference_answer_is_evidence_and_must_fit() -> None:
    evidence = build_evidence("t", None, [], agent_step(1), None, 4096, reference="42")
    assert evidence.reference is not None and json.loads(evidence.reference) == "42"
    with pytest.raises(JudgeError) as caught:
        build_evidence("t", None, [], agent_step(1), None, 4096, reference="r" * 3000)
    assert caught.value.code == "context_overflow"


@pytest.mark.parametrize("budget", [65536, 2048])  # the whole history, and only its newest steps
def test_history_frames_kept_by_the_caller_give_the_same_evidence_and_one_frame_per_step(budget: int) -> None:
    steps = [agent_step(i) for i in range(1, 13)]
    for step in steps:
        step.message = f"{step.message} " + "words " * 40
    fresh = [build_evidence("t", None, steps[:k], steps[k], None, budget) for k in range(len(steps))]
    frames: Frames = {}
    kept = [build_evidence("t", None, steps[:k], steps[k], None, budget, frames=frames) for k in range(len(steps))]
    assert kept == fresh
    assert any(e.omitted_history for e in fresh) is (budget == 2048)  # the small budget drops older steps
    # each step's frame is kept once, as its projection and its text, for the later steps that show it
    assert len(frames) == len(steps)
    assert all(frames[id(step)][0] == project_step(step) for step in steps)
    assert all(frames[id(step)][1] == orjson.dumps(project_step(step), option=orjson.OPT_SORT_KEYS).decode()
               for step in steps)


def test_a_history_that_fits_the_room_exactly_is_kept() -> None:
    from tracegrade.atif.asking._evidence import _fit_history

    history = [agent_step(1, "older"), agent_step(2, "newer")]
    sizes = [len(orjson.dumps(project_step(step), option=orjson.OPT_SORT_KEYS)) + 1 for step in history]
    block = 1 << 20  # one block: only the whole history or the newest steps that fit
    assert _fit_history(history, sum(sizes), block, "t", {})[1] == 0
    assert _fit_history(history, sum(sizes) - 1, block, "t", {})[1] == 1
    assert _fit_history(history, sizes[1] - 1, block, "t", {})[1] == 2
