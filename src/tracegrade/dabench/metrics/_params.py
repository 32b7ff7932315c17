"""The parameters of the metric families, declared once (``--lambda``, ``--max-replans``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MetricParams"]


class MetricParams(BaseModel):
    """What the metric families are computed with; recorded in the manifest and compared by ``dabench compare``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lam: float = Field(0.5, ge=0, le=10, description="Extra-column penalty λ of the Phase-1 score.")
    success_threshold: float = Field(
        0.8, ge=0, le=1, description="final_score at or above which an answer counts as correct."
    )
    max_replans: int = Field(3, ge=1, description="Replans at which autonomy_score reaches 0.")
    baseline_coordinator_calls: int = Field(
        3, ge=0, description="Coordinator calls a normal run makes (checkpoints); more are interventions."
    )
