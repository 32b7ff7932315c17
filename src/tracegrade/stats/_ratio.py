"""A share that is None, never a made-up 0, when nothing was counted."""

from __future__ import annotations

__all__ = ["ratio"]


def ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator``; None when the denominator is 0."""
    return numerator / denominator if denominator else None
