"""Every parameter of an ATIF scoring job, declared once (the EvalHub provider's names).

The CLI options of ``tracegrade judge``, the EvalHub provider's parameter table and the run
metadata are all generated from :class:`CriteriaInputs` and :class:`ScoringOptions`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from tracegrade.atif.criteria._params import DEFAULT_REFERENCE_RUBRIC, CriteriaParams, validate_criteria_params
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.errors import ConfigError, invalid_parameter
from tracegrade.judge import JudgeOptions
from tracegrade.rubric import ScoringMode

__all__ = ["CriteriaInputs", "PartialResultPolicy", "ScoringOptions", "SubagentAggregation", "parse_parameters"]

_LOAD: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(LoadOptions)}
_INT64 = 2**63 - 1
"""Largest integer a parameter takes: what JSON tools, telemetry and Parquet carry (int64)."""


class SubagentAggregation(StrEnum):
    """How node scores combine into the collection score."""

    FLAT = "flat"
    """Mean of the own scores of the scored nodes under scored roots (each node counts once, whatever its size)."""
    HIERARCHICAL = "hierarchical"
    """Mean of the roots' subtree aggregates."""
    SEPARATE = "separate"
    """Mean of the roots' own scores; descendants appear only in the details."""


class PartialResultPolicy(StrEnum):
    """What a failed node does to the job."""

    FAIL_FAST = "fail_fast"
    """The first failed node stops new judge calls and fails the job (finished results are kept)."""
    SKIP_FAILED_TRAJECTORY = "skip_failed_trajectory"
    """Failed nodes are kept with their code; successful roots still count. The summary counts the failed
    roots (``counts.roots_failed``) and ``tracegrade judge`` exits 1 when any root failed."""


class ScoredFrames(StrEnum):
    """Which recorded steps the judge scores (recorded as ``atif_scored_frames``)."""

    ALL = "all"
    """Every recorded frame, user and system frames too (the seeds' convention, kept for backward compatibility)."""
    AGENT = "agent"
    """Agent steps only: user and system frames are shown to the judge as history, not scored, not counted."""


