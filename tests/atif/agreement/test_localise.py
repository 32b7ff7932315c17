from __future__ import annotations

import pytest

from tests.atif.agree_data import node, report, results, step
from tracegrade.atif.agreement._agree import match_labels
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.agreement._localise import judge_lowest_step, localisation
from tracegrade.atif.agreement._records import LabelIssue, Localisation
from tracegrade.atif.scoring._records import StepStatus
from tracegrade.errors import InputError


def test_localisation_compares_decisive_step_with_the_lowest_judge_step() -> None:
    localisation = report().localisation
    assert [(r.node_id, r.decisive_step, r.judge_lowest_step, r.distance) for r in localisation.rows] == [
        ("a.json", 2, 2, 0),
        ("b.json", 2, 3, 1),
    ]
    assert (localisation.exact.value, localisation.within_1.value, localisation.within_3.value) == (0.5, 1.0, 1.0)


def test_two_decisive_steps_in_one_trajectory_are_an_error() -> None:
    with pytest.raises(InputError, match=r"lines 1 and 2 both mark a decisive step of a\.json"):
        report(
            [
                Label(line=1, trajectory_id="A", step=1, decisive=True),
                Label(line=2, trajectory_id="A", step=2, decisive=True),
            ]
        )


def test_the_judges_pointer_is_its_lowest_scored_step_the_earliest_on_a_tie() -> None:
    tied = node("t.json", [step(1, 0.9), step(2, 0.3), step(3, 0.3), step(4, None, status=StepStatus.FAILED)])
    assert (lowest := judge_lowest_step(tied)) is not None and lowest.index == 2
    assert judge_lowest_step(node("u.json", [step(1, None, status=StepStatus.FAILED)])) is None


def located(*trajectories: tuple[list[float | None], int]) -> tuple[Localisation, list[LabelIssue]]:
    """Localisation over one trajectory per (step scores, decisive step); a None score is a failed step."""
    nodes, labels = [], []
    for number, (scores, decisive) in enumerate(trajectories, start=1):
        made = [step(i, s, status=StepStatus.SCORED if s is not None else StepStatus.FAILED)
                for i, s in enumerate(scores, start=1)]
        nodes.append(node(f"t{number}.json", made, trajectory_id=f"T{number}"))
        labels.append(Label(line=number, trajectory_id=f"T{number}", step=decisive, decisive=True))
    matches, _ = match_labels(results(*nodes), labels)
    excluded: list[LabelIssue] = []
    return localisation(matches, excluded, level=0.95, resamples=200, seed=0), excluded


def test_distances_count_within_each_tolerance() -> None:
    found, _ = located(([0.9, 0.1, 0.8, 0.8, 0.8], 5), ([0.2, 0.9], 1), ([0.9, 0.9, 0.9, 0.9, 0.1], 1))
    assert [row.distance for row in found.rows] == [3, 0, 4]
    shares = (found.exact.value, found.within_1.value, found.within_3.value)
    assert shares == pytest.approx((1 / 3, 1 / 3, 2 / 3))


def test_a_trajectory_the_judge_never_scored_is_excluded_with_a_reason() -> None:
    found, excluded = located(([None, None], 1))
    assert found.trajectories == 0 and found.rows == []
    assert [(i.line, i.reason, i.measure) for i in excluded] == [(1, "judge_no_score", "localisation")]
    assert found.exact.value is None and found.exact.reason
    assert found.exact.resamples_used == 0
