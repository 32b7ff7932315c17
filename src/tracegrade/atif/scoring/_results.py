"""The document written to ``evaluation_results.json``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.atif.reading._records import InputAccount
from tracegrade.atif.scoring._records import NodeResult, RunSummary

__all__ = ["RESULTS_FORMAT", "EvaluationResults", "InputRecord"]

RESULTS_FORMAT: Literal["tracegrade.atif.evaluation_results/1"] = "tracegrade.atif.evaluation_results/1"


class InputRecord(BaseModel):
    """The account of one input document."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    location: str
    status: str
    """loaded, invalid or skipped."""
    code: str | None = None
    message: str | None = None

    @classmethod
    def of(cls, account: InputAccount) -> InputRecord:
        """Convert a loader account."""
        return cls(
            path=account.path,
            location=account.location,
            status=account.status.value,
            code=account.code,
            message=account.message,
        )


class EvaluationResults(BaseModel):
    """Everything a scoring run produced: parameters, provenance, summary, inputs and per-node results."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["tracegrade.atif.evaluation_results/1"] = RESULTS_FORMAT
    job_id: str
    created_at: str
    """UTC ISO 8601 time the run finished."""
    shard: str | None = None
    """``i/n`` when this is one shard of a larger job."""
    parameters: dict[str, Any]
    """Run parameters, including atif_prompt_version, atif_judge, atif_scored_frames and atif_complete."""
    provenance: dict[str, Any]
    """Judge model and settings, prompt version and template hashes."""
    summary: RunSummary
    inputs: list[InputRecord] = Field(default_factory=list)
    nodes: list[NodeResult] = Field(default_factory=list)
