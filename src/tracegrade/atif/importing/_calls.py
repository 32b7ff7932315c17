"""A model call, a tool run and an agent, read from their spans whichever convention recorded them.

One logical model call may be several nested spans (Google ADK's ``call_llm`` around ``generate_content``
around OpenLLMetry's ``openai.chat``, all with the same tokens): they are read as one call, its usage counted
once. Each part of the call comes from the first convention that recorded it, tried in this order: the GenAI
attributes, OpenInference's flattened messages, the older indexed ``gen_ai.prompt.N`` attributes, ADK's
request and response, the GenAI events, and last OpenInference's raw ``input.value`` / ``output.value``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tracegrade.atif.importing import _genai, _openinference
from tracegrade.atif.importing._genai import Usage
from tracegrade.atif.importing._messages import Message, decode_json, messages_from
from tracegrade.atif.importing._spans import Span, Tally

__all__ = ["AgentInfo", "InputMemo", "ModelCall", "agent_info", "count_unread", "read_model_call"]

_READ = _genai.READ | _openinference.READ
_READ_PREFIXES = _genai.READ_PREFIXES + _openinference.READ_PREFIXES

Reader = Callable[[dict[str, Any], Tally], list[Message] | None]
_INPUTS: tuple[Reader, ...] = (
    _genai.semconv_inputs,
    lambda a, t: _openinference.messages(a, "llm.input_messages", t),
    _genai.legacy_inputs,
    _genai.adk_inputs,
)
_OUTPUTS: tuple[Reader, ...] = (
    _genai.semconv_outputs,
    lambda a, t: _openinference.messages(a, "llm.output_messages", t),
    _genai.legacy_outputs,
    _genai.adk_outputs,
)
_MODEL_KEYS = ("gen_ai.response.model", "llm.response.model_name", "gen_ai.request.model", "llm.model_name")


@dataclass(slots=True)
class ModelCall:
    """One logical model call."""

    spans: list[Span]
    """The call's spans, outermost first; the last (innermost) is the operation the verdict is parented to."""
    inputs: list[Message]
    outputs: list[Message]
    usage: Usage | None
    model: str | None
    response_id: str | None
    error: str | None
    tools: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class AgentInfo:
    """What an agent span says about its agent."""

    name: str
    version: str
    description: str | None
    task: str | None
    """The agent's input when its span records one (a root attribute for the trajectory's task)."""
    output: str | None


@dataclass(slots=True)
class InputMemo:
    """What the previous calls of one trajectory sent, so that each call reads only what is new.

    Of ``gen_ai.input.messages``: the messages added at the end of the previous input, less the previous answer
    and tool results already mapped; of tool definitions, each text once. Only exact repeats are skipped.
    """

    answered: set[str] = field(default_factory=set)
    """Call ids whose results are mapped (shared with the trajectory's steps)."""
    text: str | None = None
    output: str | None = None
    instructions: Any = None
    tools: set[str] = field(default_factory=set)

    def tail(self, text: str) -> str:
        """The JSON list of the messages ``text`` adds to the previous input (all of ``text`` if it adds none)."""
        previous, self.text = self.text, text
        if not previous or len(previous) < 3 or len(text) <= len(previous) or not previous.endswith("]"):
            return text
        cut = len(previous) - 1
        if text[cut] != "," or not text.startswith(previous[:cut]):
            return text
        tail = "[" + text[cut + 1 :]
        answer = self.output[1:-1] if self.output and self.output.startswith("[") else None
        if answer and tail.startswith(answer, 1) and tail[len(answer) + 1] in ",]":
            return "[" + tail[len(answer) + 2 :] if tail[len(answer) + 1] == "," else "[]"
        return tail

    def mapped(self, raw: dict[str, Any]) -> bool:
        """Whether ``raw`` is a tool message whose every result is already mapped."""
        if raw.get("role") != "tool":
            return False
        ids = [part.get("id") for part in raw.get("parts") or () if isinstance(part, dict)]
        if not ids:
            ids = [raw.get("tool_call_id") or raw.get("id")]
        return all(isinstance(i, str) and i in self.answered for i in ids)


def read_model_call(spans: list[Span], tally: Tally, memo: InputMemo | None = None) -> ModelCall:
    """Read the nested spans of one model call (outermost first) into one call.

    With ``memo``, messages the previous call of the same trajectory already sent are not read again.
    """
    inputs = _semconv_tail(spans, memo, tally) if memo is not None else None
    if inputs is None:
        inputs = _first(spans, _INPUTS, tally)
    outputs = _first(spans, _OUTPUTS, tally)
    if memo is not None:
        memo.output = _text_attribute(spans, "gen_ai.output.messages")
    if inputs is None or outputs is None:
        events = [event for span in spans for event in span.events]
        event_inputs, event_outputs = _genai.event_messages(events, tally)
        inputs = inputs if inputs is not None else event_inputs
        outputs = outputs if outputs is not None else event_outputs
    for span in spans:
        if inputs is None:
            inputs = _openinference.io_messages(span.attributes, "input", tally)
        if outputs is None:
            outputs = _openinference.io_messages(span.attributes, "output", tally)
    errors = [text for text in map(_genai.error_text, spans) if text]
    return ModelCall(
        spans=spans,
        inputs=inputs or [],
        outputs=outputs or [],
        usage=_usage(spans),
        model=_attribute(spans, _MODEL_KEYS),
        response_id=_attribute(spans, ("gen_ai.response.id",)),
        error=errors[0] if errors else None,
        tools=_tool_definitions(spans, memo),
    )


