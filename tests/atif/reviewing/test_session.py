from __future__ import annotations

from tests.atif.agree_data import node, results, step
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.reviewing._queue import QueuedStep
from tracegrade.atif.reviewing._session import ReviewSession, answered_steps

QUEUE = tuple(QueuedStep("a.json", i, 0.1 * i, None) for i in (1, 2, 3))


def done(*steps: int) -> dict[tuple[str, int], Label]:
    return {("a.json", i): Label(node_id="a.json", step=i, failed=True) for i in steps}


def test_the_next_step_is_the_first_unanswered_then_skipped_ones_come_back() -> None:
    session = ReviewSession(QUEUE)
    assert session.current({}).index == 1  # type: ignore[union-attr]
    session.skip(("a.json", 1))
    assert session.current({}).index == 2  # type: ignore[union-attr]
    assert session.current(done(2, 3)).index == 1  # type: ignore[union-attr]
    assert session.current(done(1, 2, 3)) is None


def test_undo_takes_back_skips_first_and_an_answer_clears_them() -> None:
    session = ReviewSession(QUEUE)
    session.skip(("a.json", 1))
    session.skip(("a.json", 2))
    assert session.unskip() == ("a.json", 2) and session.current({}).index == 2  # type: ignore[union-attr]
    session.answered_one()
    assert session.unskip() is None and session.skipped == [("a.json", 1)]
    session.returned_to(("a.json", 1), {"failed": True})
    assert session.current(done(2)).index == 1 and session.skipped == []  # type: ignore[union-attr]
    assert session.draft == {"failed": True}


def test_answered_steps_match_labels_by_any_id_and_survive_a_step_named_twice() -> None:
    run = results(node("a.json", [step(1, 0.9), step(2, 0.1)], trajectory_id="A"))
    labels = [Label(line=1, trajectory_id="A", step=1, failed=True), Label(line=2, node_id="a.json", step=1, score=1),
              Label(line=3, node_id="nope", step=1, score=1)]
    found = answered_steps(run, labels)
    assert list(found) == [("a.json", 1)] and found[("a.json", 1)].line == 2
