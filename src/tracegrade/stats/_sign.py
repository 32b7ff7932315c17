"""The exact two-sided sign test of wins against losses (ties left out)."""

from __future__ import annotations

from tracegrade.stats._records import TestResult

__all__ = ["sign_test"]


def sign_test(wins: int, losses: int) -> TestResult:
    """Two-sided exact binomial test of ``wins`` out of ``wins + losses`` against one half.

    ``statistic`` is the share of wins among the decided pairs; both are None without a decided pair.

    Raises:
        ValueError: a negative count.
    """
    if wins < 0 or losses < 0:
        raise ValueError("sign_test: counts must not be negative")
    n = wins + losses
    if n == 0:
        return TestResult(statistic=None, p_value=None, n=0)
    from scipy import stats as scipy_stats

    result = scipy_stats.binomtest(wins, n, 0.5, alternative="two-sided")
    return TestResult(statistic=wins / n, p_value=float(min(1.0, result.pvalue)), n=n)
