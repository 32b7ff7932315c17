"""The document written to ``evaluation_results.json``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_serializer,
    model_serializer,
    model_validator,
)

from tracegrade.atif.reading._records import InputAccount
from tracegrade.atif.scoring._params import ScoringOptions
from tracegrade.atif.scoring._records import NodeResult, RunSummary
from tracegrade.atif.scoring._spool import ListedNodes, NodeRecords
from tracegrade.rubric import ScoringMode

__all__ = ["RESULTS_FORMAT", "EvaluationResults", "InputRecord", "RunParameters"]

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
        """Convert a loader account (fields known valid: not validated again; one fields set shared by all)."""
        return cls.model_construct(_INPUT_FIELDS, path=account.path, location=account.location,
                                   status=account.status.value, code=account.code, message=account.message)


_INPUT_FIELDS = set(InputRecord.model_fields)
"""Every field of an input record is given: the set of them, shared (a run holds one record per input)."""


class RunParameters(ScoringOptions):
    """The parameters a run was scored with, as recorded with its results and logged to MLflow.

    Every option of the run (``ScoringOptions``; ``judge_repeats`` only when it is not 1, so that
    single-verdict results read as before repeats existed), then where its criteria came from and what
    the run was.
    """

    scoring_mode: ScoringMode
    benchmark_name: str | None
    """Canonical built-in benchmark name (benchmark mode)."""
    reference_registry_path: str | None
    reference_rubric: str
    custom_rubric_source: str | None
    """Which parameter supplied the custom rubric (custom mode)."""
    atif_prompt_version: str
    atif_judge: str
    """The judge model's name."""
    atif_scored_frames: Literal["all", "agent"]
    """Which frames were scored: every one (the default), or agent steps only."""
    atif_criteria_source: str
    """``derived_by_judge``, ``local_judge_generic_rubric``, or the scoring mode."""
    atif_copied_context: Literal["scored", "kept_not_scored"]
    """How steps marked ``is_copied_context`` were treated."""
    atif_complete: bool
    """Every input was read and every node scored."""

    @model_validator(mode="before")
    @classmethod
    def _scored_frames(cls, values: Any) -> Any:
        """``scored_frames`` read back from ``atif_scored_frames`` (the one that is written)."""
        if isinstance(values, dict) and "atif_scored_frames" in values and "scored_frames" not in values:
            return {**values, "scored_frames": values["atif_scored_frames"]}
        return values

    @model_serializer(mode="wrap")
    def _without_single_repeats(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        values: dict[str, Any] = handler(self)
        if self.judge_repeats == 1:
            values.pop("judge_repeats", None)
        values.pop("scored_frames", None)  # recorded once, as atif_scored_frames
        return values


class EvaluationResults(BaseModel):
    """Everything a scoring run produced: parameters, provenance, summary, inputs and per-node results."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["tracegrade.atif.evaluation_results/1"] = RESULTS_FORMAT
    job_id: str
    created_at: str
    """UTC ISO 8601 time the run finished."""
    shard: str | None = None
    """``i/n`` when this is one shard of a larger job."""
    parameters: RunParameters
    provenance: dict[str, Any]
    """Judge model and settings, prompt version and template hashes."""
    summary: RunSummary
    inputs: list[InputRecord] = Field(default_factory=list)
    nodes: NodeRecords = Field(default_factory=ListedNodes)
    """Every node's record, roots in order; a job's results hold them spooled to a file (``SpooledNodes``)."""

    @field_serializer("nodes", mode="wrap")
    def _listed_nodes(self, nodes: Sequence[NodeResult], handler: SerializerFunctionWrapHandler) -> Any:
        return handler(nodes if isinstance(nodes, list) else list(nodes))
