"""The OpenTelemetry GenAI conventions, current and older, plus the vendor attributes seen beside them.

Read here: span roles (``gen_ai.operation.name``), the message attributes (``gen_ai.input.messages`` /
``gen_ai.output.messages`` / ``gen_ai.system_instructions``), the older indexed ``gen_ai.prompt.N.*`` /
``gen_ai.completion.N.*`` (OpenLLMetry), the event-based messages (``gen_ai.{system,user,assistant,tool}.message``
and ``gen_ai.choice``, as span events or log records), usage, tool spans, and two vendor forms found in real
traces: Google ADK's ``gcp.vertex.agent.llm_request`` / ``llm_response`` and any-agent's ``gen_ai.output``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracegrade.atif.importing._messages import (
    Message,
    as_arguments,
    as_text,
    decode_json,
    message_from_dict,
    messages_from,
    unflatten,
)
from tracegrade.atif.importing._openinference import KIND
from tracegrade.atif.importing._spans import Span, SpanEvent, Tally

__all__ = ["INPUT_EVENTS", "OUTPUT_EVENTS", "READ", "READ_PREFIXES", "ToolRun", "Usage", "adk_inputs", "adk_outputs",
           "adk_tools", "error_text", "event_messages", "instructions_text", "legacy_inputs", "legacy_outputs",
           "legacy_tools", "semconv_inputs", "semconv_outputs", "span_role", "tool_run", "usage"]

OPERATION = "gen_ai.operation.name"
_AGENT_OPERATIONS = frozenset({"invoke_agent", "invoke_workflow"})
_MODEL_OPERATIONS = frozenset({"chat", "generate_content", "text_completion", "completion", "call_llm"})
_TOOL_OPERATIONS = frozenset({"execute_tool"})
_CONTENT_KEYS = (
    "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt.0.role", "gen_ai.prompt.0.content",
    "gen_ai.completion.0.content", "gen_ai.completion.0.role", "llm.input_messages.0.message.role",
    "llm.output_messages.0.message.role",
)
_NAME_ROLES = (("invoke_agent", "agent"), ("invoke_workflow", "agent"), ("execute_tool", "tool"),
               ("chat ", "model"), ("call_llm", "model"), ("generate_content", "model"), ("text_completion", "model"))
INPUT_EVENTS = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}
OUTPUT_EVENTS = frozenset({"gen_ai.choice"})
_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_ADK_REQUEST, _ADK_RESPONSE = "gcp.vertex.agent.llm_request", "gcp.vertex.agent.llm_response"
_PROMPT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
_COMPLETION_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion")
_CACHED_TOKENS = ("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens",
                  "llm.token_count.prompt_details.cache_read")
_REASONING_TOKENS = ("gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.reasoning_tokens",
                     "llm.token_count.completion_details.reasoning")
USAGE_PREFIXES = ("gen_ai.usage.", "llm.token_count.", "llm.usage.")
"""Where token counts live: one under these that is not read has no ATIF field (totals, cache writes, audio)."""
_TOOL_NAMES = ("gen_ai.tool.name", "tool.name")
_TOOL_CALL_IDS = ("gen_ai.tool.call.id", "tool_call.id", "tool.id")
_TOOL_ARGUMENTS = ("gen_ai.tool.call.arguments", "gen_ai.tool.args", "gcp.vertex.agent.tool_call_args", "input.value",
                   "input")
_TOOL_RESULTS = ("gen_ai.tool.call.result", "gen_ai.output", "gcp.vertex.agent.tool_response", "output.value",
                 "output")

READ = frozenset({
    OPERATION, "gen_ai.system", "gen_ai.provider.name", "gen_ai.request.model", "gen_ai.response.model",
    "gen_ai.response.id", "gen_ai.response.finish_reasons", "gen_ai.input.messages", "gen_ai.output.messages",
    "gen_ai.system_instructions", "gen_ai.tool.definitions", "gen_ai.output", "gen_ai.output.type",
    *_PROMPT_TOKENS, *_COMPLETION_TOKENS, *_CACHED_TOKENS, *_REASONING_TOKENS, "gen_ai.usage.input_cost",
    "gen_ai.usage.output_cost", "gen_ai.usage.cost",
    "gen_ai.agent.name", "gen_ai.agent.id", "gen_ai.agent.description", "gen_ai.agent.version", "gen_ai.workflow.name",
    "gen_ai.conversation.id", *_TOOL_NAMES, *_TOOL_CALL_IDS, *_TOOL_ARGUMENTS, *_TOOL_RESULTS,
    "gen_ai.tool.description", "gen_ai.tool.type", "error.type", _ADK_REQUEST, _ADK_RESPONSE,
})
"""Attribute keys the importer reads (the indexed ``gen_ai.prompt.*`` and friends come on top)."""

READ_PREFIXES = ("gen_ai.prompt.", "gen_ai.completion.", "llm.request.functions.")


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage and cost of one model call."""

    prompt: int | None
    completion: int | None
    cached: int | None
    reasoning: int | None
    cost: float | None

    def metrics(self) -> dict[str, Any]:
        """An agent step's ``metrics``: the counts recorded (a count of 0 is a count), reasoning tokens in ``extra``."""
        metrics: dict[str, Any] = {key: value for key, value in (
            ("prompt_tokens", self.prompt), ("completion_tokens", self.completion), ("cached_tokens", self.cached),
            ("cost_usd", self.cost)) if value is not None}
        if self.reasoning is not None:
            metrics["extra"] = {"reasoning_tokens": self.reasoning}
        return metrics


