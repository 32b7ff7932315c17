"""Run parameters of an ATIF scoring job (the EvalHub provider's names), validated up front."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from tracegrade.atif import LoadOptions
from tracegrade.errors import ConfigError
from tracegrade.rubrics import CRITERIA_PARAMETERS, CriteriaParams, validate_criteria_params
from tracegrade.scoring._maths import SubagentAggregation

__all__ = ["PartialResultPolicy", "ScoringOptions", "parse_parameters"]


class PartialResultPolicy(StrEnum):
    """What a failed node does to the job."""

    FAIL_FAST = "fail_fast"
    """The first failed node stops new judge calls and fails the job (finished results are kept)."""
    SKIP_FAILED_TRAJECTORY = "skip_failed_trajectory"
    """Failed nodes are kept with their code; successful roots still count."""


class ScoringOptions(BaseModel):
    """Everything except the criteria source that shapes a scoring run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trajectory_path: str = "/test_data/trajectory.json"
    completion_threshold: float = Field(0.5, ge=0.0, le=1.0, allow_inf_nan=False)
    failure_threshold: float = Field(0.5, ge=0.0, le=1.0, allow_inf_nan=False)
    max_subagent_depth: StrictInt = Field(3, ge=0)
    max_total_steps: StrictInt = Field(10_000, ge=1)
    max_file_bytes: StrictInt = Field(10 * 1024 * 1024, ge=1)
    max_trajectory_files: StrictInt = Field(10_000, ge=1)
    max_steps_per_trajectory: StrictInt = Field(500, ge=1)
    partial_result_policy: PartialResultPolicy = PartialResultPolicy.FAIL_FAST
    subagent_aggregation: SubagentAggregation = SubagentAggregation.FLAT
    tolerant_inputs: bool = False
    """Record invalid input files and go on (atif_complete is then false) instead of failing."""
    num_examples: StrictInt | None = Field(None, ge=1)
    """Score only the first N roots (in sorted order)."""
    concurrency_limit: StrictInt = Field(10, ge=1, le=1024)
    judge_timeout_seconds: float = Field(30.0, gt=0, allow_inf_nan=False)
    judge_max_attempts: StrictInt = Field(3, ge=1, le=10)
    judge_initial_backoff_seconds: float = Field(0.5, ge=0, allow_inf_nan=False)
    max_judge_requests: StrictInt | None = Field(None, ge=1)
    max_context_bytes: StrictInt = Field(65_536, ge=1024)
    judge_temperature: float = Field(0.0, ge=0.0, le=2.0, allow_inf_nan=False)
    judge_max_tokens: StrictInt | None = Field(1024, ge=1)
    judge_seed: StrictInt | None = None

    def load_options(self) -> LoadOptions:
        """The loader's limits and mode."""
        return LoadOptions(
            max_file_bytes=self.max_file_bytes,
            max_trajectory_files=self.max_trajectory_files,
            max_steps_per_trajectory=self.max_steps_per_trajectory,
            max_total_steps=self.max_total_steps,
            max_subagent_depth=self.max_subagent_depth,
            strict=not self.tolerant_inputs,
        )


def parse_parameters(parameters: Mapping[str, Any]) -> tuple[ScoringOptions, CriteriaParams]:
    """Validate job parameters before any file is read or any judge call is made.

    Raises:
        ConfigError: naming the parameter and the rule it breaks.
        InputError: a rubric or reference registry file named by the parameters is unusable.
    """
    params = {k: v for k, v in parameters.items() if v is not None}
    if "training_threshold" in params:
        raise ConfigError("training_threshold: training manifests are not supported by tracegrade")
    known = set(ScoringOptions.model_fields) | set(CRITERIA_PARAMETERS)
    unknown = sorted(set(params) - known)
    if unknown:
        raise ConfigError(f"unknown parameter(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    criteria = validate_criteria_params({k: v for k, v in params.items() if k in CRITERIA_PARAMETERS})
    try:
        options = ScoringOptions.model_validate({k: v for k, v in params.items() if k not in CRITERIA_PARAMETERS})
    except ValidationError as exc:
        error = exc.errors(include_url=False, include_input=False)[0]
        name = ".".join(str(p) for p in error["loc"])
        raise ConfigError(f"{name}: {error['msg']}") from None
    return options, criteria
