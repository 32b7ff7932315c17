from __future__ import annotations

import pytest

from tracegrade.stats import mean, median, nearest_rank_percentile, std

LATENCY = list(range(1, 21))


def test_latency_summary_over_one_to_twenty() -> None:
    assert median(LATENCY) == 10.5
    assert nearest_rank_percentile(LATENCY, 0.95) == 19
    assert nearest_rank_percentile(LATENCY, 0.5) == 10
    assert nearest_rank_percentile(LATENCY, 1.0) == 20
    assert nearest_rank_percentile(LATENCY, 0.01) == 1


@pytest.mark.parametrize(("q", "value"), [(0.25, 3), (0.33, 4), (0.95, 10), (0.05, 1), (0.15, 2)])
def test_a_fractional_rank_is_rounded_up(q: float, value: int) -> None:
    # q·n of 2.5, 3.3, 9.5, 0.5, 1.5 over ten values: the rank is the ceiling, never the floor or the nearest
    assert nearest_rank_percentile(range(1, 11), q) == value


def test_nearest_rank_is_not_moved_by_binary_noise() -> None:
    # 0.07 * 100 is 7.000000000000001 in floating point; the rank must stay 7.
    assert nearest_rank_percentile(range(1, 101), 0.07) == 7


def test_nearest_rank_ignores_input_order() -> None:
    assert nearest_rank_percentile([5.0, 1.0, 4.0, 2.0, 3.0], 0.6) == 3.0


def test_empty_samples_are_none() -> None:
    assert median([]) is None
    assert mean([]) is None
    assert nearest_rank_percentile([], 0.95) is None
    assert std([]) is None and std([1.0]) is None


def test_mean_and_sample_std() -> None:
    assert mean([1, 2, 3, 4]) == 2.5
    assert std([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx((32 / 7) ** 0.5)


@pytest.mark.parametrize("q", [0.0, -0.1, 1.01])
def test_percentile_fraction_out_of_range_is_refused(q: float) -> None:
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        nearest_rank_percentile([1.0], q)