_NO_USAGE = Usage(None, None, None, None, None)


@dataclass(frozen=True, slots=True)
class ToolRun:
    """What a tool span says about one tool execution."""

    call_id: str | None
    name: str
    arguments: dict[str, Any]
    result: str
    error: str | None


def span_role(span: Span) -> str | None:
    """``agent``, ``model`` or ``tool`` for a span of one of those kinds; None for every other span."""
    attributes = span.attributes
    operation = attributes.get(OPERATION)
    kind = attributes.get(KIND)
    if operation in _AGENT_OPERATIONS or kind == "AGENT":
        return "agent"
    if operation in _TOOL_OPERATIONS or kind == "TOOL":
        return "tool"
    if operation in _MODEL_OPERATIONS or kind == "LLM":
        return "model"
    if operation is not None or kind is not None:
        return None
    if any(key in attributes for key in _CONTENT_KEYS) or attributes.get(_ADK_REQUEST, "{}") != "{}":
        return "model"
    if any(event.name in INPUT_EVENTS or event.name in OUTPUT_EVENTS for event in span.events):
        return "model"
    return next((role for prefix, role in _NAME_ROLES if span.name.startswith(prefix)), None)


def semconv_inputs(attributes: dict[str, Any], tally: Tally) -> list[Message] | None:
    """``gen_ai.system_instructions`` and ``gen_ai.input.messages``."""
    found = _message_list(attributes, "gen_ai.input.messages", tally)
    instructions = instructions_text(attributes.get("gen_ai.system_instructions"))
    if instructions:
        return [Message("system", instructions), *(found or [])]
    return found


def _message_list(attributes: dict[str, Any], key: str, tally: Tally) -> list[Message] | None:
    if key not in attributes:
        return None
    found = messages_from(attributes[key], tally)
    if found is None:
        tally.add(f"attribute {key} that is not a list of messages")
    return found


def instructions_text(value: Any) -> str:
    """``gen_ai.system_instructions`` (parts, as JSON text or a list) as text."""
    parsed = decode_json(value) if isinstance(value, str) and value.lstrip().startswith(("[", "{")) else value
    if isinstance(parsed, list):
        return "\n".join(as_text(p.get("content")) if isinstance(p, dict) else as_text(p) for p in parsed)
    return as_text(parsed)


def semconv_outputs(attributes: dict[str, Any], tally: Tally) -> list[Message] | None:
    """``gen_ai.output.messages``, or any-agent's ``gen_ai.output`` (text, or a list of tool calls)."""
    if "gen_ai.output.messages" in attributes:
        return _message_list(attributes, "gen_ai.output.messages", tally)
    if "gen_ai.output" not in attributes:
        return None
    raw = attributes["gen_ai.output"]
    parsed = decode_json(raw) if attributes.get("gen_ai.output.type") == "json" else None
    if isinstance(parsed, list) and parsed and all(isinstance(c, dict) and "tool.name" in c for c in parsed):
        calls = [{"function": {"name": c["tool.name"], "arguments": c.get("tool.args")}} for c in parsed]
        return message_from_dict({"role": "assistant", "tool_calls": calls}, tally)
    return [Message("assistant", as_text(raw))]


