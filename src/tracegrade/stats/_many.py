"""Paired bootstrap intervals of several measures from one set of resamples of the same units."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from tracegrade.stats._arrays import as_pair, check_level
from tracegrade.stats._bootstrap import _CHUNK_ELEMENTS, percentile_bounds, resample_weights
from tracegrade.stats._records import Interval

__all__ = ["PairedSample", "UnitTotals", "paired_bootstrap_many", "unit_bootstrap_many"]

PairedSample = tuple[npt.ArrayLike, npt.ArrayLike, Sequence[Hashable]]
"""``(candidate, baseline, groups)``: paired values and the unit (e.g. source case) of each pair."""
UnitTotals = tuple[Sequence[Hashable], Sequence[int], Sequence[int]]
"""``(units, sums, counts)``: distinct units (e.g. source cases), each one's summed integer differences and
how many pairs it has."""


def paired_bootstrap_many(
    samples: Mapping[str, PairedSample], *, resamples: int = 2000, level: float = 0.95, seed: int = 0
) -> dict[str, Interval]:
    """Mean difference ``candidate − baseline`` of each sample, with paired percentile bootstrap intervals.

    Equal to calling :func:`~tracegrade.stats.paired_bootstrap_ci` with ``groups`` on each sample with
    the same seed (up to floating-point rounding), but samples over the same set of units share one
    set of resamples: the units are drawn once and every measure is summed with one matrix product,
    so ten measures cost little more than one.

    Raises:
        ValueError: as :func:`~tracegrade.stats.paired_bootstrap_ci`.
    """
    check_level(level, resamples)
    return _intervals({name: _prepare(name, sample) for name, sample in samples.items()}, resamples, level, seed)


def unit_bootstrap_many(
    totals: Mapping[str, UnitTotals], *, resamples: int = 2000, level: float = 0.95, seed: int = 0
) -> dict[str, Interval]:
    """:func:`paired_bootstrap_many` of integer differences from each unit's totals rather than every pair.

    The same intervals, bit for bit, as the pairs in unit order (units listed by first appearance) give,
    without a value and a unit label per pair.

    Raises:
        ValueError: when a sample's columns differ in length or the level or resamples are invalid.
    """
    check_level(level, resamples)
    prepared = {}
    for name, (units, sums, counts) in totals.items():
        if not len(units) == len(sums) == len(counts):
            raise ValueError(f"{name}: units, sums and counts must have one entry per unit")
        summed, pairs = np.asarray(sums, dtype=np.float64), np.asarray(counts, dtype=np.float64)
        total = int(pairs.sum())  # the sums are exact integers, so their total is the pairs' sum exactly
        estimate = float(summed.sum() / total) if total else None
        prepared[name] = (tuple(units), summed, pairs, estimate)
    return _intervals(prepared, resamples, level, seed)


Prepared = tuple[tuple[Hashable, ...], npt.NDArray[np.float64], npt.NDArray[np.float64], float | None]
"""A sample's units, each unit's sum and count, and the mean difference (None without pairs)."""


def _intervals(prepared: dict[str, Prepared], resamples: int, level: float, seed: int) -> dict[str, Interval]:
    by_units: dict[tuple[Hashable, ...], list[str]] = {}
    for name, (units, _, _, _) in prepared.items():
        by_units.setdefault(units, []).append(name)
    intervals: dict[str, Interval] = {}
    for units, names in by_units.items():
        estimates = [prepared[n][3] for n in names]
        if len(units) < 2:
            intervals.update({n: Interval(e, None, None, len(units), level) for n, e in zip(names, estimates,
                                                                                               strict=True)})
            continue
        sums = np.column_stack([prepared[n][1] for n in names])
        counts = np.column_stack([prepared[n][2] for n in names])
        means = _resampled_means(sums, counts, resamples=resamples, seed=seed)
        for column, (name, estimate) in enumerate(zip(names, estimates, strict=True)):
            low, high = percentile_bounds(means[:, column], level)
            intervals[name] = Interval(estimate, low, high, len(units), level)
    return {name: intervals[name] for name in prepared}


def _prepare(name: str, sample: PairedSample) -> Prepared:
    candidate, baseline, groups = sample
    cand, base = as_pair(candidate, baseline, (f"{name} candidate", f"{name} baseline"))
    differences = cand - base
    if len(groups) != differences.size:
        raise ValueError(f"{name}: groups must have one label per pair: got {len(groups)} for {differences.size}")
    numbering: dict[Hashable, int] = {}
    codes = np.fromiter((numbering.setdefault(g, len(numbering)) for g in groups), dtype=np.int64,
                        count=differences.size)
    sums = np.bincount(codes, weights=differences, minlength=len(numbering)).astype(np.float64)
    counts = np.bincount(codes, minlength=len(numbering)).astype(np.float64)
    estimate = float(differences.mean()) if differences.size else None
    return tuple(numbering), sums, counts, estimate


def _resampled_means(
    sums: npt.NDArray[np.float64], counts: npt.NDArray[np.float64], *, resamples: int, seed: int
) -> npt.NDArray[np.float64]:
    """Resample means per measure (columns), drawing units exactly as the single-measure bootstrap does."""
    packing = _packing(sums, counts)
    if packing is not None:
        return _resampled_integer_means(sums.shape[1], *packing, resamples=resamples, seed=seed)
    return _resampled_float_means(sums, counts, resamples=resamples, seed=seed)


def _resampled_float_means(
    sums: npt.NDArray[np.float64], counts: npt.NDArray[np.float64], *, resamples: int, seed: int
) -> npt.NDArray[np.float64]:
    """:func:`_resampled_means` for any data: the draws counted per unit, then two matrix products."""
    means = np.empty((resamples, sums.shape[1]), dtype=np.float64)
    for start, stop, weights in resample_weights(sums.shape[0], resamples, seed):
        means[start:stop] = (weights @ sums) / (weights @ counts)
    return means


_GATHER_ELEMENTS = 1 << 16
"""Units gathered at once when summing resamples (a slice that stays in the processor's cache)."""
_EXACT = 2**53
"""Integers up to this size are exact in float64, so any order of summing them gives the same float."""


def _packing(sums: npt.NDArray[np.float64], counts: npt.NDArray[np.float64]) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.int64], list[int], list[int]] | None:
    """Integer sums and counts packed into one int64 per unit, when every resample total fits exactly.

    Returns ``(packed, lows, shifts, bits)``: column ``c`` of a unit is ``lows[c]`` plus the ``bits[c]``
    bits at ``shifts[c]``; None when a value is not an integer or the totals would not fit in 63 bits.
    """
    columns = np.column_stack([sums, counts])
    if not np.isfinite(columns).all() or not (columns == np.round(columns)).all():
        return None
    units = columns.shape[0]
    if float(np.abs(columns).max(initial=0.0)) * units >= _EXACT:
        return None
    values = columns.astype(np.int64)
    lows = values.min(axis=0)
    bits = [(units * int(span)).bit_length() for span in values.max(axis=0) - lows]
    if sum(bits) > 62:
        return None
    shifts = [sum(bits[:column]) for column in range(len(bits))]
    packed = np.zeros(units, dtype=np.int64)
    for column, shift in enumerate(shifts):
        packed += (values[:, column] - lows[column]) << shift
    return packed, lows, shifts, bits


