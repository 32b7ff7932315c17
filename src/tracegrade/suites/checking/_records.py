"""Per-attempt records: what a runner observed and how every check came out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "EXECUTED_STATUSES",
    "FAILED_STATUSES",
    "OUTCOMES",
    "USAGE_FIELDS",
    "AttemptRecord",
    "AttemptRequest",
    "AttemptStatus",
    "CheckResult",
    "Invocation",
    "MetricObservation",
    "Observation",
    "Outcome",
    "Record",
    "Scored",
    "attempt_record",
]

Outcome = Literal["passed", "failed", "missing", "skipped", "error"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "failed", "missing", "skipped", "error")
AttemptStatus = Literal["completed", "needs_review", "failed", "cancelled", "error"]
FAILED_STATUSES = frozenset({"failed", "cancelled", "error"})
"""Attempt statuses counted by ``failure_rate`` (operational failures)."""
EXECUTED_STATUSES = frozenset({"completed", "needs_review"})
"""Owner statuses under which an absent member may count as null (``absent_as_null``)."""
USAGE_FIELDS = ("model_requests", "tool_calls", "output_retries", "input_tokens", "output_tokens",
                "cache_read_input_tokens", "cache_write_input_tokens", "reasoning_output_tokens")
_CLOSED = ConfigDict(extra="forbid")
# The records a report holds have no __slots__: orjson writes a dataclass from its __dict__ (the fields in
# order), where one with slots has its fields looked up one by one.


class Record(BaseModel):
    """Base of the report's records: frozen, and closed (an unknown key is refused when a report is read)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True, slots=True)
class AttemptRequest:
    """What the system under test is asked to do for one attempt (sent as JSON to commands and URLs)."""

    suite: str
    case_id: str
    repetition: int
    target_workflow: str
    target_flow: str | None
    target_step: str | None
    payload: Any
    metadata: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """The request document."""
        return {"suite": self.suite, "case_id": self.case_id, "repetition": self.repetition,
                "target_workflow": self.target_workflow, "target_flow": self.target_flow,
                "target_step": self.target_step, "payload": self.payload, "metadata": self.metadata}


@dataclass(frozen=True, slots=True)
class Observation:
    """What one attempt produced: a result document, or a safe error code when it produced none."""

    result: dict[str, Any] | None
    error_code: str | None = None
    """Set exactly when ``result`` is None (``timeout``, ``invalid_result``, ``target_exit_status``...)."""
    elapsed_seconds: float | None = None
    usage: dict[str, Any] | None = None
    """Usage reported beside the result (recorded results); else read from ``/execution/usage``."""


@dataclass(frozen=True)  # written by orjson: no slots (see above)
class CheckResult:
    """How one expectation came out for one attempt."""

    __pydantic_config__ = _CLOSED

    name: str
    outcome: Outcome
    reason_code: str | None = None
    """Why it did not pass (``mismatch``, ``path_absent``, ``owner_skipped``, ``no_valid_result``...)."""


@dataclass(frozen=True)  # written by orjson: no slots (see above)
class Invocation:
    """One flow or step record observed in a result."""

    __pydantic_config__ = _CLOSED

    flow: str
    step: str | None
    invocation_path: str
    """JSON pointer of the exact record (nested collection items included)."""
    status: str
    origin: str | None = None
    """``model`` or ``fallback`` for decision steps with a selection."""


@dataclass(frozen=True)  # written by orjson: no slots (see above)
class MetricObservation:
    """What one attempt contributes to one metric."""

    __pydantic_config__ = _CLOSED

    state: Literal["observed", "abstained", "missing", "skipped", "error", "invalid", "excluded"]
    predicted: Any = None
    gold: Any = None
    correct: bool | None = None
    fields: dict[str, str] | None = None
    """Per-field category for ``fields`` metrics."""


@dataclass(frozen=True)  # written by orjson: no slots (see above)
class AttemptRecord:
    """One attempt (case × repetition) as kept in the report."""

    __pydantic_config__ = _CLOSED

    id: str
    repetition: int
    status: AttemptStatus
    passed: bool
    """Every check passed."""
    checks: tuple[CheckResult, ...]
    input_sha256: str
    expectations_sha256: str
    error_code: str | None = None
    elapsed_seconds: float | None = None
    usage: dict[str, int | None] | None = None
    invocations: tuple[Invocation, ...] = ()
    metrics: dict[str, MetricObservation] = field(default_factory=dict)
    details: dict[str, Any] | None = None
    """``input``, ``expectations`` and ``result`` (private detail reports only)."""


@dataclass(frozen=True, slots=True)
class Scored:
    """A check result plus the value it compared (for metrics; never serialised)."""

    check: CheckResult
    value: Any


_new = object.__new__


def attempt_record(id: str, repetition: int, status: AttemptStatus, passed: bool,
                   checks: tuple[CheckResult, ...], input_sha256: str, expectations_sha256: str,
                   error_code: str | None, elapsed_seconds: float | None, usage: dict[str, int | None] | None,
                   invocations: tuple[Invocation, ...], metrics: dict[str, MetricObservation],
                   details: dict[str, Any] | None) -> AttemptRecord:
    """An :class:`AttemptRecord` equal to the one its constructor makes, its fields set at once.

    A frozen dataclass sets each field through ``object.__setattr__`` one by one; here the fields go into the
    instance dict at once, in declaration order, as orjson writes them.
    """
    record: AttemptRecord = _new(AttemptRecord)
    record.__dict__.update({
        "id": id, "repetition": repetition, "status": status, "passed": passed, "checks": checks,
        "input_sha256": input_sha256, "expectations_sha256": expectations_sha256, "error_code": error_code,
        "elapsed_seconds": elapsed_seconds, "usage": usage, "invocations": invocations, "metrics": metrics,
        "details": details})
    return record
