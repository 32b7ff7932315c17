"""Result records of a scoring run (serialised to ``evaluation_results.json`` and ``summary.json``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from annotated_types import Interval
from pydantic import Field

from tracegrade.atif.asking._content import StepContent
from tracegrade.atif.asking._panel import StepPanel
from tracegrade.atif.reading._records import FrozenRecord
from tracegrade.atif.scoring._repeat_records import RepeatSummary, StepRepeats
from tracegrade.runs import JobStatus

__all__ = ["CategorizationStatus", "NodeResult", "NodeStatusCode", "RunSummary", "Score", "StepResult", "StepStatus"]

Score = Annotated[float, Interval(ge=0.0, le=1.0)]
"""A score as a run records it: finite, in [0, 1] (a file holding anything else was edited by hand or elsewhere)."""


class StepStatus(StrEnum):
    """What happened to one step."""

    SCORED = "scored"
    FAILED = "failed"
    """The judge could not score it; ``error_code`` says why."""
    COPIED_CONTEXT = "copied_context"
    """A replay of earlier context (``is_copied_context``): kept, not scored, not in denominators."""
    NOT_RUN = "not_run"
    """Not attempted (the node was unscored or failed first, or the run stopped early)."""
    EVIDENCE_ONLY = "evidence_only"
    """A user or system frame of a run with ``scored_frames=agent``: shown to the judge as history, not scored,
    not in denominators."""


class CategorizationStatus(StrEnum):
    """Outcome of failure categorisation for one step."""

    NOT_NEEDED = "not_needed"
    """The step was not a failure candidate."""
    CATEGORIZED = "categorized"
    """The judge gave one of the actionable categories."""
    ABSTAINED = "abstained"
    """The judge answered ``none``: no actionable failure detected."""
    UNCATEGORIZED = "uncategorized"
    """The judge answered, but not with a valid category."""
    JUDGE_ERROR = "judge_error"
    """The judge could not be reached (transport, HTTP status, budget)."""
    NOT_RUN = "not_run"


class NodeStatusCode(StrEnum):
    """What happened to one trajectory node."""

    SCORED = "scored"
    FAILED = "failed"
    UNSCORED = "unscored"
    INVALID = "invalid"
    NOT_RUN = "not_run"


def _absent(value: object) -> bool:
    """Left out of the JSON when None: single-verdict runs keep the records they had before repeats existed."""
    return value is None


def _empty(value: object) -> bool:
    """Left out of the JSON when empty: runs whose every metric has a value keep their summary as it was."""
    return value == {}


class StepResult(FrozenRecord):
    """The result of one step."""

    index: int
    """1-based position in the logical trajectory (continuation segments joined)."""
    segment: int
    """0 for the main document, 1.. for continuation segments."""
    step_id: int
    """The producer's step_id inside its segment."""
    source: str
    """system, user or agent."""
    status: StepStatus
    score: Score | None = None
    """The step score in [0, 1] (criteria combined with the rubric's aggregation); null unless scored."""
    criterion_scores: dict[str, Score] | None = None
    rationale: str | None = None
    omitted_history: int | None = None
    """Earlier steps left out of the judge's view to fit the context budget."""
    error_code: str | None = None
    """Safe code when the step failed (timeout, http_status_429, invalid_json, context_overflow...)."""
    failure_candidate: bool = False
    """True when the score is strictly below failure_threshold."""
    category: str | None = None
    """tool_selection_failure, context_loss, policy_boundary_violation, reasoning_failure, none or uncategorized."""
    categorization_status: CategorizationStatus = CategorizationStatus.NOT_NEEDED
    categorization_rationale: str | None = None
    categorization_error_code: str | None = None
    content: StepContent | None = None
    """What the judge saw of the step, each part cut to a few KB (for reviewers; null in older results)."""
    repeats: StepRepeats | None = Field(default=None, exclude_if=_absent)
    """The verdicts behind ``score`` and their spread when judge_repeats > 1 (absent otherwise)."""
    panel: StepPanel | None = Field(default=None, exclude_if=_absent)
    """With a panel of judges: each member's own score, failures, spread, threshold straddling (absent otherwise)."""


class NodeResult(FrozenRecord):
    """The result of one trajectory node (a root or a subagent)."""

    node_id: str
    parent_id: str | None
    root_id: str
    source_path: str
    location: str
    trajectory_id: str | None
    session_id: str | None
    agent: str | None
    depth: int
    status: NodeStatusCode
    error_code: str | None = None
    """Safe reason for failed, unscored and invalid nodes."""
    message: str | None = None
    complete: bool
    """False when this node or any descendant could not be scored completely."""
    own_score: Score | None
    """Mean of this node's step scores."""
    aggregate: Score | None
    """Step-count-weighted combination of the own score and the children's aggregates."""
    passed: bool | None
    """Complete and aggregate >= completion_threshold; null when there is no aggregate."""
    step_count: int
    """Scored steps of this node."""
    subtree_step_count: int
    """Scored steps of this node and its scored descendants (the aggregate's weight)."""
    total_steps: int
    """All recorded steps, copied context included."""
    parent_step_index: int | None = None
    children: list[str] = Field(default_factory=list)
    criteria: dict[str, Any] | None = None
    """Provenance of the criteria: mode, normalised criteria, hashes, reference id."""
    steps: list[StepResult] = Field(default_factory=list)


class RunSummary(FrozenRecord):
    """The headline numbers of a run (``summary.json``)."""

    atif_overall_score: float | None
    """Collection score under subagent_aggregation; null when nothing could be scored."""
    atif_trajectory_count: int
    """Trajectories contributing to atif_overall_score."""
    atif_failure_categorization_rate: float | None
    """Share of low-scoring trajectories whose every low step got an actionable category.

    A proxy of judge response validity, not of detection accuracy."""
    overall_score: float | None
    num_examples_evaluated: int
    atif_complete: bool
    subagent_aggregation: str
    job_status: JobStatus
    """completed, failed or interrupted."""
    failure_reason: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    categories: dict[str, int] = Field(default_factory=dict)
    judge: dict[str, int] = Field(default_factory=dict)
    """Judge request counters: attempts, successes, errors, protocol errors, tokens, cache hits."""
    repeats: RepeatSummary | None = Field(default=None, exclude_if=_absent)
    """Stability of the judge when judge_repeats > 1: unstable steps, spread, score interval (absent otherwise)."""
    null_reasons: dict[str, str] = Field(default_factory=dict, exclude_if=_empty)
    """Why a headline metric is null, by metric name (absent when every metric has a value)."""