def _resampled_integer_means(measures: int, packed: npt.NDArray[np.int64], lows: npt.NDArray[np.int64],
                             shifts: list[int], bits: list[int], *, resamples: int,
                             seed: int) -> npt.NDArray[np.float64]:
    """:func:`_resampled_means` for integer data, with the same draws and the same floats.

    Every resample total is an exact integer, so one gather and sum of the packed units replaces
    counting the draws and two matrix products.
    """
    rng = np.random.default_rng(seed)
    units = packed.size
    # int64 picks: numpy draws a bounded integer below 2**31 the same way whatever the integer type (the
    # same draws as int32 ones, tested), and gathering with them skips a conversion to intp, twice as fast.
    rows = max(1, _CHUNK_ELEMENTS // 2 // units)  # the bytes of a chunk of int32 picks
    totals = np.empty((resamples, len(bits)), dtype=np.int64)
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        picks = rng.integers(0, units, size=(stop - start, units), dtype=np.int64)
        drawn = np.empty(stop - start, dtype=np.int64)
        step = max(1, _GATHER_ELEMENTS // units)
        for row in range(0, stop - start, step):  # gathered a few rows at a time, in cache, then summed
            drawn[row:row + step] = packed[picks[row:row + step]].sum(axis=1)
        for column, (shift, width) in enumerate(zip(shifts, bits, strict=True)):
            totals[start:stop, column] = (drawn >> shift) & ((1 << width) - 1)
    totals += lows * units  # each resample draws ``units`` units, each shifted by ``lows``
    exact = totals.astype(np.float64)
    means: npt.NDArray[np.float64] = exact[:, :measures] / exact[:, measures:]
    return means
