from __future__ import annotations

import numpy as np
import pytest

from tracegrade.stats import mean, median, paired_bootstrap_ci
from tracegrade.stats._arrays import as_pair, as_values, check_level


def test_nan_or_none_in_input_is_refused() -> None:
    with pytest.raises(ValueError, match="NaN"):
        median([1.0, float("nan")])
    with pytest.raises(ValueError, match="None"):
        mean([1.0, None])


def test_paired_samples_of_different_length_are_refused() -> None:
    with pytest.raises(ValueError, match="candidate has 2, baseline has 1"):
        paired_bootstrap_ci([1.0, 2.0], [1.0])


def test_values_become_a_flat_float_array() -> None:
    array = as_values([1, 2, 3])
    assert array.dtype == np.float64 and array.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([[1.0, 2.0]], r"scores must be one-dimensional, got shape \(1, 2\)"),
        (["high"], "scores must be numbers"),
        ([1.0, float("inf")], "scores contain NaN, infinity or None"),
    ],
)
def test_unusable_values_are_refused_by_name(values: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        as_values(values, "scores")  # type: ignore[arg-type]


def test_a_pair_keeps_both_samples_in_order() -> None:
    first, second = as_pair([1, 2], [3, 4])
    assert (first.tolist(), second.tolist()) == ([1.0, 2.0], [3.0, 4.0])


@pytest.mark.parametrize("level", [0.0, 1.0, -0.5, 1.5])
def test_a_level_outside_zero_and_one_is_refused(level: float) -> None:
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        check_level(level)


def test_a_level_inside_zero_and_one_is_accepted() -> None:
    check_level(0.001)
    check_level(0.999)
