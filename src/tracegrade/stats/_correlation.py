"""Correlation coefficients with two-sided p-values: Pearson, Spearman, Kendall's tau-b."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from tracegrade.stats._arrays import as_pair
from tracegrade.stats._rank_tests import finite_or_none
from tracegrade.stats._records import TestResult

__all__ = ["kendall_tau", "pearson", "spearman"]


def pearson(x: npt.ArrayLike, y: npt.ArrayLike) -> TestResult:
    """Pearson's r with its two-sided p-value.

    ``n`` is the number of pairs. Statistic and p-value are None with fewer than two pairs or when
    either sample is constant (the coefficient divides by zero).

    Raises:
        ValueError: the samples differ in length or contain NaN, infinity or None.
    """
    return _correlate(x, y, "pearsonr")


def spearman(x: npt.ArrayLike, y: npt.ArrayLike) -> TestResult:
    """Spearman's rank correlation rho with its two-sided p-value.

    ``n`` is the number of pairs. Statistic and p-value are None with fewer than two pairs or when
    either sample is constant; the p-value alone is None where scipy cannot compute one.

    Raises:
        ValueError: the samples differ in length or contain NaN, infinity or None.
    """
    return _correlate(x, y, "spearmanr")


def kendall_tau(x: npt.ArrayLike, y: npt.ArrayLike) -> TestResult:
    """Kendall's tau-b (tie-corrected) with its two-sided p-value.

    ``n`` is the number of pairs. Statistic and p-value are None with fewer than two pairs or when
    either sample is constant.

    Raises:
        ValueError: the samples differ in length or contain NaN, infinity or None.
    """
    return _correlate(x, y, "kendalltau")


def _correlate(x: npt.ArrayLike, y: npt.ArrayLike, method: str) -> TestResult:
    first, second = as_pair(x, y)
    n = int(first.size)
    if n < 2 or np.ptp(first) == 0 or np.ptp(second) == 0:
        return TestResult(None, None, n)
    from scipy import stats

    function: Callable[..., Any] = getattr(stats, method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = function(first, second)
    return TestResult(finite_or_none(result.statistic), finite_or_none(result.pvalue), n)
