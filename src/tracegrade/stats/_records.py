"""Typed result records of the statistics package."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

__all__ = ["ConfusionMatrix", "Interval", "TestResult"]


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with a two-sided confidence interval.

    ``estimate`` is None when there is no data (``n == 0``); ``low`` and ``high`` are None when
    fewer than two units were observed (``n < 2``), because no interval can be estimated from one.
    """

    estimate: float | None
    """The point estimate (a mean or a mean difference); None without data."""
    low: float | None
    """Lower bound of the interval; None when ``n < 2``."""
    high: float | None
    """Upper bound of the interval; None when ``n < 2``."""
    n: int
    """Number of independent units behind the interval (values, pairs, or groups when resampling groups)."""
    level: float
    """Confidence level, for example 0.95."""


@dataclass(frozen=True, slots=True)
class TestResult:
    """The outcome of a statistical test or a correlation.

    ``statistic`` and ``p_value`` are None when the test is undefined for the data (too few
    observations, no non-zero differences, constant input); each function says when.
    """

    __test__ = False  # not a pytest test class

    statistic: float | None
    """The test statistic (U, W, or a correlation coefficient); None when undefined."""
    p_value: float | None
    """Two-sided p-value; None when undefined."""
    n: int
    """Number of observations the test used (each function says which)."""


@dataclass(frozen=True, slots=True)
class ConfusionMatrix:
    """Counts of (expected, predicted) label pairs; rows are expected labels, columns predicted labels."""

    labels: tuple[Hashable, ...]
    """Label order of both rows and columns."""
    counts: tuple[tuple[int, ...], ...]
    """``counts[i][j]`` is the number of items expected ``labels[i]`` and predicted ``labels[j]``."""

    @property
    def total(self) -> int:
        """Number of items counted."""
        return sum(sum(row) for row in self.counts)

    def count(self, expected: Hashable, predicted: Hashable) -> int:
        """Number of items with this expected and this predicted label.

        Raises:
            KeyError: a label is not in :attr:`labels`.
        """
        for label in (expected, predicted):
            if label not in self.labels:
                raise KeyError(f"label not in the confusion matrix: {label!r}")
        return self.counts[self.labels.index(expected)][self.labels.index(predicted)]
