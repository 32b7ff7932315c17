"""Non-parametric tests of location: Wilcoxon signed-rank (paired) and Mann-Whitney U (independent)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import numpy.typing as npt

from tracegrade.stats._arrays import as_pair, as_values
from tracegrade.stats._records import TestResult

__all__ = ["finite_or_none", "mann_whitney_u", "wilcoxon_signed_rank"]


def wilcoxon_signed_rank(x: npt.ArrayLike, y: npt.ArrayLike) -> TestResult:
    """Two-sided Wilcoxon signed-rank test of the paired differences ``x − y``.

    Zero differences are dropped (scipy's ``zero_method="wilcox"``); ``n`` counts the pairs with a
    non-zero difference, and the statistic is the smaller of the positive and negative rank sums.
    Statistic and p-value are None when no pair differs.

    Raises:
        ValueError: the samples differ in length or contain NaN, infinity or None.
    """
    first, second = as_pair(x, y)
    used = int(np.count_nonzero(first - second))
    if used == 0:
        return TestResult(None, None, 0)
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.wilcoxon(first, second, zero_method="wilcox", alternative="two-sided")
    return TestResult(finite_or_none(result.statistic), finite_or_none(result.pvalue), used)


def mann_whitney_u(x: npt.ArrayLike, y: npt.ArrayLike) -> TestResult:
    """Two-sided Mann-Whitney U test of two independent samples.

    The statistic is U of ``x`` (pairs where ``x`` exceeds ``y``, ties counting a half); ``n`` is
    ``len(x) + len(y)``. Statistic and p-value are None when either sample is empty.

    Raises:
        ValueError: a sample contains NaN, infinity or None.
    """
    first, second = as_values(x, "x"), as_values(y, "y")
    total = int(first.size + second.size)
    if not first.size or not second.size:
        return TestResult(None, None, total)
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.mannwhitneyu(first, second, alternative="two-sided")
    return TestResult(finite_or_none(result.statistic), finite_or_none(result.pvalue), total)


def finite_or_none(value: object) -> float | None:
    """``value`` as a float, or None when it is NaN or infinite (scipy's way of saying undefined)."""
    number = float(value)  # type: ignore[arg-type]
    return number if math.isfinite(number) else None
