"""Stage 5: failure localisation: which agent and which step made a failed run fail."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif.localising._records import TrajectoryLocalisation as TrajectoryLocalisation

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
