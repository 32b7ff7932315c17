from __future__ import annotations

from pathlib import Path

from tests.atif.agree_data import node, results, step
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.asking._content import StepContent
from tracegrade.atif.reviewing._items import RunIndex, answer_view, item_view
from tracegrade.atif.reviewing._run import read_review_run


def test_an_item_shows_the_task_the_step_and_the_history_the_judge_kept(examples_run: Path) -> None:
    results = read_review_run(examples_run).results
    index = RunIndex(results.nodes)
    node, step = index.step("bugfix-session/trajectory.json", 4) or (None, None)
    assert node is not None and step is not None
    item = item_view(index, node, step, reveal=True, failure_threshold=0.5, position=3, contested=None)
    assert item["task"].startswith("The test tests/test_dates.py::test_leap_year fails")
    assert [h["step"] for h in item["history"]] == [1, 2, 3][(step.omitted_history or 0):]
    assert item["content"] == step.content.model_dump(mode="json") if step.content else item["content"] is None
    assert item["judge"]["score"] == step.score
    assert item["judge"]["rationale"] == "Scripted judge: no cue matched this step."
    hidden = item_view(index, node, step, reveal=False, failure_threshold=0.5, position=3, contested=None)
    assert hidden["judge"] is None
    assert index.step("bugfix-session/trajectory.json", 99) is None and index.step("nope", 1) is None


def test_a_subagent_without_a_user_step_shows_its_roots_task() -> None:
    said = StepContent(message="do <b>X</b>")
    root = node("r.json", [step(1, 0.9).model_copy(update={"source": "user", "content": said}), step(2, 0.9)])
    child = node("r.json::c", [step(1, 0.9)]).model_copy(update={"root_id": "r.json", "parent_id": "r.json"})
    lone = node("l.json", [step(1, 0.9)])
    index = RunIndex(results(root, child, lone).nodes)
    assert index.task(child) == "do <b>X</b>" and index.task(root) == "do <b>X</b>"
    assert index.task(lone) is None


def test_an_answer_fills_the_form_again() -> None:
    label = Label(node_id="a", step=1, failed=True, score=0.5, note="n")
    assert answer_view(label) == {"failed": True, "score": 0.5, "category": None, "decisive": None, "note": "n"}
    assert answer_view(None) is None
