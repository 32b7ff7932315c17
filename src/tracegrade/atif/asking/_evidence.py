"""Evidence for one judge request, projected and fitted into a byte budget, laid out for a prefix cache.

Half of ``max_context_bytes`` holds the steps: the kept history, oldest first, then the current step as the
last one; the other half is left for the task, tools, delegation, criteria and instructions. Required evidence
that does not fit is an error (``context_overflow``), never silently clipped.

Every step is one line of canonical JSON, the same whether judged or shown as history. History is dropped
oldest first in blocks of a quarter of the budget, so that consecutive requests share a long prefix; how many
older steps were left out is kept per request.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracegrade.errors import ConfigError
from tracegrade.judge import MIN_CONTEXT_BYTES, context_overflow, dumps

if TYPE_CHECKING:
    from tracegrade.atif.reading._models import ContentPart, ObservationResult, Step

__all__ = ["TASK_MARKER", "Evidence", "Frames", "build_evidence", "embedded", "project_step"]

TASK_MARKER = "[the task, given above]"
"""Stands for a user message that repeats the task word for word (the task is sent once)."""

Frames = dict[int, tuple[dict[str, Any], str, int]]
"""Each step's projection, its line as the judge reads it and that line's size in bytes (its newline
included), by ``id`` of the step."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """The evidence for one step, each part serialised, ready to embed in a judge request."""

    task: str
    """The task as a JSON string."""
    tools: str
    """The tool definitions as a JSON list."""
    delegation: str | None
    """For a subagent, the parent step that handed it the work (one step line)."""
    reference: str | None
    """Reference mode: the expected answer as a JSON string."""
    steps: tuple[str, ...]
    """The kept history, oldest first, then the current step: one line of JSON each."""
    omitted_history: int
    """History steps dropped (oldest first) to fit the budget."""
    max_context_bytes: int
    """Budget the complete request must also respect."""

    @property
    def current(self) -> str:
        """The line of the step under judgement (the last one)."""
        return self.steps[-1]


def embedded(json_text: str) -> str:
    r"""JSON text safe to place between a prompt's ``<tag>`` delimiters.

    ``</`` can only occur inside JSON strings, where ``<\/`` is an equivalent escape; so content
    cannot close a delimiter early and pose as instructions outside the data.
    """
    return json_text.replace("</", "<\\/")


def project_step(step: Step) -> dict[str, Any]:
    """What the judge sees of a step: text, reasoning, tool calls and observations only.

    Metrics (token ids, logprobs, costs), producer ``extra`` fields and timestamps are left
    out; images and audio become explicit ``[... omitted: path]`` markers.
    """
    view: dict[str, Any] = {"step_id": step.step_id, "source": step.source,
                            "message": _content(step.message)}
    if step.reasoning_content:
        view["reasoning_content"] = step.reasoning_content
    if step.tool_calls:
        view["tool_calls"] = [
            {"tool_call_id": c.tool_call_id, "function_name": c.function_name, "arguments": c.arguments}
            for c in step.tool_calls
        ]
    if step.observation is not None:
        view["observation"] = [_result(r) for r in step.observation.results]
    if step.is_copied_context:
        view["is_copied_context"] = True
    return view


def build_evidence(task: str, tool_definitions: Sequence[dict[str, Any]] | None, history: Sequence[Step], current: Step,
                   delegation: Step | None, max_context_bytes: int, *, reference: str | None = None,
                   frames: Frames | None = None) -> Evidence:
    """Project and fit the evidence for judging ``current`` within ``max_context_bytes`` (the whole request).

    ``history`` is the steps before ``current``, oldest first (a ``replace`` boundary drops those before it);
    ``delegation`` a subagent's delegating parent step; ``reference`` the expected answer (untrusted evidence).
    ``frames`` keeps each step's projection and line across the steps of one trajectory (the current step's is
    added); the caller keeps the steps alive for as long as the dict.

    Raises:
        ConfigError: when ``max_context_bytes`` is below the minimum.
        JudgeError: ``context_overflow`` when required evidence does not fit.
    """
    if max_context_bytes < MIN_CONTEXT_BYTES:
        raise ConfigError(f"max_context_bytes: must be >= {MIN_CONTEXT_BYTES}")
    frames = {} if frames is None else frames
    step_budget = max_context_bytes // 2
    other_budget = max_context_bytes - step_budget
    current_line, current_size = _frame(current, task, frames)[1:]
    if current_size > step_budget:
        raise context_overflow("the current step", current_size, step_budget)
    task_text = embedded(dumps(task).decode())
    _check("the task", task_text, other_budget)
    delegation_line = None
    if delegation is not None:
        delegation_line = embedded(dumps(project_step(delegation)).decode())
        _check("the delegation evidence", delegation_line, other_budget)
    reference_text = None
    if reference is not None:
        reference_text = embedded(dumps(reference).decode())
        _check("the reference answer", reference_text, other_budget)
    context = _after_boundary(history, current)
    kept, omitted = _fit_history(context, step_budget - current_size, max(step_budget // 2, 1), task, frames)
    tools = embedded(dumps(list(tool_definitions or [])).decode())
    evidence = Evidence(task_text, tools, delegation_line, reference_text, (*kept, current_line), omitted,
                        max_context_bytes)
    size = evidence_size(evidence)
    if size > max_context_bytes:
        raise context_overflow("the evidence", size, max_context_bytes)
    return evidence


def evidence_size(evidence: Evidence) -> int:
    """Bytes of the evidence's parts together (what the request must hold besides its instructions)."""
    parts = [evidence.task, evidence.tools, evidence.delegation or "", evidence.reference or "", *evidence.steps]
    return sum(len(part.encode()) + 1 for part in parts)


