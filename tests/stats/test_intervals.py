from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from tracegrade.stats import Interval, bootstrap_mean_ci, mean_ci, paired_bootstrap_ci


def test_mean_ci_is_the_student_t_interval() -> None:
    result = mean_ci([1, 2, 3, 4, 5])
    half = 2.7764451051977987 * math.sqrt(2.5) / math.sqrt(5)  # t(0.975, 4) · s / sqrt(n)
    assert result.estimate == 3.0
    assert result.low == pytest.approx(3.0 - half) and result.high == pytest.approx(3.0 + half)
    assert (result.n, result.level) == (5, 0.95)


def test_mean_ci_agrees_with_scipy_at_ninety_percent() -> None:
    values = [0.2, 0.9, 0.4, 0.7, 0.55, 0.1]
    low, high = scipy_stats.t.interval(0.9, 5, loc=np.mean(values), scale=scipy_stats.sem(values))
    result = mean_ci(values, level=0.9)
    assert (result.low, result.high) == pytest.approx((low, high))


def test_too_few_values_give_no_bounds() -> None:
    assert mean_ci([]) == Interval(None, None, None, 0, 0.95)
    assert mean_ci([0.4]) == Interval(0.4, None, None, 1, 0.95)
    assert bootstrap_mean_ci([0.4]) == Interval(0.4, None, None, 1, 0.95)
    assert paired_bootstrap_ci([], []) == Interval(None, None, None, 0, 0.95)


def test_bootstrap_mean_ci_brackets_the_mean_and_is_seeded() -> None:
    values = np.random.default_rng(3).normal(0.6, 0.1, 200)
    first = bootstrap_mean_ci(values, seed=7)
    assert first == bootstrap_mean_ci(values, seed=7)
    assert first != bootstrap_mean_ci(values, seed=8)
    assert first.low is not None and first.high is not None
    assert first.low < float(values.mean()) < first.high
    # within 5 % of the normal-theory width at 95 %: a 90 % interval (16 % narrower) or a 99 % one cannot pass
    assert first.high - first.low == pytest.approx(2 * 1.96 * values.std(ddof=1) / math.sqrt(200), rel=0.05)


def test_constant_differences_give_a_zero_width_interval() -> None:
    result = paired_bootstrap_ci([0.8, 0.9, 1.0], [0.6, 0.7, 0.8])
    assert result.estimate == pytest.approx(0.2)
    assert result.low == pytest.approx(0.2) and result.high == pytest.approx(0.2)


def test_paired_estimate_is_candidate_minus_baseline_over_all_pairs() -> None:
    result = paired_bootstrap_ci([1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0], groups=["a", "a", "a", "b"])
    assert result.estimate == 0.5  # plain mean over the four pairs, not the mean of group means
    assert result.n == 2  # two source cases resampled


def test_one_group_gives_no_bounds() -> None:
    result = paired_bootstrap_ci([0.5, 1.0], [0.0, 0.0], groups=["a", "a"])
    assert result == Interval(0.75, None, None, 1, 0.95)


def test_grouped_interval_is_wider_when_repetitions_are_correlated() -> None:
    rng = np.random.default_rng(0)
    case_effect = np.repeat(rng.normal(0, 1, 50), 5)
    candidate, baseline = case_effect + rng.normal(0, 0.05, 250), np.zeros(250)
    groups = np.repeat(np.arange(50), 5).tolist()
    pooled = paired_bootstrap_ci(candidate, baseline)
    grouped = paired_bootstrap_ci(candidate, baseline, groups=groups)
    assert pooled.low is not None and pooled.high is not None
    assert grouped.low is not None and grouped.high is not None
    assert grouped.high - grouped.low > 1.8 * (pooled.high - pooled.low)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"level": 1.0}, "strictly between"),
        ({"resamples": 0}, "at least 1"),
        ({"groups": ["a"]}, "one label per pair"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        paired_bootstrap_ci([1.0, 2.0], [1.0, 1.0], **kwargs)  # type: ignore[arg-type]


def test_hundred_thousand_pairs_pooled_and_grouped_give_an_interval_around_the_estimate() -> None:
    rng = np.random.default_rng(1)
    candidate, baseline = rng.random(100_000), rng.random(100_000)
    groups = (np.arange(100_000) // 4).tolist()
    pooled = paired_bootstrap_ci(candidate, baseline)
    grouped = paired_bootstrap_ci(candidate, baseline, groups=groups)
    assert pooled.n == 100_000 and grouped.n == 25_000
    assert pooled.low is not None and pooled.low < pooled.estimate < pooled.high  # type: ignore[operator]
