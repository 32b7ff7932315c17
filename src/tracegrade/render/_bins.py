"""Histogram bins for scores on [0, 1], drawn by the ``histogram`` HTML macro."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

__all__ = ["score_bins"]


def score_bins(scores: Iterable[float], *, bins: int = 10) -> list[dict[str, object]]:
    """Counts of ``scores`` in ``bins`` equal bins over [0, 1]; each bin is [low, high), the last also holds 1.

    Returns:
        One mapping per bin, in axis order: ``label`` (the lower edge), ``low``, ``high`` and ``count``.

    Raises:
        ValueError: when a score is outside [0, 1] or not finite.
    """
    counts = [0] * bins
    for score, times in Counter(scores).items():  # judges give few distinct scores: each is binned once
        if not (math.isfinite(score) and 0.0 <= score <= 1.0):
            raise ValueError(f"score {score!r} is outside [0, 1]")
        counts[min(math.floor(round(score * bins, 9)), bins - 1)] += times
    return [{"label": f"{k / bins:.1f}", "low": k / bins, "high": (k + 1) / bins, "count": c}
            for k, c in enumerate(counts)]
