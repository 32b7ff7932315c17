"""Agreement between two labellings: confusion matrix and Cohen's kappa."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from tracegrade.stats._records import ConfusionMatrix

__all__ = ["cohens_kappa", "confusion_matrix"]


def confusion_matrix(
    expected: Sequence[Hashable], predicted: Sequence[Hashable], *, labels: Sequence[Hashable] | None = None
) -> ConfusionMatrix:
    """Count (expected, predicted) label pairs.

    Args:
        expected: the reference labels (rows).
        predicted: the other labels, one per expected label (columns).
        labels: row and column order (e.g. a label catalog); by default the labels in order of
            first appearance in ``expected`` then ``predicted``.

    Raises:
        ValueError: the sequences differ in length, ``labels`` repeats a label, or a label is not in ``labels``.
    """
    if len(expected) != len(predicted):
        raise ValueError(f"label sequences differ in length: {len(expected)} and {len(predicted)}")
    order = tuple(dict.fromkeys([*expected, *predicted])) if labels is None else tuple(labels)
    position = {label: i for i, label in enumerate(order)}
    if len(position) != len(order):
        raise ValueError("labels must not repeat a label")
    counts = [[0] * len(order) for _ in order]
    for item, (truth, guess) in enumerate(zip(expected, predicted, strict=True)):
        if truth not in position or guess not in position:
            unknown = truth if truth not in position else guess
            raise ValueError(f"item {item}: label {unknown!r} is not among the given labels")
        counts[position[truth]][position[guess]] += 1
    return ConfusionMatrix(order, tuple(tuple(row) for row in counts))


def cohens_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Unweighted Cohen's kappa between two raters: ``(p_o − p_e) / (1 − p_e)``.

    ``p_o`` is the share of items both raters label alike and ``p_e`` the agreement expected from
    each rater's label frequencies. None when there are no items, or when ``p_e`` is 1 (both raters
    give every item the same single label, so chance explains all agreement).

    Raises:
        ValueError: the sequences differ in length.
    """
    matrix = confusion_matrix(a, b)
    total = matrix.total
    if total == 0:
        return None
    observed = sum(matrix.counts[i][i] for i in range(len(matrix.labels))) / total
    rows = [sum(row) for row in matrix.counts]
    columns = [sum(row[j] for row in matrix.counts) for j in range(len(matrix.labels))]
    chance = sum(r * c for r, c in zip(rows, columns, strict=True)) / total**2
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)
