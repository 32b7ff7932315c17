from __future__ import annotations

from tests.atif.agree_data import node, results, step
from tracegrade.atif.reviewing._queue import ReviewOrder, contested_reason, order_description, review_queue
from tracegrade.atif.scoring._records import CategorizationStatus, StepStatus
from tracegrade.atif.scoring._repeat_records import StepRepeats


def run_nodes():  # type: ignore[no-untyped-def]
    unstable = step(3, 0.6).model_copy(update={"repeats": StepRepeats(
        scores=[0.2, 1.0], seeds=[1, 2], std=0.5, min=0.2, max=1.0, unstable=True)})
    abstained = step(2, 0.3).model_copy(update={
        "category": "none", "categorization_status": CategorizationStatus.ABSTAINED})
    a = node("a.json", [step(1, 0.9), abstained, unstable, step(4, 0.05, "context_loss"),
                        step(5, None, status=StepStatus.FAILED)])
    b = node("b.json", [step(1, 0.45), step(2, 0.9), step(3, None, status=StepStatus.COPIED_CONTEXT)])
    return results(a, b).nodes


def keys(queue) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    return [q.key for q in queue]


def test_lowest_first_keeps_the_run_order_on_ties_and_leaves_out_steps_without_a_score() -> None:
    queue = review_queue(run_nodes(), ReviewOrder.LOWEST, failure_threshold=0.5)
    assert keys(queue) == [("a.json", 4), ("a.json", 2), ("b.json", 1), ("a.json", 3), ("a.json", 1), ("b.json", 2)]


def test_contested_first_then_closest_to_the_threshold() -> None:
    queue = review_queue(run_nodes(), ReviewOrder.CONTESTED, failure_threshold=0.5)
    assert keys(queue)[:2] == [("a.json", 3), ("a.json", 2)]  # repeats straddling (0.6); 0.3 with category none
    assert "straddle" in (queue[0].contested or "")
    assert "named no failure category" in (queue[1].contested or "")
    assert keys(queue)[2:] == [("b.json", 1), ("a.json", 1), ("b.json", 2), ("a.json", 4)]
    assert all(q.contested is None for q in queue[2:])


def test_a_random_order_is_a_permutation_fixed_by_its_seed() -> None:
    nodes = run_nodes()
    first = keys(review_queue(nodes, ReviewOrder.RANDOM, failure_threshold=0.5, seed=7))
    assert first == keys(review_queue(nodes, ReviewOrder.RANDOM, failure_threshold=0.5, seed=7))
    assert sorted(first) == sorted(keys(review_queue(nodes, ReviewOrder.LOWEST, failure_threshold=0.5)))
    others = {tuple(keys(review_queue(nodes, ReviewOrder.RANDOM, failure_threshold=0.5, seed=s))) for s in range(8)}
    assert len(others) > 1


def test_a_plain_low_step_with_a_category_is_not_contested() -> None:
    assert contested_reason(step(1, 0.1, "context_loss"), 0.5) is None
    assert "seed 3" in order_description(ReviewOrder.RANDOM, 3)
    assert "--order random" in order_description(ReviewOrder.LOWEST, 0)
