"""The options of ``tracegrade compare`` (a light module: the CLI imports it to build its flags)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ComparisonOptions"]


class ComparisonOptions(BaseModel):
    """How two judge runs are compared (the gate's options are :class:`~tracegrade.stats.GateOptions`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    resamples: int = Field(2000, ge=1, le=1_000_000, description="Bootstrap resamples of the paired interval.")
    level: float = Field(0.95, gt=0.0, lt=1.0, description="Confidence level of the interval.")
    seed: int = Field(0, ge=0, description="Seed of the bootstrap (the same seed gives the same interval).")
    allow_different: tuple[str, ...] = Field(
        (), description="Compare anyway although this guarded field differs (repeatable); recorded in the output."
    )
