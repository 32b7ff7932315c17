from __future__ import annotations

import numpy as np
import pytest

from tracegrade.stats import paired_bootstrap_ci
from tracegrade.stats._bootstrap import bootstrap_means, group_totals, percentile_bounds


def test_grouped_bootstrap_only_sees_whole_groups() -> None:
    # Group "a" differs by +1 in both pairs, group "b" by -1: a resample mean is -1, 0 or +1 only.
    result = paired_bootstrap_ci([1, 1, 0, 0], [0, 0, 1, 1], groups=["a", "a", "b", "b"], level=0.99)
    assert (result.low, result.high) == (-1.0, 1.0)


def test_groups_are_numbered_in_order_of_first_appearance() -> None:
    sums, counts = group_totals(np.array([1.0, 2.0, 3.0, 4.0]), ["b", "a", "b", "c"])
    assert sums.tolist() == [4.0, 2.0, 4.0] and counts.tolist() == [2.0, 1.0, 1.0]


def test_groups_need_one_label_per_value() -> None:
    with pytest.raises(ValueError, match="got 1 labels for 2 pairs"):
        group_totals(np.array([1.0, 2.0]), ["a"])


def test_the_same_seed_draws_the_same_resamples() -> None:
    values = np.random.default_rng(0).random(30)
    first = bootstrap_means(values, None, resamples=50, seed=3)
    assert np.array_equal(first, bootstrap_means(values, None, resamples=50, seed=3))
    assert not np.array_equal(first, bootstrap_means(values, None, resamples=50, seed=4))


def test_a_grouped_resample_mean_is_its_total_over_its_count() -> None:
    # group a: two values of 1, group b: one value of 4; a resample of two groups holds 2, 3 or 4 values
    means = bootstrap_means(np.array([2.0, 4.0]), np.array([2.0, 1.0]), resamples=400, seed=0)
    assert set(np.round(means, 9)) == {1.0, 2.0, 4.0}


def test_every_resample_is_drawn_when_they_span_several_chunks() -> None:
    values = np.full(1 << 21, 0.5)  # two resamples per chunk of indices: five resamples take three chunks
    means = bootstrap_means(values, None, resamples=5, seed=0)
    assert means.tolist() == [0.5] * 5


def test_bounds_are_the_central_percentiles() -> None:
    assert percentile_bounds(np.arange(101, dtype=np.float64), 0.9) == pytest.approx((5.0, 95.0))
