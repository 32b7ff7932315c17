"""Records of repeated judgements: the spread of one step's verdicts and the run's stability summary.

They appear in the results only when a run asks for more than one verdict per step
(``judge_repeats`` > 1); a single-verdict run's results carry neither.
"""

from __future__ import annotations

from tracegrade.atif.reading._records import FrozenRecord

__all__ = ["RepeatSummary", "ScoreInterval", "StepRepeats"]


class StepRepeats(FrozenRecord):
    """The independent verdicts on one step and how far they spread (the step's score is their mean)."""

    scores: list[float]
    """Each verdict's step score, in repeat order (repeat 0 uses the configured seed)."""
    seeds: list[int | None]
    """The sampling seed sent with each verdict."""
    std: float
    """Sample standard deviation of the verdicts (denominator n - 1)."""
    min: float
    max: float
    unstable: bool
    """True when the verdicts straddle failure_threshold: at least one below it and one at or above it."""


class ScoreInterval(FrozenRecord):
    """A percentile bootstrap interval of the run-level score."""

    low: float | None
    high: float | None
    level: float
    resamples: int
    method: str
    """How the steps were resampled."""
    reason: str | None = None
    """Why the bounds are null."""


class RepeatSummary(FrozenRecord):
    """How stable the judge was on this run."""

    repeats: int
    """Verdicts asked per step (judge_repeats)."""
    steps: int
    """Steps scored with every verdict."""
    unstable_steps: int
    """Steps whose verdicts straddle failure_threshold."""
    unstable_share: float | None
    """unstable_steps / steps; null when no step was scored."""
    mean_std: float | None
    """Mean over steps of the verdicts' standard deviation."""
    max_std: float | None
    """Largest standard deviation of one step's verdicts."""
    overall_score_interval: ScoreInterval
    """Bootstrap interval of atif_overall_score over steps."""
