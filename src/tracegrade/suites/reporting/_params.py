"""The parameters of a suite run and of a comparison, declared once (the CLI reads them from here)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

__all__ = ["IntervalParameters", "SuiteRunParameters"]

Label = Annotated[str, StringConstraints(min_length=1, max_length=256, pattern=r"\S")]


class IntervalParameters(BaseModel):
    """How bootstrap intervals over source cases are estimated (run reports and comparisons)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    resamples: int = Field(2000, ge=100, le=100_000, description="Bootstrap resamples of source cases.")
    level: float = Field(0.95, gt=0.5, lt=1.0, description="Confidence level of the bootstrap intervals.")
    seed: int = Field(0, ge=0, le=2**32 - 1, description="Seed of the bootstrap (fixed: results reproduce).")


class SuiteRunParameters(IntervalParameters):
    """How a suite run executes and reports."""

    repeat: int = Field(1, ge=1, le=1000, description="Attempts per case (repetitions keep the case id).")
    concurrency_limit: int = Field(8, ge=1, le=1024, description="Attempts running at once.")
    timeout: float = Field(300.0, gt=0, le=86400, description="Seconds one attempt may take before it is killed.")
    details: bool = Field(True, description="Keep inputs, expectations and results in the report (private).")
    variant: Label | None = Field(None, description="Name of the system variant under test (recorded).")
    configuration_revision: Label | None = Field(
        None, description="Revision of the system's configuration (recorded; compare and replay check it).")

