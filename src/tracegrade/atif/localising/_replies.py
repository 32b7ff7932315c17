"""The judge's localisation answers validated against the run: a name that is not there is a protocol error."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from tracegrade.judge import protocol_error

__all__ = ["Attribution", "Decision", "Half", "attribution_parser", "parse_decision", "parse_half"]

MAX_REASON_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Attribution:
    """The agent and step the judge holds responsible, with its reason."""

    agent: str
    step: str
    """A step reference (``Tn.k``) of the record shown."""
    reason: str

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON form."""
        return {"agent": self.agent, "step": self.step, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether the examined step is the decisive one."""

    decisive: bool
    reason: str

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON form."""
        return {"decisive": self.decisive, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Half:
    """Which half of a stretch of steps holds the decisive one."""

    first: bool
    reason: str

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON form."""
        return {"half": "first" if self.first else "second", "reason": self.reason}


def attribution_parser(steps: Collection[str], agents: Collection[str]) -> Callable[[dict[str, Any]], Attribution]:
    """A parser accepting only a step and an agent of the record shown."""

    def parse(answer: dict[str, Any]) -> Attribution:
        _keys(answer, {"agent", "step", "reason"})
        step, agent = answer.get("step"), answer.get("agent")
        if not isinstance(step, str) or step not in steps:
            raise protocol_error("schema_violation", "\"step\" names no step of the record")
        if not isinstance(agent, str) or agent not in agents:
            raise protocol_error("schema_violation", "\"agent\" names no agent of the record")
        return Attribution(agent, step, _reason(answer))

    return parse


def parse_decision(answer: dict[str, Any]) -> Decision:
    """Validate ``{"decisive": bool, "reason": str}``."""
    _keys(answer, {"decisive", "reason"})
    decisive = answer.get("decisive")
    if not isinstance(decisive, bool):
        raise protocol_error("schema_violation", "\"decisive\" is not true or false")
    return Decision(decisive, _reason(answer))


def parse_half(answer: dict[str, Any]) -> Half:
    """Validate ``{"half": "first" | "second", "reason": str}``."""
    _keys(answer, {"half", "reason"})
    half = answer.get("half")
    if half not in ("first", "second"):
        raise protocol_error("schema_violation", "\"half\" is neither \"first\" nor \"second\"")
    return Half(half == "first", _reason(answer))


def _keys(answer: dict[str, Any], expected: set[str]) -> None:
    if set(answer) != expected:
        raise protocol_error("schema_violation", f"the answer's keys are not exactly {', '.join(sorted(expected))}")


def _reason(answer: dict[str, Any]) -> str:
    reason = answer.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise protocol_error("schema_violation", "\"reason\" is not a non-empty string")
    return reason.strip()[:MAX_REASON_CHARS]
