from __future__ import annotations

import pytest
from scipy import stats as scipy_stats

from tests.atif.agree_data import node, report, results, step, two_trajectories
from tracegrade.atif.agreement._agree import match_labels, measure_agreement
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.scoring._records import StepStatus
from tracegrade.errors import InputError


def test_score_correlations_equal_scipy_on_the_pairs() -> None:
    human, judge = [5, 1, 4, 2, 3, 4], [0.9, 0.2, 0.6, 0.4, 0.8, 0.7]
    scores = report().step.scores
    assert scores.n == 6
    assert scores.spearman.value == pytest.approx(scipy_stats.spearmanr(human, judge).statistic)
    assert scores.spearman.p_value == pytest.approx(scipy_stats.spearmanr(human, judge).pvalue)
    assert scores.kendall.value == pytest.approx(scipy_stats.kendalltau(human, judge).statistic)


def test_pass_fail_agreement_and_kappa_match_hand_computation() -> None:
    # human failed: A2 B2; judge failed (score < 0.5): A2 A4 -> po = 4/6, pe = (2*2 + 4*4)/36, kappa = 0.25
    pass_fail = report().step.pass_fail
    assert pass_fail.matrix == [[1, 1], [1, 3]]
    assert pass_fail.agreement.value == pytest.approx(4 / 6)
    assert pass_fail.kappa.value == pytest.approx(0.25)


def test_categories_count_an_unflagged_step_as_none() -> None:
    categories = report().step.categories
    assert categories is not None and categories.n == 3
    order = categories.labels
    assert categories.matrix[order.index("context_loss")][order.index("context_loss")] == 1
    assert categories.matrix[order.index("none")][order.index("reasoning_failure")] == 1
    assert categories.matrix[order.index("reasoning_failure")][order.index("none")] == 1
    assert categories.agreement.value == pytest.approx(1 / 3)
    assert categories.kappa.value == pytest.approx(0.0)  # po = pe = 1/3


def test_trajectory_level_uses_aggregate_and_passed() -> None:
    trajectory = report().trajectory
    # A aggregate 0.525 passes (human: failed), B 0.533 passes (human: passed): po 0.5, pe 0.5 -> kappa 0
    assert trajectory.pass_fail.matrix == [[0, 1], [0, 1]]
    assert trajectory.pass_fail.agreement.value == 0.5
    assert trajectory.pass_fail.kappa.value == pytest.approx(0.0)
    assert trajectory.scores.spearman.value == pytest.approx(1.0)


def test_unmatched_labels_are_listed_with_a_reason() -> None:
    labels = [
        Label(line=1, trajectory_id="C", failed=True),
        Label(line=2, trajectory_id="A", step=9, failed=True),
        Label(line=3, session_id="s", failed=True),
        Label(line=4, trajectory_id="A", session_id="x", failed=True),
    ]
    matches, unmatched = match_labels(two_trajectories(), labels)
    assert matches == []
    assert [(i.line, i.reason) for i in unmatched] == [
        (1, "no_trajectory"),
        (2, "no_step"),
        (3, "ambiguous_trajectory"),
        (4, "no_trajectory"),
    ]


def test_a_step_without_judge_score_is_excluded_not_dropped() -> None:
    data = results(node("a.json", [step(1, 0.9), step(2, None, status=StepStatus.FAILED)], trajectory_id="A"))
    out = measure_agreement(
        data,
        [
            Label(line=1, trajectory_id="A", step=2, score=1, failed=True),
            Label(line=2, trajectory_id="A", step=1, score=3, failed=False),
        ],
        labels_file="l",
    )
    assert out.step.scores.n == 1 and out.step.pass_fail.n == 1
    assert [(i.line, i.reason, i.measure) for i in out.excluded] == [
        (1, "judge_no_score", "step.scores"),
        (1, "judge_no_verdict", "step.pass_fail"),
    ]
    assert out.step.scores.spearman.value is None and out.step.scores.spearman.reason == "under 2 pairs"


def test_two_labels_for_one_step_are_an_error() -> None:
    with pytest.raises(InputError, match="lines 1 and 2 name the same step"):
        match_labels(
            two_trajectories(),
            [Label(line=1, trajectory_id="A", step=1, failed=True), Label(line=2, node_id="a.json", step=1, score=1)],
        )


def test_intervals_resample_trajectories_and_contain_the_estimate() -> None:
    out = report()
    pass_fail = out.step.pass_fail.agreement
    assert pass_fail.units == 2 and pass_fail.n == 6
    assert pass_fail.low is not None and pass_fail.high is not None
    assert pass_fail.low <= pass_fail.value <= pass_fail.high
    # resampling 2 trajectories gives 3 distinct resamples: A+A (3/4), A+B, B+B (1/2)
    assert (pass_fail.low, pass_fail.high) == (pytest.approx(0.5), pytest.approx(0.75))
    assert report() == out  # deterministic for a seed


def test_a_step_id_label_is_matched_in_its_own_segment_only() -> None:
    continued = [step(i, 0.9).model_copy(update={"segment": 1, "step_id": i - 3}) for i in (4, 5)]
    run = results(node("a.json", [step(1, 0.9), step(2, 0.9), step(3, 0.1), *continued], trajectory_id="a"))
    labels = [Label(line=1, trajectory_id="a", step_id=2, segment=1, failed=True, decisive=True)]
    matches, unmatched = match_labels(run, labels)
    assert unmatched == [] and matches[0].step is not None and matches[0].step.index == 5
    report = measure_agreement(run, labels, labels_file="l", resamples=100)
    assert report.localisation.rows[0].decisive_step == 5 and report.localisation.rows[0].judge_lowest_step == 3
    missing = match_labels(run, [Label(line=1, trajectory_id="a", step_id=3, segment=1, failed=True)])[1]
    assert [issue.reason for issue in missing] == ["no_step"]  # step_id 3 exists only in segment 0
