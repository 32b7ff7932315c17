"""A size-bounded copy of what the judge saw of one step, kept in the results for reviewers.

The view is :func:`~tracegrade.atif.asking._evidence.project_step` (message, reasoning, tool calls and
observations; no metrics, timestamps or producer extras) with every text part cut to
``PART_CHARS`` characters and at most ``MAX_ITEMS`` tool calls and observation results, so a
report can show the step beside its score without the results growing with the trajectory.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from tracegrade.atif.asking._evidence import project_step

if TYPE_CHECKING:
    from tracegrade.atif.reading._models import Step

__all__ = ["MAX_ITEMS", "PART_CHARS", "ObservationContent", "StepContent", "ToolCallContent", "step_content"]

PART_CHARS = 4000
"""Characters kept of one text part (message, reasoning, one call's arguments, one observation)."""
MAX_ITEMS = 20
"""Tool calls, and observation results, kept per step."""


class _View(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCallContent(_View):
    """One tool call of a step."""

    function_name: str
    tool_call_id: str | None = None
    arguments: str
    """The arguments as indented JSON (cut to PART_CHARS characters)."""


class ObservationContent(_View):
    """One observation result of a step."""

    source_call_id: str | None = None
    content: str | None = None
    """The result text; images and audio appear as ``[image omitted: path]`` markers."""
    subagent_refs: list[str] = Field(default_factory=list)
    """Trajectory paths or ids this result delegated to."""


class StepContent(_View):
    """What the judge saw of one step, each part cut to PART_CHARS characters."""

    message: str | None = None
    reasoning: str | None = None
    tool_calls: list[ToolCallContent] = Field(default_factory=list)
    observations: list[ObservationContent] = Field(default_factory=list)
    copied_context: bool = False
    """The producer marked the step ``is_copied_context`` (a replay of earlier context)."""
    truncated: bool = False
    """True when a part was cut or tool calls / observation results were left out."""
    omitted_items: int = 0
    """Tool calls and observation results beyond MAX_ITEMS, left out."""


def step_content(step: Step, view: dict[str, Any] | None = None) -> StepContent:
    """The bounded view of ``step`` (the same projection the judge's evidence uses).

    ``view`` is the step's projection when the caller has it already (:func:`project_step` of ``step``).
    """
    view = project_step(step) if view is None else view
    cut = _Cutter()
    calls = view.get("tool_calls", [])
    results = view.get("observation", [])
    return StepContent(message=cut(_joined(view.get("message"))), reasoning=cut(view.get("reasoning_content")),
                       tool_calls=[_call(c, cut) for c in calls[:MAX_ITEMS]],
                       observations=[_observation(r, cut) for r in results[:MAX_ITEMS]],
                       copied_context=bool(view.get("is_copied_context")),
                       truncated=cut.truncated or len(calls) > MAX_ITEMS or len(results) > MAX_ITEMS,
                       omitted_items=max(0, len(calls) - MAX_ITEMS) + max(0, len(results) - MAX_ITEMS))


class _Cutter:
    """Cuts text parts to PART_CHARS and remembers whether it had to."""

    def __init__(self) -> None:
        self.truncated = False

    def __call__(self, text: str | None) -> str | None:
        if text is None or len(text) <= PART_CHARS:
            return text
        self.truncated = True
        return f"{text[:PART_CHARS]}\n[… cut here: {len(text):,} characters in all]"


def _joined(value: str | list[str] | None) -> str | None:
    return "\n\n".join(value) if isinstance(value, list) else value


def _call(call: dict[str, Any], cut: _Cutter) -> ToolCallContent:
    arguments = _json(call["arguments"])
    return ToolCallContent(
        function_name=call["function_name"], tool_call_id=call.get("tool_call_id"), arguments=cut(arguments) or ""
    )


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # e.g. an integer beyond 64 bits: still show it
        return json.dumps(value, indent=2, sort_keys=True, default=str)


def _observation(result: dict[str, Any], cut: _Cutter) -> ObservationContent:
    refs = result.get("subagent_trajectory_ref", [])
    names = [r.get("trajectory_path") or r.get("trajectory_id") or "?" for r in refs]
    return ObservationContent(
        source_call_id=result.get("source_call_id"), content=cut(_joined(result.get("content"))), subagent_refs=names
    )
