"""The report mode and the bootstrap resampling of the run-level analyses, declared once."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Mode", "Resampling", "ci_label"]


class Mode(StrEnum):
    """How much the report shows; each mode shows everything the one before it does, and more."""

    STANDARD = "standard"
    VERBOSE = "verbose"
    RESEARCH = "research"

    def includes(self, other: Mode) -> bool:
        """True when a report of this mode shows what a report of ``other`` shows."""
        order = list(Mode)
        return order.index(self) >= order.index(other)


class Resampling(BaseModel):
    """How the percentile-bootstrap intervals of the research statistics and comparisons are drawn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    resamples: int = Field(
        2000, ge=100, le=100_000, description="Bootstrap resamples of the intervals (fixed seed: reruns agree)."
    )
    level: float = Field(0.95, gt=0.5, lt=1.0, description="Confidence level of the bootstrap intervals.")
    seed: int = Field(0, ge=0, le=2**32 - 1, description="Seed of the bootstrap (fixed: intervals reproduce).")


def ci_label(level: float) -> str:
    """An interval's name in headings and notes, e.g. ``95% CI``."""
    return f"{level * 100:.4g}% CI"