def legacy_inputs(attributes: dict[str, Any], tally: Tally) -> list[Message] | None:
    """The indexed ``gen_ai.prompt.N.{role,content,tool_call_id,tool_calls.M.*}`` attributes."""
    return _indexed(attributes, "gen_ai.prompt", ("role", "content"), "user", tally)


def legacy_outputs(attributes: dict[str, Any], tally: Tally) -> list[Message] | None:
    """The indexed ``gen_ai.completion.N.*`` attributes."""
    return _indexed(attributes, "gen_ai.completion", ("role", "content", "finish_reason"), "assistant", tally)


def _indexed(attributes: dict[str, Any], prefix: str, fields: tuple[str, ...], role: str,
             tally: Tally) -> list[Message] | None:
    """Messages of an indexed attribute family, or None when its first item has none of ``fields``."""
    if not any(f"{prefix}.0.{field}" in attributes for field in fields):
        return None
    items = unflatten(attributes, prefix)
    if not items:
        return None
    return [m for item in items if isinstance(item, dict) for m in message_from_dict(item, tally, role)]


def legacy_tools(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    """``llm.request.functions.N.{name,description,parameters}`` as function definitions."""
    if "llm.request.functions.0.name" not in attributes:
        return []
    found = []
    for item in unflatten(attributes, "llm.request.functions"):
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            function = {k: v for k, v in item.items() if k in ("name", "description")}
            parameters = decode_json(item.get("parameters"))
            if isinstance(parameters, dict):
                function["parameters"] = parameters
            found.append({"type": "function", "function": function})
    return found


def adk_inputs(attributes: dict[str, Any], tally: Tally) -> list[Message] | None:
    """Google ADK's ``gcp.vertex.agent.llm_request``: system instruction and Gemini ``contents``."""
    request = decode_json(attributes.get(_ADK_REQUEST))
    if not isinstance(request, dict) or not isinstance(request.get("contents"), list):
        return None
    config: dict[str, Any] = request["config"] if isinstance(request.get("config"), dict) else {}
    instruction = config.get("system_instruction")
    found = [Message("system", _gemini_text(instruction))] if instruction else []
    for content in request["contents"]:
        if isinstance(content, dict):
            found.extend(message_from_dict(content, tally))
    return found


def adk_outputs(attributes: dict[str, Any], tally: Tally) -> list[Message] | None:
    """Google ADK's ``gcp.vertex.agent.llm_response`` (one Gemini ``content``)."""
    response = decode_json(attributes.get(_ADK_RESPONSE))
    if not isinstance(response, dict) or not isinstance(response.get("content"), dict):
        return None
    return message_from_dict(response["content"], tally, "assistant")


def adk_tools(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    """The function declarations of an ADK request as function definitions."""
    if _ADK_REQUEST not in attributes:
        return []
    request = decode_json(attributes[_ADK_REQUEST])
    config = request.get("config") if isinstance(request, dict) else None
    found = []
    for tool in (config.get("tools") if isinstance(config, dict) else None) or ():
        for declaration in (tool.get("function_declarations") if isinstance(tool, dict) else None) or ():
            if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                function = {"name": declaration["name"], "description": declaration.get("description") or ""}
                parameters = declaration.get("parameters_json_schema") or declaration.get("parameters")
                if isinstance(parameters, dict):
                    function["parameters"] = parameters
                found.append({"type": "function", "function": function})
    return found


def _gemini_text(value: Any) -> str:
    if isinstance(value, dict) and isinstance(value.get("parts"), list):
        return "\n".join(as_text(p.get("text")) for p in value["parts"] if isinstance(p, dict))
    return as_text(value)


def event_messages(events: list[SpanEvent], tally: Tally) -> tuple[list[Message] | None, list[Message] | None]:
    """Inputs and outputs recorded as GenAI events (span events or log records joined to the span)."""
    inputs: list[Message] | None = None
    outputs: list[Message] | None = None
    for event in events:
        name = event.name
        if name in INPUT_EVENTS:
            body = _event_body(event)
            inputs = (inputs or []) + message_from_dict({**body, "role": body.get("role") or INPUT_EVENTS[name]}, tally)
        elif name in OUTPUT_EVENTS:
            outputs = (outputs or []) + _choice(_event_body(event), tally)
        elif name == _DETAILS_EVENT:
            inputs = semconv_inputs(event.attributes, tally)
            outputs = semconv_outputs(event.attributes, tally)
        elif name == "gen_ai.content.prompt":
            inputs = messages_from(event.attributes.get("gen_ai.prompt"), tally)
        elif name == "gen_ai.content.completion":
            outputs = messages_from(event.attributes.get("gen_ai.completion"), tally)
        elif name != "exception":
            tally.add(f"span event {name!r}")
    return inputs, outputs


def _event_body(event: SpanEvent) -> dict[str, Any]:
    """A GenAI event's payload: the log body, or the span event's attributes (``gen_ai.event.content`` JSON)."""
    if isinstance(event.body, dict):
        return event.body
    if isinstance(event.body, str):
        return {"content": event.body}
    packed = decode_json(event.attributes.get("gen_ai.event.content"))
    if isinstance(packed, dict):
        return packed
    body = {k: v for k, v in event.attributes.items() if k in ("content", "role", "tool_calls", "id", "message")}
    for key in ("tool_calls", "message"):
        if isinstance(body.get(key), str):
            body[key] = decode_json(body[key])
    return body


def _choice(body: dict[str, Any], tally: Tally) -> list[Message]:
    message: dict[str, Any] = body["message"] if isinstance(body.get("message"), dict) else {}
    carried: dict[str, Any] = {key: body[key] for key in ("tool_calls", "content") if key in body}
    return message_from_dict({"role": "assistant", **carried, **message}, tally, "assistant")


def usage(attributes: dict[str, Any]) -> Usage | None:
    """The call's token usage and cost, or None when the span records none."""
    prompt = _first_int(attributes, _PROMPT_TOKENS)
    completion = _first_int(attributes, _COMPLETION_TOKENS)
    cost = _number(attributes.get("llm.cost.total", attributes.get("gen_ai.usage.cost")))
    if cost is None and "gen_ai.usage.input_cost" in attributes:
        cost = (_number(attributes["gen_ai.usage.input_cost"]) or 0.0) + (
            _number(attributes.get("gen_ai.usage.output_cost")) or 0.0)
    found = Usage(prompt, completion, _first_int(attributes, _CACHED_TOKENS), _first_int(attributes, _REASONING_TOKENS),
                  cost)
    return None if found == _NO_USAGE else found


def _first_int(attributes: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = attributes.get(key)
        if value is None:
            continue
        if type(value) is int and value >= 0:  # JSON integers only: not bool
            return value
        if isinstance(value, str) and value.isdigit():
            return int(value)
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def tool_run(span: Span) -> ToolRun:
    """The call id, tool name, arguments, result and error a tool span records."""
    attributes = span.attributes
    name = next((attributes[key] for key in _TOOL_NAMES if isinstance(attributes.get(key), str)),
                span.name.removeprefix("execute_tool").strip() or span.name or "tool")
    value = next((attributes[key] for key in _TOOL_CALL_IDS if attributes.get(key) not in (None, "")), None)
    call_id = None if value is None or value == "<not specified>" else str(value)
    return ToolRun(call_id, name, as_arguments(_first_key(attributes, _TOOL_ARGUMENTS)),
                   as_text(_first_key(attributes, _TOOL_RESULTS)), error_text(span))


def _first_key(attributes: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` that is there (None when none is)."""
    return next((attributes[key] for key in keys if key in attributes), None)


def error_text(span: Span) -> str | None:
    """What went wrong when the span failed (status ERROR or ``error.type``): status, exception, type."""
    kind = span.attributes.get("error.type")
    if span.error is None and kind is None:
        return None
    exceptions = [e.attributes for e in span.events if e.name == "exception"]
    if exceptions:
        first = exceptions[0]
        detail = ": ".join(str(first[k]) for k in ("exception.type", "exception.message") if first.get(k))
        if detail:
            return detail
    return span.error or (str(kind) if kind is not None else "") or "error"