class CriteriaInputs(BaseModel):
    """Where the criteria come from, as given (validated and loaded by ``validate_criteria_params``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scoring_mode: ScoringMode = Field(
        ScoringMode.AUTO,
        description="Where the criteria come from: auto (derived from each task), benchmark, reference or custom.",
    )
    benchmark_name: str | None = Field(
        None, description="Built-in benchmark rubric for scoring_mode=benchmark "
        "(swebench-verified, terminal-bench, humanevalfix)."
    )
    reference_registry_path: str | None = Field(
        None, description="JSON registry of reference rubrics for scoring_mode=reference."
    )
    reference_rubric: str = Field(DEFAULT_REFERENCE_RUBRIC, description="Rubric picked from the reference registry.")
    provider_params: dict[str, Any] | None = Field(
        None, description="Provider options; provider_params.rubric holds a custom rubric "
        "(object, or YAML/JSON text) for scoring_mode=custom."
    )
    custom_rubric: str | dict[str, Any] | None = Field(None, description="Older spelling of provider_params.rubric.")
    custom_rubric_path: str | None = Field(
        None, description="Custom rubric file (YAML or JSON) for scoring_mode=custom."
    )


class _JobOptions(BaseModel):
    """The options of a scoring job that are not the judge's: what is read, and how scores roll up."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trajectory_path: str = Field(
        "/test_data/trajectory.json", description="ATIF file or folder to score (folders are read recursively)."
    )
    completion_threshold: float = Field(
        0.5, ge=0.0, le=1.0, allow_inf_nan=False,
        description="A trajectory passes when complete and its aggregate is at least this.",
    )
    failure_threshold: float = Field(
        0.5, ge=0.0, le=1.0, allow_inf_nan=False,
        description="Steps scoring below this are sent for failure categorisation.",
    )
    subagent_aggregation: SubagentAggregation = Field(
        SubagentAggregation.FLAT,
        description="How subagents count in atif_overall_score: flat, hierarchical or separate.",
    )
    partial_result_policy: PartialResultPolicy = Field(
        PartialResultPolicy.FAIL_FAST,
        description="fail_fast stops at the first failed trajectory; skip_failed_trajectory keeps going "
        "(summary counts.roots_failed; the CLI exits 1 when any root failed).",
    )
    score_copied_context: bool = Field(
        False,
        description="Also score steps marked is_copied_context (replayed earlier context), so that every "
        "recorded frame is scored; by default they are kept in the results but not scored again.",
    )
    scored_frames: ScoredFrames = Field(
        ScoredFrames.ALL,
        description="Which steps are scored: all (every recorded frame, the default) or agent (agent steps only; "
        "user and system frames stay in the judge's view as history and out of the denominators).",
    )
    max_subagent_depth: StrictInt = Field(
        _LOAD["max_subagent_depth"], ge=0, le=_INT64, description="Deeper subagents are kept but left unscored."
    )
    max_total_steps: StrictInt = Field(
        _LOAD["max_total_steps"], ge=1, le=_INT64, description="Most steps in the whole input."
    )
    max_file_bytes: StrictInt = Field(
        _LOAD["max_file_bytes"], ge=1, le=_INT64, description="Largest trajectory file read."
    )
    max_trajectory_files: StrictInt = Field(
        _LOAD["max_trajectory_files"], ge=1, le=_INT64, description="Most trajectory files read."
    )
    max_steps_per_trajectory: StrictInt = Field(
        _LOAD["max_steps_per_trajectory"], ge=1, le=_INT64, description="Most steps in one trajectory."
    )
    tolerant_inputs: bool = Field(
        False, description="Record unreadable files and go on (atif_complete is then false) instead of failing."
    )
    num_examples: StrictInt | None = Field(
        None, ge=1, le=_INT64, description="Score only the first N root trajectories (sorted by path)."
    )


class ScoringOptions(JudgeOptions, _JobOptions):
    """Everything except the criteria source that shapes a scoring run.

    The job's own options come first, then the judge's (:class:`~tracegrade.judge.JudgeOptions`, declared
    there), then ``judge_repeats``: the order of every parameter table.
    """

    judge_repeats: StrictInt = Field(
        1, ge=1, le=20,
        description="Independent verdicts per step (distinct seeds, each cached); the step score is their mean "
        "and the results report their spread. 1 keeps single-verdict results unchanged.",
    )

    def load_options(self) -> LoadOptions:
        """The loader's limits and mode."""
        return LoadOptions(max_file_bytes=self.max_file_bytes, max_trajectory_files=self.max_trajectory_files,
                           max_steps_per_trajectory=self.max_steps_per_trajectory, max_total_steps=self.max_total_steps,
                           max_subagent_depth=self.max_subagent_depth, strict=not self.tolerant_inputs)


def parse_parameters(parameters: Mapping[str, Any]) -> tuple[ScoringOptions, CriteriaParams]:
    """Validate job parameters before any file is read or any judge call is made.

    Raises:
        ConfigError: naming the parameter and the rule it breaks.
        InputError: a rubric or reference registry file named by the parameters is unusable.
    """
    params = {k: v for k, v in parameters.items() if v is not None}
    if "training_threshold" in params:
        raise ConfigError("training_threshold: training manifests are not supported by tracegrade")
    criteria_names = set(CriteriaInputs.model_fields)
    known = set(ScoringOptions.model_fields) | criteria_names
    unknown = sorted(set(params) - known)
    if unknown:
        raise ConfigError(f"unknown parameter(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    criteria = validate_criteria_params({k: v for k, v in params.items() if k in criteria_names})
    try:
        options = ScoringOptions.model_validate({k: v for k, v in params.items() if k not in criteria_names})
    except ValidationError as exc:
        raise invalid_parameter(exc) from None
    return options, criteria
