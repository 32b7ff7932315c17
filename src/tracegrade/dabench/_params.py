"""What ``dabench eval-v2`` does beyond the tables, declared once (``--mode``, ``--baseline``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.dabench.analyses._params import Mode, Resampling

__all__ = ["PipelineOptions"]


class PipelineOptions(BaseModel):
    """The report of an evaluation: its mode, an optional baseline, the bootstrap and the figures."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Mode = Field(
        Mode.STANDARD, description="standard, verbose or research: each shows more sections than the one before."
    )
    baseline: Path | None = Field(
        None, description="An evaluated baseline run folder: research mode adds the comparison table."
    )
    resampling: Resampling = Field(
        default_factory=Resampling, description="Bootstrap of the research statistics and the baseline comparison."
    )
    figures: bool = Field(True, description="Draw the figures (embedded in report.html; PNG files in research mode).")
