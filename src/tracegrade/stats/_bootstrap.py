"""Vectorised percentile bootstrap of a mean, optionally resampling whole groups."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["bootstrap_means", "group_totals", "percentile_bounds", "resample_weights"]

_CHUNK_ELEMENTS = 1 << 22
"""Indices drawn per chunk (about 16 MiB of int32): bounds memory for any sample size."""


def group_totals(
    values: npt.NDArray[np.float64], groups: Sequence[Hashable]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Sum and count of ``values`` per group, groups numbered in order of first appearance.

    Raises:
        ValueError: ``groups`` does not have one label per value.
    """
    if len(groups) != values.size:
        raise ValueError(f"groups must have one label per pair: got {len(groups)} labels for {values.size} pairs")
    numbering: dict[Hashable, int] = {}
    codes = np.fromiter((numbering.setdefault(g, len(numbering)) for g in groups), dtype=np.int64, count=values.size)
    sums = np.bincount(codes, weights=values, minlength=len(numbering)).astype(np.float64)
    counts = np.bincount(codes, minlength=len(numbering)).astype(np.float64)
    return sums, counts


def bootstrap_means(
    sums: npt.NDArray[np.float64],
    counts: npt.NDArray[np.float64] | None,
    *,
    resamples: int,
    seed: int,
) -> npt.NDArray[np.float64]:
    """Means of ``resamples`` bootstrap resamples of the units.

    Each resample draws ``len(sums)`` units with replacement. With ``counts`` a unit is a group
    (``sums`` are its totals) and the resample mean is total over count; without, a unit is a value.
    """
    rng = np.random.default_rng(seed)
    units = sums.size
    rows = max(1, _CHUNK_ELEMENTS // units)
    means = np.empty(resamples, dtype=np.float64)
    index_type = np.int32 if units < np.iinfo(np.int32).max else np.int64
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        picks = rng.integers(0, units, size=(stop - start, units), dtype=index_type)
        totals = sums[picks].sum(axis=1)
        means[start:stop] = totals / (counts[picks].sum(axis=1) if counts is not None else units)
    return means


def resample_weights(units: int, resamples: int, seed: int) -> Iterator[tuple[int, int, npt.NDArray[np.float64]]]:
    """Bootstrap resamples of ``units`` units as ``(start, stop, weights)`` chunks of rows.

    Row ``r`` of ``weights`` counts how often resample ``start + r`` drew each unit; the draws are those
    of :func:`bootstrap_means` with the same seed.
    """
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK_ELEMENTS // units)
    index_type = np.int32 if units < np.iinfo(np.int32).max else np.int64
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        picks = rng.integers(0, units, size=(stop - start, units), dtype=index_type)
        offsets = (np.arange(stop - start, dtype=np.int64) * units)[:, None]
        drawn = np.bincount((picks + offsets).ravel(), minlength=(stop - start) * units)
        yield start, stop, drawn.reshape(stop - start, units).astype(np.float64)


def percentile_bounds(means: npt.NDArray[np.float64], level: float) -> tuple[float, float]:
    """The central ``level`` percentile interval of the bootstrap means."""
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return float(low), float(high)
