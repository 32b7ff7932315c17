from __future__ import annotations

import math

import pytest

from tracegrade.stats import cohens_d, cohens_d_paired


def test_paired_d_is_mean_difference_over_its_sd() -> None:
    # Differences 1, 2, 3: mean 2, sample sd 1.
    assert cohens_d_paired([2, 4, 6], [1, 2, 3]) == pytest.approx(2.0)


def test_paired_d_sign_follows_x_minus_y() -> None:
    assert cohens_d_paired([1, 2, 3], [2, 4, 6]) == pytest.approx(-2.0)


def test_paired_d_is_undefined_without_spread_or_pairs() -> None:
    assert cohens_d_paired([1, 2, 3], [0, 1, 2]) is None
    assert cohens_d_paired([1.0], [0.0]) is None


def test_independent_d_uses_the_pooled_sd() -> None:
    # x: mean 2, squares 2; y: mean 5, squares 8; pooled var = 10 / 4.
    assert cohens_d([1, 2, 3], [3, 5, 7]) == pytest.approx(-3 / math.sqrt(2.5))


def test_independent_d_is_undefined_without_data_or_spread() -> None:
    assert cohens_d([], [1.0, 2.0]) is None
    assert cohens_d([1.0], [2.0]) is None
    assert cohens_d([1.0, 1.0], [2.0, 2.0]) is None
