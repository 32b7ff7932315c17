"""The parameters of a localisation job, declared once (the CLI options are generated from them)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, StrictInt

from tracegrade.judge import JudgeOptions

__all__ = ["LocaliseOptions", "Strategy"]

_INT64 = 2**63 - 1


class Strategy(StrEnum):
    """How the decisive step is found (the Who&When paper's three strategies, and one without calls)."""

    ALL_AT_ONCE = "all-at-once"
    """One request holding the whole tree; the judge names the agent and the step."""
    STEP_BY_STEP = "step-by-step"
    """The steps in order, one request each, until the judge calls one decisive."""
    BINARY_SEARCH = "binary-search"
    """Which half holds the decisive step, asked recursively down to one step."""
    FROM_SCORES = "from-scores"
    """No judge calls: the first step below the failure threshold of an existing judge run."""


class LocaliseOptions(JudgeOptions):
    """Everything that shapes a localisation job besides its inputs and its judge's address."""

    strategy: Strategy = Field(Strategy.ALL_AT_ONCE, description="How the decisive step is found: all-at-once, "
                               "step-by-step, binary-search, or from-scores (needs a judge run, asks nothing).")
    with_ground_truth: bool = Field(
        False, description="Show the judge the task's reference answer when the trajectory carries one."
    )
    localise_passed: bool = Field(
        False, description="With a judge run, also localise root trajectories it passed (by default only the "
        "failed ones; without a judge run every root is localised)."
    )
    user_candidates: bool = Field(
        False, description="Let the user's turns be named as the decisive step (by default only the agents' "
        "steps are candidates; the user's turns are always shown)."
    )
    judge_repeats: StrictInt = Field(
        1, ge=1, le=20, description="Localise each trajectory N times with distinct seeds (each cached); the "
        "most frequent answer is kept and how often the N answers agree is reported."
    )
    num_examples: StrictInt | None = Field(
        None, ge=1, le=_INT64, description="Localise only the first N selected root trajectories (sorted by path)."
    )
