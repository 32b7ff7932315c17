"""Evidence for one judge request, projected and fitted into a byte budget.

Half of ``max_context_bytes`` holds the current step plus as much recent history as fits
(oldest frames go first, and how many went is kept). The other half is left for the task,
tool definitions, delegation evidence, criteria and instructions. Required evidence that does
not fit is an error (``context_overflow``), never silently clipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracegrade.errors import ConfigError
from tracegrade.judge import MIN_CONTEXT_BYTES, context_overflow, dumps

if TYPE_CHECKING:
    from tracegrade.atif.reading._models import ContentPart, ObservationResult, Step

__all__ = ["Evidence", "build_evidence", "project_step"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """Serialised evidence for one step, ready to embed in a judge request."""

    payload: bytes
    """Canonical JSON (sorted keys) of task, tools, history, current step and delegation."""
    omitted_history: int
    """History frames dropped (oldest first) to fit the budget."""
    max_context_bytes: int
    """Budget the complete request must also respect."""

    @property
    def text(self) -> str:
        """The payload as text."""
        return self.payload.decode()


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


def build_evidence(
    task: str,
    tool_definitions: Sequence[dict[str, Any]] | None,
    history: Sequence[Step],
    current: Step,
    delegation: Step | None,
    max_context_bytes: int,
    *,
    reference: str | None = None,
    frames: dict[int, tuple[dict[str, Any], int]] | None = None,
) -> Evidence:
    """Project and fit the evidence for judging ``current``.

    Args:
        task: The task the trajectory works on.
        tool_definitions: The agent's tool definitions (``agent.tool_definitions``).
        history: Steps before ``current``, oldest first; a context-management ``replace``
            boundary drops the ones before it.
        current: The step being judged.
        delegation: For a subagent, the parent step that delegated to it.
        max_context_bytes: Byte budget of the complete request.
        reference: Reference mode: the expected answer, sent as untrusted evidence.
        frames: Each step's projection and its size as a history frame, by ``id`` of the step, kept by a
            caller that judges several steps of the same trajectory (each is projected once, not once per
            later step); the current step's is added. The caller keeps the steps alive for as long as the dict.

    Raises:
        ConfigError: when ``max_context_bytes`` is below the minimum.
        JudgeError: ``context_overflow`` when required evidence does not fit.
    """
    if max_context_bytes < MIN_CONTEXT_BYTES:
        raise ConfigError(f"max_context_bytes: must be >= {MIN_CONTEXT_BYTES}")
    step_budget = max_context_bytes // 2
    current_view, current_size, delegation_view = _required(task, current, delegation, reference, step_budget,
                                                            max_context_bytes - step_budget)
    frames = {} if frames is None else frames
    frames.setdefault(id(current), (current_view, current_size + 1))  # the frame it is when a later step is judged
    kept, omitted = _fit_history(_after_boundary(history, current), step_budget - current_size, frames)
    document = {
        "task": task,
        "tool_definitions": list(tool_definitions or []),
        "history": kept,
        "history_omitted": omitted,
        "current_step": current_view,
        "delegation": delegation_view,
    }
    if reference is not None:
        document["reference_answer"] = reference
    payload = dumps(document)
    if len(payload) > max_context_bytes:
        raise context_overflow("the evidence", len(payload), max_context_bytes)
    return Evidence(payload, omitted, max_context_bytes)


def _required(task: str, current: Step, delegation: Step | None, reference: str | None, step_budget: int,
              other_budget: int) -> tuple[dict[str, Any], int, dict[str, Any] | None]:
    """Project and size-check what must fit: the current step in its half, the rest in the other.

    Returns the current step's projection and its size, and the delegation's projection.
    """
    current_view = project_step(current)
    current_size = _require("the current step", current_view, step_budget)
    _require("the task", task, other_budget)
    delegation_view = project_step(delegation) if delegation is not None else None
    _require("the delegation evidence", delegation_view, other_budget)
    if reference is not None:
        _require("the reference answer", reference, other_budget)
    return current_view, current_size, delegation_view


def _require(what: str, value: Any, limit: int) -> int:
    """The size of ``value`` as JSON, which must be at most ``limit``."""
    size = len(dumps(value))
    if size > limit:
        raise context_overflow(what, size, limit)
    return size


def _fit_history(history: Sequence[Step], room: int,
                 frames: dict[int, tuple[dict[str, Any], int]]) -> tuple[list[dict[str, Any]], int]:
    """Keep the newest frames that fit in ``room`` bytes; report how many older ones were dropped."""
    kept: list[dict[str, Any]] = []
    used = 0
    for step in reversed(history):
        frame = frames.get(id(step))
        if frame is None:
            view = project_step(step)
            frame = frames[id(step)] = (view, len(dumps(view)) + 1)  # one separator comma per frame
        view, size = frame
        if used + size > room:
            break
        kept.append(view)
        used += size
    kept.reverse()
    return kept, len(history) - len(kept)


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
