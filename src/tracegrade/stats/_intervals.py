"""Confidence intervals of a mean and of a paired mean difference."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np
import numpy.typing as npt

from tracegrade.stats._arrays import as_pair, as_values, check_level
from tracegrade.stats._bootstrap import bootstrap_means, group_totals, percentile_bounds
from tracegrade.stats._records import Interval

__all__ = ["bootstrap_mean_ci", "mean_ci", "paired_bootstrap_ci"]


def mean_ci(values: npt.ArrayLike, level: float = 0.95) -> Interval:
    """Mean with a Student-t interval: ``mean ± t(n-1) · s / sqrt(n)``.

    The estimate is None for an empty sample; the bounds are None with fewer than two values.

    Raises:
        ValueError: ``level`` is outside (0, 1) or the values contain NaN, infinity or None.
    """
    check_level(level)
    array = as_values(values)
    if array.size < 2:
        return _degenerate(array, level)
    from scipy import stats

    centre = float(array.mean())
    half = float(stats.t.ppf((1.0 + level) / 2.0, array.size - 1)) * float(array.std(ddof=1)) / math.sqrt(array.size)
    return Interval(centre, centre - half, centre + half, array.size, level)


def bootstrap_mean_ci(values: npt.ArrayLike, *, resamples: int = 2000, level: float = 0.95, seed: int = 0) -> Interval:
    """Mean with a percentile bootstrap interval (deterministic for a given ``seed``).

    The estimate is None for an empty sample; the bounds are None with fewer than two values.

    Raises:
        ValueError: ``level`` is outside (0, 1), ``resamples`` < 1, or the values contain NaN, infinity or None.
    """
    check_level(level, resamples)
    array = as_values(values)
    if array.size < 2:
        return _degenerate(array, level)
    low, high = percentile_bounds(bootstrap_means(array, None, resamples=resamples, seed=seed), level)
    return Interval(float(array.mean()), low, high, array.size, level)


def paired_bootstrap_ci(
    candidate: npt.ArrayLike,
    baseline: npt.ArrayLike,
    *,
    groups: Sequence[Hashable] | None = None,
    resamples: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> Interval:
    """Mean difference ``candidate − baseline`` with a paired percentile bootstrap interval.

    The estimate is the plain mean over all pairs. Without ``groups`` each resample draws pairs with
    replacement; with ``groups`` (one label per pair, e.g. the source case of each repetition) it
    draws whole groups, and the resample's value is its summed difference over its pair count.
    ``n`` counts the resampled units: pairs, or distinct groups when ``groups`` is given. The
    estimate is None without pairs and the bounds are None with fewer than two units. Deterministic
    for a given ``seed``.

    Raises:
        ValueError: the samples differ in length, ``groups`` has the wrong length, ``level`` is
            outside (0, 1), ``resamples`` < 1, or a value is NaN, infinite or None.
    """
    check_level(level, resamples)
    cand, base = as_pair(candidate, baseline, ("candidate", "baseline"))
    differences = cand - base
    if groups is None:
        sums, counts = differences, None
    else:
        sums, counts = group_totals(differences, groups)
    if sums.size < 2:
        estimate = float(differences.mean()) if differences.size else None
        return Interval(estimate, None, None, int(sums.size), level)
    low, high = percentile_bounds(bootstrap_means(sums, counts, resamples=resamples, seed=seed), level)
    return Interval(float(differences.mean()), low, high, int(sums.size), level)


def _degenerate(array: npt.NDArray[np.float64], level: float) -> Interval:
    estimate = float(array[0]) if array.size else None
    return Interval(estimate, None, None, int(array.size), level)

