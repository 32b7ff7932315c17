from __future__ import annotations

from tests.atif.agree_data import STEP_LABELS, report, two_trajectories
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.agreement._records import Estimate
from tracegrade.atif.reviewing._figures import judge_rows, order_counts, review_figures, trust


def estimate(value: float | None, low: float | None, high: float | None, n: int = 40) -> Estimate:
    return Estimate(value=value, low=low, high=high, n=n, units=10, reason=None if value is not None else "no pairs")


def test_the_words_follow_the_interval_and_the_number_of_pairs() -> None:
    assert trust(estimate(0.6, 0.55, 0.7)).startswith("narrow enough to read")
    assert trust(estimate(0.6, 0.4, 0.7)).startswith("still wide")
    assert trust(estimate(0.6, 0.0, 0.9)).startswith("too wide to trust")
    assert trust(estimate(1.0, 1.0, 1.0, n=4)).startswith("too few pairs to trust (4, under 10)")
    assert trust(estimate(0.5, None, None)).startswith("no interval yet")
    assert trust(estimate(None, None, None)) == "not computable yet (no pairs)"
    assert trust(estimate(0.0, 0.0, 0.0), "one answer, judge: all failed").startswith(
        "0 by construction (judge: all failed)")


def test_the_rows_are_the_reports_step_measures() -> None:
    built = report()
    rows = {row["measure"]: row for row in judge_rows(built)}
    assert rows["pass/fail kappa"]["value"] == built.step.pass_fail.kappa.value
    assert rows["score Spearman rho"]["low"] == built.step.scores.spearman.low
    assert rows["decisive step = judge's lowest"]["n"] == built.localisation.exact.n


def test_figures_name_the_orders_and_compare_each_other_reviewer() -> None:
    ann = [label.model_copy(update={"reviewer": "ann", "extra": {"order": "random"}}) for label in STEP_LABELS]
    bob = [label.model_copy(update={"reviewer": "bob"}) for label in STEP_LABELS[:3]]
    figures = review_figures(two_trajectories(), [*ann, *bob], "ann", labels_file="l", resamples=200)
    assert figures["labels"] == 6 and figures["orders"] == {"random": 6} and figures["error"] is None
    assert [other["reviewer"] for other in figures["others"]] == ["bob"]
    assert figures["others"][0]["common_steps"] == 3
    assert order_counts(bob) == {"unrecorded": 3}
    twice = [*ann, Label(line=9, trajectory_id="A", step=1, failed=True, reviewer="ann")]
    assert "name the same step" in review_figures(two_trajectories(), twice, "ann", labels_file="l")["error"]
    assert review_figures(two_trajectories(), [], "ann", labels_file="l")["judge"] is None