def _check(what: str, text: str, limit: int) -> None:
    size = len(text.encode())
    if size > limit:
        raise context_overflow(what, size, limit)


def _frame(step: Step, task: str, frames: Frames) -> tuple[dict[str, Any], str, int]:
    """The step's projection, its line and the line's size, projected once per ``frames``."""
    frame = frames.get(id(step))
    if frame is None:
        view = project_step(step)
        shown = {**view, "message": TASK_MARKER} if step.source == "user" and view["message"] == task else view
        line = embedded(dumps(shown).decode())
        frame = frames[id(step)] = (view, line, len(line.encode()) + 1)  # one newline after each line
    return frame


def _fit_history(history: Sequence[Step], room: int, block: int, task: str,
                 frames: Frames) -> tuple[list[str], int]:
    """The history lines kept in ``room`` bytes, and how many older steps were dropped.

    The kept history starts at the oldest block start whose history fits; a block starts at the step where
    the running size of the history crosses a multiple of ``block`` bytes. Only when no block start fits
    does it start at the oldest step that does.
    """
    sizes = [_frame(step, task, frames)[2] for step in history]
    before = list(itertools.accumulate(sizes, initial=0))  # bytes of history ahead of each step
    chosen = next((index for index in range(len(sizes))
                   if before[-1] - before[index] <= room
                   and (index == 0 or before[index] // block != before[index - 1] // block)),
                  None)
    start = chosen if chosen is not None else _oldest_fitting(sizes, room)
    return [_frame(step, task, frames)[1] for step in history[start:]], start


def _oldest_fitting(sizes: list[int], room: int) -> int:
    """The oldest start from which the newest steps fit in ``room`` bytes."""
    used = 0
    for index in range(len(sizes) - 1, -1, -1):
        if used + sizes[index] > room:
            return index + 1
        used += sizes[index]
    return 0


def _after_boundary(history: Sequence[Step], current: Step) -> Sequence[Step]:
    """History from the last context ``replace`` boundary on (the agent's real context)."""
    if _replaces_context(current):
        return ()
    for position in range(len(history) - 1, -1, -1):
        if _replaces_context(history[position]):
            return history[position:]
    return history


def _replaces_context(step: Step) -> bool:
    if step.source != "system":  # most steps: no need to look into extra
        return False
    management = (step.extra or {}).get("context_management")
    return isinstance(management, dict) and management.get("boundary") == "replace"


def _content(value: str | list[ContentPart] | None) -> str | list[str] | None:
    if value is None or isinstance(value, str):
        return value
    return [_part(part) for part in value]


def _part(part: ContentPart) -> str:
    if part.type == "text":
        return part.text or ""
    path = part.source.path if part.source is not None else "unknown"
    return f"[{part.type} omitted: {path}]"


def _result(result: ObservationResult) -> dict[str, Any]:
    view: dict[str, Any] = {"content": _content(result.content)}
    if result.source_call_id is not None:
        view["source_call_id"] = result.source_call_id
    if result.subagent_trajectory_ref:
        view["subagent_trajectory_ref"] = [
            {k: v for k, v in (("trajectory_id", r.trajectory_id), ("trajectory_path", r.trajectory_path))
             if v is not None}
            for r in result.subagent_trajectory_ref
        ]
    return view