def _semconv_tail(spans: list[Span], memo: InputMemo, tally: Tally) -> list[Message] | None:
    for span in spans:
        attributes = span.attributes
        raw = attributes.get("gen_ai.input.messages")
        if isinstance(raw, str):
            items = decode_json(memo.tail(raw))
            if not isinstance(items, list):
                return None  # not a message list: the other readers have a go, and count it
            found = messages_from([item for item in items if not (isinstance(item, dict) and item.get("role") == "tool"
                                                                  and memo.mapped(item))], tally) or []
            instructions = attributes.get("gen_ai.system_instructions")
            if instructions is not None and instructions != memo.instructions:
                memo.instructions = instructions
                text = _genai.instructions_text(instructions)
                if text:
                    found.insert(0, Message("system", text))
            return found
    return None


def _text_attribute(spans: list[Span], key: str) -> str | None:
    for span in spans:
        value = span.attributes.get(key)
        if isinstance(value, str):
            return value
    return None


def _usage(spans: list[Span]) -> Usage | None:
    """The call's usage: each count from the outermost span that records it; a count of 0 is a count.

    A wrapper span may record the input and output tokens and the client span the cached and reasoning ones.
    """
    found = [usage for usage in map(_genai.usage, (span.attributes for span in spans)) if usage is not None]
    if len(found) < 2:
        return found[0] if found else None  # the usual case: one span records the usage
    return Usage(*(next((getattr(u, name) for u in found if getattr(u, name) is not None), None)
                   for name in ("prompt", "completion", "cached", "reasoning", "cost")))


def _first(spans: list[Span], readers: tuple[Reader, ...], tally: Tally) -> list[Message] | None:
    for reader in readers:
        for span in spans:
            found = reader(span.attributes, tally)
            if found is not None:
                return found
    return None


def _attribute(spans: list[Span], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        for span in reversed(spans):
            value = span.attributes.get(key)
            if isinstance(value, str) and value:
                return value
    return None


def _tool_definitions(spans: list[Span], memo: InputMemo | None) -> list[dict[str, Any]]:
    for span in spans:
        attributes = span.attributes
        raw = attributes.get("gen_ai.tool.definitions")
        if isinstance(raw, str) and memo is not None:
            if raw in memo.tools:
                return []  # the same definitions as an earlier call's: already taken
            memo.tools.add(raw)
        declared = decode_json(raw) if raw is not None else None
        if isinstance(declared, list):
            return [_as_function(d) for d in declared if isinstance(d, dict)]
        found = (_genai.legacy_tools(attributes) or _openinference.tool_definitions(attributes)
                 or _genai.adk_tools(attributes))
        if found:
            return found
    return []


def _as_function(definition: dict[str, Any]) -> dict[str, Any]:
    """A GenAI ``{type, name, description, parameters}`` definition in OpenAI's ``{type, function}`` form."""
    if "function" in definition:
        return definition
    function = {k: v for k, v in definition.items() if k in ("name", "description", "parameters")}
    return {"type": definition.get("type") or "function", "function": function}


def agent_info(span: Span, tally: Tally) -> AgentInfo:
    """The name, version, description, input and output an agent span records."""
    attributes = span.attributes
    name = next(
        (attributes[k] for k in ("gen_ai.agent.name", "agent.name", "gen_ai.workflow.name")
         if isinstance(attributes.get(k), str) and attributes[k]),
        span.name.removeprefix("invoke_agent").removeprefix("invoke_workflow").strip() or span.name or "agent",
    )
    version = attributes.get("gen_ai.agent.version")
    description = attributes.get("gen_ai.agent.description")
    return AgentInfo(
        name=str(name),
        version=str(version) if version else "unknown",
        description=description if isinstance(description, str) and description else None,
        task=_agent_text(attributes, "input", tally),
        output=_agent_text(attributes, "output", tally),
    )


def _agent_text(attributes: dict[str, Any], side: str, tally: Tally) -> str | None:
    key = "gen_ai.input.messages" if side == "input" else "gen_ai.output.messages"
    found = messages_from(attributes[key], tally) if key in attributes else None
    if found is None:
        found = _openinference.io_messages(attributes, side, tally)
    wanted = "user" if side == "input" else "assistant"
    texts = [m.text for m in found or () if m.role == wanted and m.text]
    if not texts:
        return None
    return texts[0] if side == "input" else texts[-1]


def count_unread(span: Span, tally: Tally) -> None:
    """Count the attributes of a mapped span that no part of the mapping reads."""
    keys = tuple(span.attributes)
    unread = _UNREAD.get(keys)
    if unread is None:
        if len(_UNREAD) > 4096:
            _UNREAD.clear()
        unread = _UNREAD[keys] = tuple(
            (f"token count with no ATIF field: {key}" if key.startswith(_genai.USAGE_PREFIXES) else f"attribute {key}")
            for key in keys if key not in _READ and not key.startswith(_READ_PREFIXES))
    for reason in unread:
        tally.add(reason)


_UNREAD: dict[tuple[str, ...], tuple[str, ...]] = {}
"""The unread attribute keys of each key set seen (spans of one instrumentation share a few)."""

