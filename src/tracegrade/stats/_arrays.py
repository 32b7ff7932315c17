"""Input checks shared by the statistics functions."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["as_pair", "as_values", "check_level"]


def as_values(values: npt.ArrayLike, name: str = "values") -> npt.NDArray[np.float64]:
    """Return ``values`` as a one-dimensional float array.

    Raises:
        ValueError: the values are not one-dimensional numbers, or contain NaN, infinity or None.
    """
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numbers: {exc}") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} contain NaN, infinity or None; drop undefined values before computing statistics")
    return array


def as_pair(
    x: npt.ArrayLike, y: npt.ArrayLike, names: tuple[str, str] = ("x", "y")
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Return two paired samples as float arrays of equal length.

    Raises:
        ValueError: either sample is invalid, or their lengths differ.
    """
    first, second = as_values(x, names[0]), as_values(y, names[1])
    if first.size != second.size:
        raise ValueError(f"paired samples differ in length: {names[0]} has {first.size}, {names[1]} has {second.size}")
    return first, second


def check_level(level: float, resamples: int = 1) -> None:
    """Refuse a confidence level outside (0, 1), or fewer than one bootstrap resample.

    Raises:
        ValueError: ``level`` is not strictly between 0 and 1, or ``resamples`` is below 1.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be strictly between 0 and 1, got {level}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
