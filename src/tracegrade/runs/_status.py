"""How a job ended."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["JobStatus"]


class JobStatus(StrEnum):
    """The status of a finished job, as written in its run folder."""

    COMPLETED = "completed"
    """Every planned unit of work ran (individual units may still have failed as data)."""
    FAILED = "failed"
    """The job stopped early because of a failure; what finished is kept."""
    INTERRUPTED = "interrupted"
    """The user or the system stopped the job (Ctrl-C, SIGTERM); what finished is kept."""
