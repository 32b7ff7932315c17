"""Statistics for bootstrap resamples: rank correlations and kappa in numpy, and a clustered bootstrap.

The point estimates of an agreement report come from :mod:`tracegrade.stats` (scipy); these give the same
coefficients (the tests check them against scipy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from tracegrade.atif.agreement._records import Estimate
from tracegrade.stats import TestResult

__all__ = ["Bootstrap", "Statistic", "average_ranks", "kappa_codes", "kendall_tau_b", "label_agreement", "spearman_rho"]

Statistic = Callable[[npt.NDArray[np.intp]], "float | None"]
"""A measure of the pairs at the given indices (None when undefined for them)."""
_PAIRWISE_LIMIT = 1500
"""Largest sample for the pairwise (quadratic-memory) Kendall computation."""


def average_ranks(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """1-based ranks, ties sharing their average rank (as ``scipy.stats.rankdata``)."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts = np.r_[0, np.flatnonzero(np.diff(ordered)) + 1]
    ends = np.r_[starts[1:], values.size]
    ranks = np.empty(values.size, dtype=np.float64)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks


def spearman_rho(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float | None:
    """Spearman's rho; None with fewer than two pairs or a constant sample."""
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    rx, ry = average_ranks(x), average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    return float(np.dot(rx, ry) / np.sqrt(np.dot(rx, rx) * np.dot(ry, ry)))


def kendall_tau_b(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float | None:
    """Kendall's tau-b; None with fewer than two pairs or a constant sample."""
    n = x.size
    if n < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    if n > _PAIRWISE_LIMIT:
        from tracegrade.stats import kendall_tau

        result: TestResult = kendall_tau(x, y)
        return result.statistic
    upper = np.triu_indices(n, 1)
    dx = np.sign(x[:, None] - x[None, :])[upper]
    dy = np.sign(y[:, None] - y[None, :])[upper]
    pairs = dx.size
    untied_x, untied_y = pairs - np.count_nonzero(dx == 0), pairs - np.count_nonzero(dy == 0)
    return float(np.dot(dx, dy) / np.sqrt(float(untied_x) * float(untied_y)))


def kappa_codes(a: npt.NDArray[np.intp], b: npt.NDArray[np.intp], k: int) -> float | None:
    """Cohen's kappa of two integer-coded labellings (equal to ``tracegrade.stats.cohens_kappa``)."""
    n = a.size
    if n == 0:
        return None
    observed = float(np.mean(a == b))
    chance = float(np.dot(np.bincount(a, minlength=k), np.bincount(b, minlength=k))) / n**2
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


class Bootstrap:
    """Percentile bootstrap that resamples whole units (trajectories) for any statistic of index arrays.

    ``resamples`` are drawn for an interval at confidence ``level``; the same ``seed`` gives the same interval.
    """

    def __init__(self, resamples: int, level: float, seed: int) -> None:
        self.resamples, self.level, self.seed = resamples, level, seed

    def estimate(self, units: Sequence[str], statistic: Statistic, *, whole: TestResult | None = None) -> Estimate:
        """The statistic on every pair with its interval; ``units`` names each pair's trajectory.

        ``whole`` supplies the point estimate and p-value (a scipy result) instead of ``statistic``.
        The interval is null with fewer than two units or when the statistic is undefined on more
        than half of the resamples.
        """
        value = statistic(np.arange(len(units), dtype=np.intp)) if whole is None else whole.statistic
        groups = _groups(units)
        p_value = None if whole is None else whole.p_value
        if value is None:
            reason = "no pairs" if not units else ("under 2 pairs" if len(units) < 2 else "constant input")
            return Estimate(value=None, n=len(units), units=len(groups), reason=reason)
        if len(groups) < 2:
            return Estimate(value=value, n=len(units), units=len(groups), p_value=p_value)
        drawn = self._resampled(groups, statistic)
        low, high = _bounds(drawn, self.level) if len(drawn) >= max(2, self.resamples // 2) else (None, None)
        return Estimate(
            value=value, low=low, high=high, n=len(units), units=len(groups), p_value=p_value, resamples_used=len(drawn)
        )

    def _resampled(self, groups: list[npt.NDArray[np.intp]], statistic: Statistic) -> list[float]:
        rng = np.random.default_rng(self.seed)
        values = []
        for picks in rng.integers(0, len(groups), size=(self.resamples, len(groups))):
            value = statistic(np.concatenate([groups[i] for i in picks]))
            if value is not None:
                values.append(value)
        return values


def label_agreement(a: Sequence[str], b: Sequence[str], order: Sequence[str], units: Sequence[str],
                    boot: Bootstrap) -> tuple[Estimate, Estimate]:
    """Share of equal labels and Cohen's kappa of two labellings, each with its interval over ``units``."""
    code = {label: i for i, label in enumerate(order)}
    first = np.fromiter((code[v] for v in a), dtype=np.intp, count=len(a))
    second = np.fromiter((code[v] for v in b), dtype=np.intp, count=len(b))

    def share(idx: npt.NDArray[np.intp]) -> float | None:
        return float(np.mean(first[idx] == second[idx])) if idx.size else None

    def kappa(idx: npt.NDArray[np.intp]) -> float | None:
        return kappa_codes(first[idx], second[idx], len(order))

    return boot.estimate(units, share), boot.estimate(units, kappa)


def _groups(units: Sequence[str]) -> list[npt.NDArray[np.intp]]:
    members: dict[str, list[int]] = {}
    for i, unit in enumerate(units):
        members.setdefault(unit, []).append(i)
    return [np.asarray(indices, dtype=np.intp) for indices in members.values()]


def _bounds(values: list[float], level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(np.asarray(values), [tail, 100.0 - tail])
    return float(low), float(high)
