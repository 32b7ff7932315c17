from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade.atif.agreement._labels import read_labels
from tracegrade.atif.reviewing._append import Conflict
from tracegrade.atif.reviewing._run import read_review_run
from tracegrade.atif.reviewing._state import ReviewSettings, ReviewState


def state(run: Path, labels: Path, reviewer: str = "ann") -> ReviewState:
    return ReviewState(read_review_run(run), ReviewSettings(labels=labels, reviewer=reviewer, resamples=200))


def answer(review: ReviewState, **values: object) -> dict[str, object]:
    item = review.state(review.labels.read())["item"]
    return review.answer({"node_id": item["node_id"], "step": item["step"], **values})


def test_a_second_decisive_step_in_one_trajectory_is_refused_until_the_first_is_undone(
    examples_run: Path, tmp_path: Path
) -> None:
    review = state(examples_run, tmp_path / "labels.jsonl")
    first = review.queue[0]
    same = next(step for step in review.queue[1:] if step.node_id == first.node_id)
    review.answer({"node_id": first.node_id, "step": first.index, "failed": True, "decisive": True})
    with pytest.raises(Conflict, match=f"step {first.index} of this trajectory is already your decisive step"):
        review.answer({"node_id": same.node_id, "step": same.index, "failed": True, "decisive": True})
    review.undo()
    review.answer({"node_id": same.node_id, "step": same.index, "failed": True, "decisive": True})
    assert [label.step for label in read_labels(review.labels.path) if label.decisive] == [same.index]


def test_two_reviewers_answer_the_same_step_and_each_undo_takes_back_only_their_own(
    examples_run: Path, tmp_path: Path
) -> None:
    ann, bob = state(examples_run, tmp_path / "l.jsonl"), state(examples_run, tmp_path / "l.jsonl", "bob")
    answer(ann, failed=True)
    answer(bob, failed=False)
    undone = bob.undo()
    assert undone["undone"] == "answer"
    standing = read_labels(tmp_path / "l.jsonl")
    assert [(label.reviewer, label.failed) for label in standing] == [("ann", True)]
    assert ann.state(ann.labels.read())["progress"]["answered"] == 1
    assert bob.state(bob.labels.read())["progress"]["answered"] == 0
