"""Records of a localisation job (``localisation.json``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from tracegrade.atif.localising._params import LocaliseOptions, Strategy
from tracegrade.atif.reading._records import FrozenRecord

__all__ = ["LOCALISATION_FORMAT", "LocalisationResults", "LocalisationSummary", "LocaliseStatus", "LocatedStep",
           "RepeatAgreement", "Share", "TrajectoryLocalisation"]

LOCALISATION_FORMAT: Literal["tracegrade.atif.localisation/1"] = "tracegrade.atif.localisation/1"


class LocaliseStatus(StrEnum):
    """How the localisation of one trajectory ended."""

    LOCALISED = "localised"
    """A decisive step (and agent) was named."""
    NONE_FOUND = "none_found"
    """The strategy ran to the end without naming a step (step-by-step: no step called decisive;
    from-scores: no step below the threshold)."""
    FAILED = "failed"
    """The judge gave no usable answer, or the request could not be built (``error_code`` says which)."""


class LocatedStep(FrozenRecord):
    """A step of the tree, by every identity it has."""

    ref: str
    """``Tn.k``: the node's label in the tree (``T0`` is the root) and the logical step index."""
    node_id: str
    index: int
    """1-based logical index within the node (continuations joined), as ``index`` in the results."""
    step_id: int
    """The producer's ``step_id`` inside ``segment``."""
    segment: int
    """0 for the main document, 1.. for continuation segments."""
    position: int
    """0-based place in time across the whole tree (subagent steps follow the step that delegated)."""


class RepeatAgreement(FrozenRecord):
    """The N answers of a repeated localisation (``judge_repeats`` > 1)."""

    steps: list[str | None]
    """Each repeat's step reference (null: that repeat named no step)."""
    agents: list[str | None]
    step_agreement: float
    """Share of pairs of answers naming the same step."""
    agent_agreement: float
    """Share of pairs of answers naming the same agent."""
    modal_share: float
    """Share of answers naming the step that was kept (the most frequent one; the earliest on a tie)."""


class TrajectoryLocalisation(FrozenRecord):
    """The decisive agent and step of one root trajectory tree."""

    node_id: str
    trajectory_id: str | None
    selected: str
    """Why this trajectory was localised (``every root``, ``judge run: not passed`` ...)."""
    status: LocaliseStatus
    strategy: Strategy
    """The strategy asked for."""
    used: Strategy
    """The strategy that produced the answer (binary-search after an all-at-once fallback)."""
    fallback: str | None = None
    """Why another strategy was used: the all-at-once request did not fit the budget (its size is named)."""
    agent: str | None = None
    step: LocatedStep | None = None
    reason: str | None = None
    """The judge's reason (from-scores: the rationale of the step's score)."""
    steps: int
    """Steps on the tree's timeline (copied-context replays left out)."""
    agents: list[str] = Field(default_factory=list)
    """The agents that may be named, in order of first appearance (``user`` only with ``user_candidates``)."""
    unloaded_nodes: list[str] = Field(default_factory=list)
    """Nodes of the tree that were not loaded (invalid, or beyond the depth limit): the judge did not see them."""
    ground_truth: bool = False
    """The task's reference answer was shown to the judge."""
    calls: int = 0
    """Judge questions asked for this trajectory (repeats included; cache hits count)."""
    left_out: int = 0
    """Step views shortened or left out for space, summed over the requests (from-scores: unscored steps)."""
    error_code: str | None = None
    message: str | None = None
    repeats: RepeatAgreement | None = None


class Share(FrozenRecord):
    """A mean over trajectories with its percentile bootstrap interval (trajectories resampled)."""

    value: float
    low: float | None
    """Null with fewer than two trajectories."""
    high: float | None
    n: int
    """Trajectories behind the value."""
    level: float


class LocalisationSummary(FrozenRecord):
    """Counts over the localised trajectories."""

    trajectories: int
    localised: int
    none_found: int
    failed: int
    fallbacks: int
    """All-at-once requests over budget that fell back to binary search."""
    calls: int
    """Judge questions asked (repeats included)."""
    judge: dict[str, int] = Field(default_factory=dict)
    """The judge's counters: HTTP attempts, retries, tokens, cache hits."""
    repeat_step_agreement: Share | None = None
    """Mean over trajectories of ``repeats.step_agreement``, with its 95 % interval; null without repeats."""
    not_selected: int = 0
    """Root trajectories left out (passed in the judge run, or beyond ``num_examples``)."""
    interrupted: int = 0
    """Selected roots not localised because the job was interrupted (they are not in ``trajectories``)."""


class LocalisationResults(FrozenRecord):
    """Everything ``tracegrade localise`` found."""

    format: Literal["tracegrade.atif.localisation/1"] = LOCALISATION_FORMAT
    job_id: str
    created_at: str
    source: dict[str, Any]
    """``paths`` localised, and the judge ``run`` (folder and job id) when one was given."""
    parameters: LocaliseOptions
    provenance: dict[str, Any] = Field(default_factory=dict)
    """The judge's model and settings, the prompt version and template hashes (no secrets)."""
    summary: LocalisationSummary
    trajectories: list[TrajectoryLocalisation] = Field(default_factory=list)
