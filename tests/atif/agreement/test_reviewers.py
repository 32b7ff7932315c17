from __future__ import annotations

import pytest

from tests.atif.agree_data import STEP_LABELS, two_trajectories
from tracegrade.atif.agreement._agree import measure_agreement
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.agreement._reviewers import measure_reviewers
from tracegrade.errors import InputError


def as_reviewer(name: str, labels: list[Label]) -> list[Label]:
    return [label.model_copy(update={"reviewer": name}) for label in labels]


def test_a_reviewer_agrees_perfectly_with_a_copy_of_their_labels() -> None:
    ann = as_reviewer("ann", STEP_LABELS)
    found = measure_reviewers(two_trajectories(), ("ann", ann), ("bob", as_reviewer("bob", STEP_LABELS)),
                              resamples=200)
    assert (found.first, found.second, found.common_steps) == ("ann", "bob", 6)
    assert found.pass_fail_share.value == 1.0 and found.pass_fail_kappa.value == pytest.approx(1.0)
    assert found.spearman.value == pytest.approx(1.0) and found.spearman.n == 6
    assert found.category_share.n == 3 and found.category_share.value == 1.0
    assert found.decisive_exact.value == 1.0 and found.decisive_exact.n == 2


def test_only_steps_both_labelled_count_and_disagreements_lower_the_figures() -> None:
    ann = as_reviewer("ann", STEP_LABELS)
    flipped = [label.model_copy(update={"failed": not label.failed, "score": -label.score if label.score else None,
                                        "decisive": None})
               for label in as_reviewer("bob", STEP_LABELS[:4])]
    found = measure_reviewers(two_trajectories(), ("ann", ann), ("bob", flipped), resamples=200)
    assert found.common_steps == 4
    assert found.pass_fail_share.value == 0.0 and found.pass_fail_share.n == 4
    assert found.spearman.value == pytest.approx(-1.0)
    assert found.decisive_exact.value is None and found.decisive_exact.reason is not None


def test_the_judge_figures_of_one_reviewer_are_agrees_and_a_step_twice_names_both_reviewers() -> None:
    mixed = [*as_reviewer("ann", STEP_LABELS), *as_reviewer("bob", STEP_LABELS[:1])]
    alone = measure_agreement(two_trajectories(), as_reviewer("ann", STEP_LABELS), labels_file="l", resamples=200)
    assert alone.step.pass_fail.n == 6
    with pytest.raises(InputError, match="reviewers 'ann' and 'bob': choose one with --reviewer"):
        measure_agreement(two_trajectories(), mixed, labels_file="l", resamples=200)
