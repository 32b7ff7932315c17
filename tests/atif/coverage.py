"""How many of many seeded 95 % intervals must cover a planted value, computed binomially.

A correct interval covers the planted value in 95 % of runs, so over ``runs`` seeded runs the number
that cover is Binomial(runs, 0.95). The accepted band holds that count with probability 0.998; an
interval that covers only 85 % of the time (too narrow) lands in it with probability under 1 %, and
one that always covers (too wide, or a constant) never does. The runs are seeded, so each test is
deterministic: it passes or fails the same way every time.
"""

from __future__ import annotations

from scipy import stats as scipy_stats

LEVEL = 0.95
ALPHA = 1e-3


def band(runs: int) -> tuple[int, int]:
    """The accepted numbers of covering intervals out of ``runs``."""
    low = int(scipy_stats.binom.ppf(ALPHA, runs, LEVEL))
    high = int(scipy_stats.binom.isf(ALPHA, runs, LEVEL))
    return low, min(high, runs - 1)


def assert_covers(covered: int, runs: int) -> None:
    """``covered`` of ``runs`` intervals held the planted value: as often as a 95 % interval should."""
    low, high = band(runs)
    assert scipy_stats.binom.sf(low - 1, runs, 0.85) < 0.01, "too few runs to tell a 95 % interval from an 85 % one"
    assert low <= covered <= high, f"{covered} of {runs} intervals covered the planted value (expected {low}..{high})"
