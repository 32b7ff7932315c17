"""What a comparison reads of a judge run: the results without the bulky copies of what the judge saw.

Reading ``evaluation_results.json`` into these models costs about a quarter less than the full records: each
step keeps its verdict and the message it scored, and the rest of its ``content`` is skipped while parsing.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.atif.scoring._records import NodeStatusCode, RunSummary, StepStatus
from tracegrade.atif.scoring._results import RESULTS_FORMAT, RunParameters

__all__ = ["ComparedNode", "ComparedResults", "ComparedStep"]


class _Read(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class _Content(_Read):
    message: str | None = None


class ComparedStep(_Read):
    """A step's identity and verdict."""

    index: int
    segment: int
    step_id: int
    source: str
    status: StepStatus
    score: float | None = None
    criterion_scores: dict[str, float] | None = None
    rationale: str | None = None
    error_code: str | None = None
    failure_candidate: bool = False
    category: str | None = None
    content: _Content | None = None


class ComparedNode(_Read):
    """A node's identity, place in its tree, scores and steps."""

    node_id: str
    parent_id: str | None
    root_id: str
    trajectory_id: str | None
    session_id: str | None
    agent: str | None
    depth: int
    status: NodeStatusCode
    own_score: float | None
    aggregate: float | None
    passed: bool | None
    criteria: dict[str, Any] | None = None
    steps: list[ComparedStep] = Field(default_factory=list)


class ComparedResults(_Read):
    """A judge run as a comparison reads it."""

    format: Literal["tracegrade.atif.evaluation_results/1"] = RESULTS_FORMAT
    job_id: str
    created_at: str
    shard: str | None = None
    parameters: RunParameters
    provenance: dict[str, Any]
    summary: RunSummary
    nodes: list[ComparedNode] = Field(default_factory=list)
