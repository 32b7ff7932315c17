"""Descriptive statistics: mean, median, sample standard deviation, nearest-rank percentiles."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from tracegrade.stats._arrays import as_values

__all__ = ["mean", "median", "nearest_rank_percentile", "std"]


def mean(values: npt.ArrayLike) -> float | None:
    """Arithmetic mean; None for an empty sample.

    Raises:
        ValueError: the values contain NaN, infinity or None.
    """
    array = as_values(values)
    return float(array.mean()) if array.size else None


def median(values: npt.ArrayLike) -> float | None:
    """Median (the mean of the two middle values for an even count); None for an empty sample.

    Raises:
        ValueError: the values contain NaN, infinity or None.
    """
    array = as_values(values)
    return float(np.median(array)) if array.size else None


def std(values: npt.ArrayLike) -> float | None:
    """Sample standard deviation (denominator ``n - 1``); None with fewer than two values.

    Raises:
        ValueError: the values contain NaN, infinity or None.
    """
    array = as_values(values)
    return float(array.std(ddof=1)) if array.size >= 2 else None


def nearest_rank_percentile(values: npt.ArrayLike, q: float) -> float | None:
    """The ``ceil(q * n)``-th smallest value (nearest-rank percentile, no interpolation).

    For example the p95 of 1..20 is the 19th smallest value, 19. Returns None for an empty sample.

    Args:
        values: the sample.
        q: the quantile as a fraction in (0, 1]; 0.95 for p95.

    Raises:
        ValueError: ``q`` is outside (0, 1], or the values contain NaN, infinity or None.
    """
    if not 0.0 < q <= 1.0:
        raise ValueError(f"percentile fraction must be in (0, 1], got {q}")
    array = as_values(values)
    if not array.size:
        return None
    # Rounding first keeps binary noise (0.07 * 100 == 7.000000000000001) from moving the rank.
    rank = max(1, math.ceil(round(q * array.size, 9)))
    return float(np.partition(array, rank - 1)[rank - 1])
