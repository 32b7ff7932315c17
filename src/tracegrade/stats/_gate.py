"""The CI gate's options and verdict, shared by every ``compare`` (light: the CLI imports it for its flags)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FEW_PAIRS", "TOLERANCE", "GateOptions", "GateVerdict"]

TOLERANCE = 1e-9
"""Differences this small are rounding, not change."""
FEW_PAIRS = 10
"""Below this many scored pairs a bootstrap interval says little, and the gate says so."""


class GateOptions(BaseModel):
    """When a comparison fails a CI job; ``min_delta`` also decides which pairs count as changed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_delta: float = Field(
        0.0, ge=0.0, allow_inf_nan=False,
        description="A pair, or the primary score, counts as changed only beyond this difference.",
    )
    fail_on_regression: bool = Field(
        False,
        description="Exit 1 when the primary score fell by more than --min-delta and its interval's upper bound "
        "is below 0 (also when fewer than two pairs leave that undecidable).",
    )
    fail_on_new_failures: bool = Field(
        False, description="Exit 1 when any pair passed on the baseline and does not on the candidate.",
    )


class GateVerdict(BaseModel):
    """What the gate decided, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    exit_code: int = Field(description="0 when no rule fired, 1 when one did.")
    fired: list[str] = Field(description="Each rule that fired, with the figures that made it fire.")
    checked: list[str] = Field(description="The rules that were asked for (empty: the gate was off).")
    warnings: list[str] = Field(
        default_factory=list,
        description="Why the verdict means little, when it does: fewer than 10 scored pairs (their n, the "
        "interval, and whether the gate fired on them).",
    )
