from __future__ import annotations

import pytest
from scipy import stats as scipy_stats

from tracegrade.stats import TestResult, kendall_tau, pearson, spearman

JUDGE = [0.9, 0.4, 0.7, 0.2, 0.8, 0.5, 0.5, 0.1]
HUMAN = [1.0, 0.5, 0.5, 0.0, 1.0, 0.5, 0.0, 0.0]


def test_spearman_by_hand_without_ties() -> None:
    # Ranks 1..4 against 1,3,2,4: sum d² = 2, rho = 1 − 6·2 / (4·15) = 0.8.
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]).statistic == pytest.approx(0.8)


def test_kendall_by_hand_without_ties() -> None:
    # One discordant pair of six: tau = (5 − 1) / 6.
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]).statistic == pytest.approx(4 / 6)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [(spearman, scipy_stats.spearmanr), (kendall_tau, scipy_stats.kendalltau), (pearson, scipy_stats.pearsonr)],
)
def test_correlations_agree_with_scipy_with_ties(ours, theirs) -> None:  # type: ignore[no-untyped-def]
    expected = theirs(JUDGE, HUMAN)
    result = ours(JUDGE, HUMAN)
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue)
    assert result.n == 8


@pytest.mark.parametrize("function", [spearman, kendall_tau, pearson])
def test_constant_or_tiny_samples_are_undefined(function) -> None:  # type: ignore[no-untyped-def]
    assert function([0.5, 0.5, 0.5], [0.1, 0.2, 0.3]) == TestResult(None, None, 3)
    assert function([0.5], [0.1]) == TestResult(None, None, 1)
