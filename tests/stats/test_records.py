from __future__ import annotations

import pytest

from tracegrade.stats import ConfusionMatrix


def test_a_matrix_counts_each_pair_and_totals_every_cell() -> None:
    matrix = ConfusionMatrix(labels=("pass", "fail"), counts=((3, 1), (2, 4)))
    assert matrix.count("pass", "fail") == 1 and matrix.count("fail", "pass") == 2
    assert matrix.total == 10


def test_a_label_outside_the_matrix_is_a_key_error_naming_it() -> None:
    matrix = ConfusionMatrix(labels=("pass", "fail"), counts=((1, 0), (0, 1)))
    for expected, predicted in (("skip", "pass"), ("pass", "skip")):
        with pytest.raises(KeyError, match="label not in the confusion matrix: 'skip'"):
            matrix.count(expected, predicted)
