"""Localisation results against labels: agent and step accuracy, ±1 / ±3, exclusions, and interval coverage."""

from __future__ import annotations

import random

import pytest

from tests.atif.agreement.localised import decisive, localised, planted, row
from tests.atif.coverage import assert_covers
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.agreement._strategies import measure_localisations
from tracegrade.atif.localising._params import Strategy
from tracegrade.atif.localising._records import LocaliseStatus, LocatedStep, TrajectoryLocalisation
from tracegrade.errors import InputError

LABELS = [decisive("a.json", 4, "coder", 1), decisive("b.json", 10, "checker", 2), decisive("c.json", 7, None, 3),
          decisive("d.json", 2, "coder", 4), decisive("e.json", 5, "coder", 5),
          Label(line=6, trajectory_id="a", failed=True)]


def test_agent_step_and_distance_measures() -> None:
    found = localised(row("a.json", "coder", 4), row("b.json", "coder", 11), row("c.json", "x", 3),
                      row("d.json", "coder", None), row("e.json", "coder", 5, status=LocaliseStatus.FAILED))
    scored = measure_localisations([("l.json", found)], LABELS, labels_file="l.jsonl", resamples=200)
    strategy = scored.strategies[0]
    assert scored.labels == 5 and strategy.strategy == "all-at-once" and strategy.trajectories == 4
    assert (strategy.step.value, strategy.step.n) == (0.25, 4)  # the none-found trajectory counts as a miss
    assert (strategy.within_1.value, strategy.within_3.value) == (0.5, 0.5)
    assert (strategy.agent.value, strategy.agent.n) == (2 / 3, 3)  # c's label names no agent; d named none
    excluded = [(i.target, i.reason) for i in strategy.excluded]
    assert excluded == [("trajectory_id=e step=5", "judge_failed:schema_violation")]
    assert [r.distance for r in strategy.rows] == [0, 1, 4, None]
    assert strategy.step.low is not None and strategy.step.low <= 0.25 <= strategy.step.high


def test_each_localisation_is_its_own_row_and_ground_truth_is_named() -> None:
    runs = [("a", localised(row("a.json", "coder", 4))),
            ("b", localised(row("a.json", "coder", 5), strategy=Strategy.BINARY_SEARCH, ground_truth=True))]
    scored = measure_localisations(runs, LABELS, labels_file="l", resamples=100)
    assert [s.strategy for s in scored.strategies] == ["all-at-once", "binary-search + ground truth"]
    assert [s.step.value for s in scored.strategies] == [1.0, 0.0]
    assert [len(s.excluded) for s in scored.strategies] == [4, 4]  # b..e were not localised in these runs


def test_a_step_in_another_node_is_at_no_distance() -> None:
    found = localised(row("a.json", "coder", 4, node="a.json::child.json"))
    strategy = measure_localisations([("l", found)], LABELS[:1], labels_file="l", resamples=100).strategies[0]
    assert strategy.rows[0].distance is None and strategy.within_3.value == 0.0


def test_empty_measures_are_null_with_a_reason() -> None:
    strategy = measure_localisations([("l", localised())], LABELS, labels_file="l").strategies[0]
    assert strategy.step.value is None and strategy.step.reason == "no labelled trajectory localised"
    assert strategy.agent.reason == "no label names the agent"


def test_two_decisive_labels_for_one_trajectory_are_refused() -> None:
    with pytest.raises(InputError, match="lines 1 and 2"):
        measure_localisations([], [decisive("a.json", 1, None, 1), decisive("a.json", 2, None, 2)], labels_file="l")


def test_intervals_of_step_and_agent_accuracy_cover_the_planted_accuracy() -> None:
    runs, p_step, p_agent = 250, 0.3, 0.6
    covered = {"step": 0, "agent": 0}
    for seed in range(runs):
        found, labels = planted(40, p_step, p_agent, random.Random(seed))
        strategy = measure_localisations([("l", found)], labels, labels_file="l", resamples=500,
                                         seed=seed).strategies[0]
        for name, planted_value in (("step", p_step), ("agent", p_agent)):
            estimate = getattr(strategy, name)
            covered[name] += estimate.low <= planted_value <= estimate.high
    assert_covers(covered["step"], runs)
    assert_covers(covered["agent"], runs)


def _by_id(label: Label, step_id: int, segment: int = 0) -> Label:
    return label.model_copy(update={"step": None, "step_id": step_id, "segment": segment})


def test_labels_by_step_id_give_the_same_figures_as_labels_by_step() -> None:
    found = localised(row("a.json", "coder", 4), row("b.json", "coder", 11), row("c.json", "x", 3),
                      row("d.json", "coder", None))
    by_step = measure_localisations([("l", found)], LABELS, labels_file="l", resamples=200).strategies[0]
    by_id = measure_localisations([("l", found)], [_by_id(label, label.step) if label.step else label
                                                  for label in LABELS], labels_file="l", resamples=200)
    assert by_id.labels == 5 and by_id.strategies[0].trajectories == by_step.trajectories == 4
    for measure in ("agent", "step", "within_1", "within_3"):
        assert getattr(by_id.strategies[0], measure) == getattr(by_step, measure)
    assert [r.distance for r in by_id.strategies[0].rows] == [0, 1, 4, None]


def _continued(step_id: int, segment: int, index: int) -> TrajectoryLocalisation:
    step = LocatedStep(ref=f"T0.{index}", node_id="a.json", index=index, step_id=step_id, segment=segment,
                       position=index - 1)
    return row("a.json", "coder", 1).model_copy(update={"step": step})


def test_a_step_id_label_names_its_own_segment_only() -> None:
    label = Label(line=1, trajectory_id="a", step_id=2, segment=1, decisive=True)
    right = measure_localisations([("l", localised(_continued(2, 1, 7)))], [label], labels_file="l").strategies[0]
    assert right.step.value == 1.0 and right.rows[0].labelled_step == 7
    wrong = measure_localisations([("l", localised(_continued(2, 0, 2)))], [label], labels_file="l").strategies[0]
    assert wrong.step.value == 0.0 and wrong.rows[0].distance is None  # segment 1's offset is unknown here


def test_the_run_places_a_step_id_label_of_another_segment() -> None:
    from tests.atif.agree_data import node, results, step

    continued = step(6, 0.1).model_copy(update={"segment": 1, "step_id": 1})
    run = results(node("a.json", [step(i, 0.9) for i in range(1, 6)] + [continued], trajectory_id="a"))
    label = Label(line=1, trajectory_id="a", step_id=1, segment=1, decisive=True)
    named = localised(_continued(4, 0, 4))
    strategy = measure_localisations([("l", named)], [label], labels_file="l", results=run).strategies[0]
    assert (strategy.rows[0].labelled_step, strategy.rows[0].distance) == (6, 2)
    assert strategy.step.value == 0.0 and strategy.within_3.value == 1.0
