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
    Statistic and p-value are None when no pair differs. Up to 50 pairs the p-value is scipy's
    (exact, or by permutation with ties or zeros); beyond, it is the normal approximation scipy uses
    there, computed here with numpy so that large comparisons do not pay for importing scipy.

    Raises:
        ValueError: the samples differ in length or contain NaN, infinity or None.
    """
    first, second = as_pair(x, y)
    differences = first - second
    used = int(np.count_nonzero(differences))
    if used == 0:
        return TestResult(None, None, 0)
    if differences.size > _EXACT_UP_TO:
        return _wilcoxon_normal(differences[differences != 0])
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.wilcoxon(first, second, zero_method="wilcox", alternative="two-sided")
    return TestResult(finite_or_none(result.statistic), finite_or_none(result.pvalue), used)


_EXACT_UP_TO = 50
"""Pairs up to which scipy's exact or permutation p-value is used (scipy's own switch to the approximation)."""


def _wilcoxon_normal(differences: npt.NDArray[np.float64]) -> TestResult:
    """Signed-rank test by the normal approximation with the tie correction, no continuity correction."""
    count = float(differences.size)
    magnitude = np.abs(differences)
    order = np.argsort(magnitude, kind="mergesort")
    ordered = magnitude[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ties = np.diff(np.r_[starts, ordered.size]).astype(np.float64)
    ranks = np.empty_like(magnitude)
    ranks[order] = np.repeat(starts + (ties + 1.0) / 2.0, ties.astype(np.int64))
    plus = float(ranks[differences > 0].sum())
    minus = float(ranks[differences < 0].sum())
    spread = count * (count + 1.0) * (2.0 * count + 1.0)
    se = math.sqrt((spread - float((ties**3 - ties).sum()) / 2.0) / 24.0)
    if se == 0.0:
        return TestResult(min(plus, minus), None, int(count))
    z = (plus - count * (count + 1.0) * 0.25) / se
    return TestResult(min(plus, minus), math.erfc(abs(z) / math.sqrt(2.0)), int(count))


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
