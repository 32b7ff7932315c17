"""Standardised effect sizes (Cohen's d) for paired and independent samples."""

from __future__ import annotations

import math

import numpy.typing as npt

from tracegrade.stats._arrays import as_pair, as_values

__all__ = ["cohens_d", "cohens_d_paired"]


def cohens_d_paired(x: npt.ArrayLike, y: npt.ArrayLike) -> float | None:
    """Paired effect size: the mean of ``x − y`` over the sample standard deviation of ``x − y``.

    None with fewer than two pairs or when every difference is the same (zero spread).

    Raises:
        ValueError: the samples differ in length or contain NaN, infinity or None.
    """
    first, second = as_pair(x, y)
    differences = first - second
    if differences.size < 2:
        return None
    spread = float(differences.std(ddof=1))
    return float(differences.mean()) / spread if spread > 0 else None


def cohens_d(x: npt.ArrayLike, y: npt.ArrayLike) -> float | None:
    """Independent-samples effect size: ``(mean x − mean y)`` over the pooled standard deviation.

    The pooled variance is ``((nx−1)·sx² + (ny−1)·sy²) / (nx + ny − 2)``. None when either sample is
    empty, when there are fewer than three values in all, or when the pooled spread is zero.

    Raises:
        ValueError: a sample contains NaN, infinity or None.
    """
    first, second = as_values(x, "x"), as_values(y, "y")
    nx, ny = first.size, second.size
    if nx == 0 or ny == 0 or nx + ny < 3:
        return None
    squares = float(((first - first.mean()) ** 2).sum() + ((second - second.mean()) ** 2).sum())
    pooled = math.sqrt(squares / (nx + ny - 2))
    return float(first.mean() - second.mean()) / pooled if pooled > 0 else None
