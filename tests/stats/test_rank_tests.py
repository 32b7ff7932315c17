from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from tracegrade.stats import TestResult, mann_whitney_u, wilcoxon_signed_rank

BASELINE = [0.31, 0.52, 0.44, 0.70, 0.12, 0.66, 0.58, 0.25, 0.49, 0.90]
PROPOSED = [0.45, 0.50, 0.61, 0.82, 0.30, 0.71, 0.58, 0.40, 0.47, 0.95]


def test_wilcoxon_by_hand_on_four_pairs() -> None:
    # Differences x − y: -1, 0 (dropped), -2, +3, -4 → ranks 1, 2, 3, 4; W+ = 3, W- = 7.
    result = wilcoxon_signed_rank([1, 2, 3, 4, 5], [2, 2, 5, 1, 9])
    assert result.statistic == 3.0 and result.n == 4
    assert result.p_value == pytest.approx(0.625)  # exact: 10 of 16 sign patterns are as extreme


def test_wilcoxon_agrees_with_scipy() -> None:
    expected = scipy_stats.wilcoxon(PROPOSED, BASELINE)
    result = wilcoxon_signed_rank(PROPOSED, BASELINE)
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue)
    assert result.n == 9  # one pair is tied and dropped


def test_wilcoxon_without_any_difference_is_undefined() -> None:
    assert wilcoxon_signed_rank([0.5, 0.7], [0.5, 0.7]) == TestResult(None, None, 0)
    assert wilcoxon_signed_rank([], []) == TestResult(None, None, 0)


def test_mann_whitney_by_hand_with_complete_separation() -> None:
    result = mann_whitney_u([1, 2, 3], [4, 5, 6, 7])
    assert result.statistic == 0.0 and result.n == 7
    assert result.p_value == pytest.approx(2 / 35)  # exact: 2 of C(7,3) = 35 arrangements


def test_mann_whitney_agrees_with_scipy() -> None:
    expected = scipy_stats.mannwhitneyu(PROPOSED, BASELINE, alternative="two-sided")
    result = mann_whitney_u(PROPOSED, BASELINE)
    assert (result.statistic, result.p_value) == pytest.approx((expected.statistic, expected.pvalue))


def test_mann_whitney_with_an_empty_sample_is_undefined() -> None:
    assert mann_whitney_u([], [1.0, 2.0]) == TestResult(None, None, 2)


def test_wilcoxon_refuses_unpaired_samples() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        wilcoxon_signed_rank([1.0, 2.0], [1.0])


def test_wilcoxon_beyond_50_pairs_is_scipys_normal_approximation_without_scipy() -> None:
    import subprocess
    import sys

    from scipy import stats as scipy_stats

    rng = np.random.default_rng(0)
    for size in (51, 500, 2000):
        x = np.round(rng.uniform(size=size), 2)  # ties and zero differences both occur
        y = np.round(np.clip(x + rng.normal(0, 0.1, size), 0, 1), 2)
        ours = wilcoxon_signed_rank(x, y)
        theirs = scipy_stats.wilcoxon(x, y, zero_method="wilcox", method="asymptotic")
        assert ours.statistic == float(theirs.statistic) and ours.n == int(np.count_nonzero(x - y))
        assert ours.p_value == pytest.approx(float(theirs.pvalue), rel=1e-12)
    code = ("import sys, numpy as np; from tracegrade.stats import wilcoxon_signed_rank as w; "
            "w(np.arange(60.0), np.arange(60.0) * 0.9); print('scipy' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
