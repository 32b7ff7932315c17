"""Shared types of the metric families: the context a family reads and the values it returns."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from tracegrade.dabench.metrics._answer import AnswerScore
from tracegrade.dabench.metrics._params import MetricParams
from tracegrade.dabench.reading._records import TaskRecord, Value

__all__ = ["NO_COORDINATOR", "NO_STEPS", "NO_TIMINGS", "NO_TOKENS", "Family", "MetricContext", "Out"]

NO_STEPS = "no steps in this trace (failure payload without steps, or no trace file)"
NO_TIMINGS = "no per-step timings in this trace format"
NO_TOKENS = "no token counts in this trace format"
NO_COORDINATOR = "no coordinator in this trace format (rich trace extension only)"


@dataclass(frozen=True, slots=True)
class MetricContext:
    """What a metric family reads: the task, its answer score and the values of earlier families."""

    record: TaskRecord
    score: AnswerScore | None
    score_reason: str | None
    """Why ``score`` is None (no gold)."""
    params: MetricParams
    prior: Mapping[str, Value]
    prior_reasons: Mapping[str, str] = field(default_factory=dict)

    def reasons_for(self, name: str) -> str:
        """Why an earlier family left ``name`` null."""
        return self.prior_reasons.get(name, "not computed")


@dataclass
class Out:
    """Values one family computes, with the reason for every null."""

    values: dict[str, Value] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def put(self, name: str, value: Value, reason: str | None = None) -> None:
        """Set a value; a None value needs the reason it is null."""
        self.values[name] = value
        if value is None:
            self.reasons[name] = reason or "not applicable"

    def null(self, names: tuple[str, ...] | list[str], reason: str) -> None:
        """Set several columns null for one reason."""
        for name in names:
            self.put(name, None, reason)


@dataclass(frozen=True, slots=True)
class Family:
    """A metric family: one pure function and the columns it fills."""

    name: str
    compute: Callable[[MetricContext], Out]
    columns: tuple[str, ...]


def f1(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean; 0 when both are 0; None when either is unknown."""
    if precision is None or recall is None:
        return None
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
