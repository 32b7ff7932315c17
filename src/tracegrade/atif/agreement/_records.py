"""Records of an agreement report: how a finished run compares with human labels (``agreement.json``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.reading._records import FrozenRecord
from tracegrade.atif.scoring._records import NodeResult, StepResult

__all__ = ["AGREEMENT_FORMAT", "AgreementReport", "CategoryAgreement", "Estimate", "LabelIssue", "LevelAgreement",
           "Localisation", "LocalisationRow", "Match", "PassFailAgreement", "ScoreAgreement"]

AGREEMENT_FORMAT: Literal["tracegrade.atif.agreement/1"] = "tracegrade.atif.agreement/1"


@dataclass(frozen=True, slots=True)
class Match:
    """A label and what it names in the run."""

    label: Label
    node: NodeResult
    step: StepResult | None


class Estimate(FrozenRecord):
    """A measure with its percentile bootstrap interval over trajectories."""

    value: float | None
    """The measure on all pairs; null when undefined (``reason`` says why)."""
    low: float | None = None
    """Lower bound of the interval; null with fewer than two trajectories or too few defined resamples."""
    high: float | None = None
    """Upper bound of the interval."""
    n: int
    """Pairs (or trajectories, for localisation) behind the value."""
    units: int
    """Trajectories resampled by the bootstrap (steps of one trajectory are drawn together)."""
    p_value: float | None = None
    """Two-sided p-value of a correlation (scipy); null elsewhere."""
    resamples_used: int = 0
    """Bootstrap resamples on which the measure was defined (constant resamples are left out)."""
    reason: str | None = None
    """Why ``value`` is null (``no pairs``, ``under 2 pairs``, ``constant input``: one side
    gives every pair the same value, or the reviewers and judge use a single label)."""


class ScoreAgreement(FrozenRecord):
    """Rank correlation of reviewer scores and judge scores."""

    n: int
    spearman: Estimate
    kendall: Estimate
    """Kendall's tau-b (tie-corrected)."""


class PassFailAgreement(FrozenRecord):
    """Failed/passed verdicts of reviewers and judge."""

    n: int
    judge_rule: str
    """How the judge's verdict was read (the run's threshold)."""
    labels: list[str] = Field(default_factory=lambda: ["failed", "passed"])
    matrix: list[list[int]]
    """Rows: reviewer verdict; columns: judge verdict, in ``labels`` order."""
    agreement: Estimate
    """Share of pairs with the same verdict."""
    kappa: Estimate
    """Cohen's kappa."""


class CategoryAgreement(FrozenRecord):
    """Reviewer failure categories against the judge's, over the taxonomy."""

    n: int
    labels: list[str]
    """Row and column order: the taxonomy, then ``uncategorized`` (judge answered with no valid category)."""
    matrix: list[list[int]]
    """Rows: reviewer category; columns: judge category."""
    agreement: Estimate
    kappa: Estimate


class LevelAgreement(FrozenRecord):
    """Agreement for the labels of one level (steps or whole trajectories)."""

    labels: int
    """Matched labels of this level."""
    scores: ScoreAgreement
    pass_fail: PassFailAgreement
    categories: CategoryAgreement | None = None
    """Step level only."""


class LocalisationRow(FrozenRecord):
    """One labelled trajectory: the reviewer's decisive step and the judge's lowest step."""

    node_id: str
    line: int
    """Line of the decisive label."""
    decisive_step: int
    judge_lowest_step: int
    judge_lowest_score: float
    distance: int
    """Steps between the two (logical indices)."""


class Localisation(FrozenRecord):
    """Failure localisation: how often the reviewer's decisive step is the judge's lowest-scoring step."""

    trajectories: int
    exact: Estimate
    within_1: Estimate
    within_3: Estimate
    rows: list[LocalisationRow] = Field(default_factory=list)


class LabelIssue(FrozenRecord):
    """A label that could not be compared, and why."""

    line: int
    target: str
    reason: str
    """``no_trajectory``, ``ambiguous_trajectory``, ``no_step`` (unmatched), or ``judge_no_score``,
    ``judge_no_verdict``, ``judge_no_category`` (matched, but the judge has nothing to compare)."""
    measure: str | None = None
    """The measure the label was left out of (for judge_* reasons)."""


class AgreementReport(FrozenRecord):
    """Everything ``tracegrade agree`` computed."""

    format: Literal["tracegrade.atif.agreement/1"] = AGREEMENT_FORMAT
    job_id: str
    labels_file: str
    labels: int
    matched: int
    failure_threshold: float
    completion_threshold: float
    resamples: int
    level: float
    seed: int
    step: LevelAgreement
    trajectory: LevelAgreement
    localisation: Localisation
    unmatched: list[LabelIssue] = Field(default_factory=list)
    """Labels naming no trajectory or step of the run (never dropped silently)."""
    excluded: list[LabelIssue] = Field(default_factory=list)
    """Matched labels left out of a measure because the judge gave nothing to compare."""
