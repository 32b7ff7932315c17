"""Read every trace variant (FORMATS.md §2 and the rich extension) into normalised :class:`Step` records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tracegrade._io import JsonProblem, loads
from tracegrade.dabench.reading._cells import answer_from_json
from tracegrade.dabench.reading._facts import tool_facts
from tracegrade.dabench.reading._records import AnswerTable, Phase, Step, ToolCall, TraceFormat
from tracegrade.dabench.reading._vocab import DAG_ACTIONS, inferred_phase
from tracegrade.errors import InputError
from tracegrade.runs import UnreadableFile, read_capped

__all__ = ["MAX_JSON_BYTES", "RICH_FORMAT", "ParsedTrace", "parse_trace", "read_json_file", "read_trace"]

MAX_JSON_BYTES = 64 * 1024 * 1024
"""Largest ``trace.json``, ``summary.json`` or ``task.json`` read."""

RICH_FORMAT = "tracegrade.dabench.rich"
TEXT_CAP = 2000
_REACT, _RICH, _DAG = TraceFormat.REACT, TraceFormat.RICH, TraceFormat.DAG  # looked up once: enum access is slow
_DAG_ROLES = {"__plan__": "planner", "__dag_node_start__": "scheduler", "__dag_node_done__": "scheduler"}


@dataclass(frozen=True, slots=True)
class ParsedTrace:
    """One trace file, normalised."""

    format: TraceFormat
    steps: tuple[Step, ...]
    answer: AnswerTable | None
    succeeded: bool | None
    failure_reason: str | None
    elapsed_seconds: float | None
    task_fields: dict[str, Any]
    """Task-level fields of the rich extension (coordinator_final_decision, plan_attempts, ...)."""


def read_trace(path: Path) -> ParsedTrace:
    """Read and normalise one ``trace.json``.

    Raises:
        InputError: code ``invalid_trace``; the message names the file and the place in it.
    """
    document = read_json_file(path, code="invalid_trace")
    try:
        return parse_trace(document)
    except _TraceError as exc:
        raise InputError(f"{path}: {exc}", code="invalid_trace") from None


def read_json_file(path: Path, *, code: str) -> Any:
    """A JSON file of at most MAX_JSON_BYTES, decoded (a FIFO or device is refused, never waited on).

    Raises:
        InputError: with ``code``, naming the file.
    """
    try:
        return loads(read_capped(path, MAX_JSON_BYTES))
    except UnreadableFile as exc:
        raise InputError(str(exc), code=code) from None
    except JsonProblem as exc:
        raise InputError(f"{path}: invalid JSON ({exc.describe()})", code=code) from None


class _TraceError(ValueError):
    """A structural problem in a trace (message names the place)."""


def parse_trace(document: object) -> ParsedTrace:
    """Normalise a decoded trace document (any variant)."""
    if not isinstance(document, dict):
        raise _TraceError("top level is not a JSON object")
    raw_steps = document.get("steps", [])
    if not isinstance(raw_steps, list):
        raise _TraceError("'steps' is not a list")
    fmt = _detect(document, raw_steps)
    steps: list[Step] = []
    for index, raw in enumerate(raw_steps):
        if not isinstance(raw, dict):
            raise _TraceError(f"steps[{index}] is not an object")
        build = _langgraph_step if fmt is TraceFormat.LANGGRAPH else _react_step
        steps.append(build(raw, index, fmt, steps[-1].phase if steps else None))
    rich_fields = {k: document.get(k) for k in _RICH_TASK_FIELDS if k in document}
    return ParsedTrace(
        format=fmt,
        steps=tuple(steps),
        answer=answer_from_json(document.get("answer")),
        succeeded=_typed(document, "succeeded", bool, "trace"),
        failure_reason=_typed(document, "failure_reason", str, "trace"),
        elapsed_seconds=_number(document, "e2e_elapsed_seconds", "trace"),
        task_fields=rich_fields,
    )


_RICH_TASK_FIELDS = ("coordinator_final_decision", "plan_attempts", "execution_attempts", "confidence_score",
                     "documents_required", "explanation_quality_score")


def _detect(document: dict[str, Any], steps: list[Any]) -> TraceFormat:
    if document.get("trace_format") == RICH_FORMAT:
        return TraceFormat.RICH
    if not steps:
        return TraceFormat.FAILURE_PAYLOAD if document.get("failure_reason") else TraceFormat.REACT
    dag = False
    for step in steps:  # one pass for both tests: a LangGraph node anywhere wins over DAG actions
        if isinstance(step, dict):
            if "node" in step:
                return TraceFormat.LANGGRAPH
            if not dag:
                action = step.get("action")
                dag = isinstance(action, str) and action in DAG_ACTIONS
    return TraceFormat.DAG if dag else TraceFormat.REACT


def unwrap(value: object, depth: int = 3) -> object:
    """Decode string-wrapped JSON (``"{...}"`` or ``{"content": "{...}"}``) up to ``depth`` levels."""
    for _ in range(depth):
        if isinstance(value, str) and value[:1] in ("{", "["):
            try:
                value = loads(value)
            except JsonProblem:
                return value
        elif isinstance(value, dict) and len(value) == 1 and isinstance(value.get("content"), str):
            value = value["content"]
        else:
            return value
    return value


def _text(value: object) -> str:
    if type(value) is str:
        return value[:TEXT_CAP]
    if value is None:
        return ""
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    return text[:TEXT_CAP]


def _dumped(value: object) -> tuple[str, int]:
    """The capped text of a value and its full JSON size in bytes (one serialisation)."""
    if isinstance(value, str):
        return value[:TEXT_CAP], len(value.encode())
    data = orjson.dumps(value, default=str)
    return data[: TEXT_CAP * 4].decode(errors="ignore")[:TEXT_CAP], len(data)


def _typed(raw: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise _TraceError(f"{where}.{key} is not a {kind.__name__}")
    return value


def _number(raw: dict[str, Any], key: str, where: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise _TraceError(f"{where}.{key} is not a non-negative number")
    return float(value)


def _count(raw: dict[str, Any], key: str, where: str) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _TraceError(f"{where}.{key} is not a non-negative integer")
    return value


def _tokens(raw: object, where: str) -> tuple[int | None, int | None, int | None]:
    if raw is None:
        return None, None, None
    if not isinstance(raw, dict):
        raise _TraceError(f"{where} is not an object")
    return _count(raw, "input", where), _count(raw, "output", where), _count(raw, "reasoning", where)


def _error_of(observation: object, content: object) -> str | None:
    for source in (observation, content):
        if isinstance(source, dict) and (source.get("ok") is False or source.get("success") is False):
            message = source.get("error") or source.get("stderr") or "failed"
            return str(message)[:300]
    return None


_STR_FIELDS = ("agent", "agent_type", "timestamp", "decision", "review_type", "verification_status",
               "specialist_selected", "coordinator_checkpoint")
_RICH_STEP_KEYS = frozenset({*_STR_FIELDS, "parent_step_id", "duration_seconds", "confidence", "retries", "tokens"})


def _at(index: int) -> str:
    """Where a step is in its trace, for error messages (built only when one is raised)."""
    return f"steps[{index}]"


def _rich_fields(raw: dict[str, Any], index: int) -> dict[str, Any]:
    """The optional rich-extension fields a step carries (checked types), as Step keyword arguments."""
    present = _RICH_STEP_KEYS.intersection(raw)
    if not present:
        return {}
    where = _at(index)
    fields: dict[str, Any] = {key: _typed(raw, key, str, where) for key in _STR_FIELDS if key in present}
    fields["parent_step_id"] = _count(raw, "parent_step_id", where)
    fields["retries"] = _count(raw, "retries", where)
    fields["duration_seconds"] = _number(raw, "duration_seconds", where)
    fields["confidence"] = _number(raw, "confidence", where)
    t_in, t_out, t_reason = _tokens(raw.get("tokens"), f"{where}.tokens")
    fields.update(tokens_input=t_in, tokens_output=t_out, tokens_reasoning=t_reason)
    return fields


def _react_step(raw: dict[str, Any], index: int, fmt: TraceFormat, previous: Phase | None) -> Step:
    # the hot path of a run (one call per step): plain values skip the helpers, which keep the error messages
    get = raw.get
    action = get("action")
    if type(action) is not str:
        action = _typed(raw, "action", str, _at(index)) or ""  # None: no action; anything else but text is an error
    observation = get("observation")
    if observation is not None and (type(observation) is not dict or len(observation) == 1):
        observation = unwrap(observation)  # what _unwrapped does, without its call for the plain case
    content = None
    if isinstance(observation, dict):
        content = observation.get("content")
        if content is not None and (type(content) is not dict or len(content) == 1):
            content = unwrap(content)
    error = _error_of(observation, content)
    tool = get("tool")
    if tool is not None and type(tool) is not str:
        tool = _typed(raw, "tool", str, _at(index))
    if tool is None and fmt is not _RICH and not (action.startswith("__") or action in _PSEUDO_ACTIONS):
        tool = action  # official and DAG traces name the tool in ``action``; the rich trace names it in ``tool``
    ok = (get("ok") is not False) and error is None
    phase_text = get("phase")
    if phase_text is not None and type(phase_text) is not str:
        phase_text = _typed(raw, "phase", str, _at(index))
    step_id = get("step_index")
    if type(step_id) is not int or step_id < 0:
        step_id = _count(raw, "step_index", _at(index))
    step_id = step_id or index + 1
    rich = _rich_fields(raw, index) if not _RICH_STEP_KEYS.isdisjoint(raw) else {}
    args = get("action_input")
    if args is not None and (type(args) is not dict or (len(args) == 1 and isinstance(args.get("content"), str))):
        args = unwrap(args)  # a dict of one key other than text ``content`` is returned as it is
    observation_text, observation_size = _dumped(observation)
    call = None
    if tool is not None:
        call = _tool_call(str(step_id), step_id, tool, args, observation_size, ok, error, rich)
    agent_type = rich.get("agent_type") if rich else None
    if not agent_type:
        agent_type = _default_agent_type(action, fmt)
    verification_status = rich.get("verification_status")
    if action == "__reflect__" and verification_status is None and isinstance(content, dict):
        verification_status = "passed" if str(content.get("verdict", "")).upper() == "OK" else "failed"
    p_id, agent, duration, t_in, t_out, t_reason, stamp, conf, decision, review, specialist, checkpoint, retries = (
        tuple(map(rich.get, _RICH_ORDER)) if rich else _NO_RICH
    )
    thought, raw_response = get("thought"), get("raw_response")
    return Step._make(
        (
            step_id, action,
            _phase(phase_text, _at(index)) if phase_text else inferred_phase(action, previous),
            phase_text is None, ok, tool, p_id, agent, agent_type,
            thought[:TEXT_CAP] if type(thought) is str else _text(thought), _text(args), observation_text,
            raw_response[:TEXT_CAP] if type(raw_response) is str else _text(raw_response),
            error if not ok else None, fmt is _REACT or _is_llm_call(raw, action, fmt, rich),
            duration, t_in, t_out, t_reason, stamp,
            conf, decision, review, verification_status, specialist, checkpoint, retries,
            (call,) if call else (),
            tool_facts(tool, args, content) if ok and tool else (),
            _dag(content) if action in ("__plan__", "plan") else (),
            _count(content, "attempt", f"{_at(index)}.observation")
            if isinstance(content, dict) and content.get("attempt") is not None
            else None,
            answer_from_json(args) if tool == "answer" else None,
        )
    )


_RICH_ORDER = ("parent_step_id", "agent", "duration_seconds", "tokens_input", "tokens_output", "tokens_reasoning",
               "timestamp", "confidence", "decision", "review_type", "specialist_selected", "coordinator_checkpoint",
               "retries")
_NO_RICH = (None,) * len(_RICH_ORDER)


_PSEUDO_ACTIONS = frozenset({"", "plan", "planner", "replan", "verify", "critic"})


def _phase(text: str, where: str) -> Phase:
    try:
        return Phase(text.upper())
    except ValueError:
        raise _TraceError(f"{where}.phase {text!r} is not one of {', '.join(Phase)}") from None


def _default_agent_type(action: str, fmt: TraceFormat) -> str | None:
    if action == "__reflect__":
        return "critic"
    if fmt is _DAG:
        return _DAG_ROLES.get(action, "executor")
    return None


def _is_llm_call(raw: dict[str, Any], action: str, fmt: TraceFormat, rich: dict[str, Any]) -> bool:
    if fmt is TraceFormat.RICH:
        has_tokens = rich.get("tokens_input") is not None or rich.get("tokens_output") is not None
        return raw.get("llm_call") is True or has_tokens
    if fmt is TraceFormat.DAG:
        return action not in ("__dag_node_start__", "__dag_node_done__")
    return True


def _tool_call(call_id: str, step_id: int, tool: str, args: object, output_size: int, ok: bool, error: str | None,
               rich: dict[str, Any]) -> ToolCall:
    args_key = orjson.dumps(args, option=orjson.OPT_SORT_KEYS, default=str).decode()
    if rich:
        t_in, t_out = rich.get("tokens_input"), rich.get("tokens_output")
        tokens = None if t_in is None and t_out is None else (t_in or 0) + (t_out or 0)
        latency, retries, stamp = rich.get("duration_seconds"), rich.get("retries"), rich.get("timestamp")
    else:
        tokens = latency = retries = stamp = None
    message = None if ok else (error or "failed")
    return ToolCall._make(
        (
            call_id, step_id, tool, ok, _error_type(message) if message else None, message, len(args_key),
            output_size, latency, tokens, retries, stamp, args_key,
        )
    )


def _error_type(message: str) -> str:
    head = message.split(":", 1)[0].strip()
    return head if head.isidentifier() and (head.endswith("Error") or head.endswith("Exception")) else "tool_error"


def _dag(content: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    dag = content.get("dag") if isinstance(content, dict) else None
    nodes = dag.get("nodes") if isinstance(dag, dict) else None
    if not isinstance(nodes, list):
        return ()
    found = []
    for node in nodes:
        if isinstance(node, dict) and isinstance(node.get("id"), str):
            deps = node.get("depends_on")
            found.append((node["id"], tuple(str(d) for d in deps) if isinstance(deps, list) else ()))
    return tuple(found)


def _langgraph_step(raw: dict[str, Any], index: int, fmt: TraceFormat, previous: Phase | None) -> Step:
    where = f"steps[{index}]"
    step_id = _count(raw, "step_index", where) or index + 1
    calls = unwrap(raw.get("tool_calls")) or []
    results = unwrap(raw.get("tool_results")) or []
    if not isinstance(calls, list) or not isinstance(results, list):
        raise _TraceError(f"{where}.tool_calls/tool_results are not lists")
    calls = [c for c in calls if isinstance(c, dict)]
    names = [str(c.get("name")) for c in calls]
    if raw.get("node") == "model":
        return _model_node(raw, step_id, names, calls, previous, where)
    tool_calls = [_node_call(step_id, position, call, results) for position, call in enumerate(calls)]
    facts = tuple(
        fact
        for position, call in enumerate(calls)
        if tool_calls[position].ok
        for fact in tool_facts(names[position], unwrap(call.get("args")), _content(results[position]))
    )
    answers = [answer_from_json(unwrap(c.get("args"))) for c in calls if c.get("name") == "answer"]
    action = "+".join(names) or "tool"
    ok = raw.get("ok") is not False and all(c.ok for c in tool_calls)
    return Step(
        step_id=step_id,
        action=action,
        phase=inferred_phase(names[0], previous) if names else Phase.EXECUTE,
        phase_inferred=True,
        ok=ok,
        tool=action,
        action_input=_text(calls),
        observation=_text(results),
        error=None if ok else next((c.error_message for c in tool_calls if not c.ok), "failed"),
        tool_calls=tuple(tool_calls),
        facts=facts,
        answer=answers[-1] if answers else None,
    )


def _model_node(
    raw: dict[str, Any], step_id: int, names: list[str], calls: list[Any], previous: Phase | None, where: str
) -> Step:
    response = unwrap(raw.get("model_response"))
    response = response if isinstance(response, dict) else {}
    place = f"{where}.model_response"
    return Step(
        step_id=step_id,
        action="model",
        phase=inferred_phase(names[0], previous) if names else Phase.SUMMARIZE,
        phase_inferred=True,
        ok=raw.get("ok") is not False,
        thought=_text(raw.get("assistant_message") or response.get("content_preview")),
        action_input=_text(calls),
        is_llm_call=True,
        tokens_input=_count(response, "input_tokens", place),
        tokens_output=_count(response, "output_tokens", place),
        tokens_reasoning=_count(response, "reasoning_tokens", place),
    )


def _node_call(step_id: int, position: int, call: dict[str, Any], results: list[Any]) -> ToolCall:
    result = unwrap(results[position]) if position < len(results) else None
    content = unwrap(result.get("content")) if isinstance(result, dict) else None
    error = _error_of(result, content) if result is not None else "no tool result recorded"
    call_id = str(call.get("id") or f"{step_id}.{position}")
    size = len(orjson.dumps(result, default=str))
    return _tool_call(call_id, step_id, str(call.get("name")), unwrap(call.get("args")), size, error is None, error, {})


def _content(result: object) -> object:
    result = unwrap(result)
    return unwrap(result.get("content")) if isinstance(result, dict) else None
