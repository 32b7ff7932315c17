"""Where a run named by its id is looked up, declared once (``--runs-root`` of every dabench command)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RunLocation"]


class RunLocation(BaseModel):
    """The folder under which a run id (rather than a path to a run folder) is found."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    runs_root: Path = Field(Path("artifacts/runs"), description="Where run ids are looked up.")
