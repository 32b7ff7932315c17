"""Chat messages in the shapes tracing conventions record them, read into one normalised form.

Shapes read: the GenAI conventions' ``{role, parts: [{type: text|reasoning|tool_call|tool_call_response|...}]}``,
OpenAI-style ``{role, content, tool_calls: [{id, function: {name, arguments}}], tool_call_id}`` (which the
flattened OpenInference and legacy ``gen_ai.prompt.N`` attributes unflatten to), and Gemini's
``{role, parts: [{text} | {function_call} | {function_response}]}``. A tool result becomes a message of its
own (role ``tool``) whatever the role it arrived in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from tracegrade._io import JsonProblem, loads
from tracegrade.atif.importing._spans import Tally

__all__ = ["Message", "RequestedToolCall", "as_arguments", "as_text", "decode_json", "message_from_dict",
           "messages_from", "unflatten"]

_ROLES = {
    "assistant": "assistant", "model": "assistant", "ai": "assistant", "bot": "assistant",
    "user": "user", "human": "user", "customer": "user",
    "system": "system", "developer": "system", "instruction": "system", "instructions": "system",
    "tool": "tool", "function": "tool", "ipython": "tool",
}
_MEDIA = frozenset({"image", "image_url", "input_image", "audio", "input_audio", "video", "file", "blob", "uri",
                    "document"})


@dataclass(slots=True)
class RequestedToolCall:
    """A tool call a model asked for."""

    call_id: str | None
    name: str
    arguments: dict[str, Any]


@dataclass(slots=True)
class Message:
    """One chat message: ``system``, ``user``, ``assistant`` or ``tool`` (the result of one call)."""

    role: str
    text: str = ""
    reasoning: str = ""
    tool_calls: list[RequestedToolCall] = field(default_factory=list)
    call_id: str | None = None
    """For a tool result: the id of the call it answers."""
    name: str | None = None
    """For a tool result: the tool's name, when recorded."""


def decode_json(value: Any) -> Any:
    """``value`` parsed when it is a JSON string, else unchanged (None when the string is not JSON)."""
    if not isinstance(value, str):
        return value
    try:
        return loads(value)
    except JsonProblem:
        return None


def as_arguments(value: Any) -> dict[str, Any]:
    """Tool-call arguments as an object: JSON text parsed; anything else kept under ``input``."""
    if value is None or value == "":
        return {}
    parsed = decode_json(value) if isinstance(value, str) else value
    if isinstance(parsed, dict):
        return parsed
    return {"input": value if parsed is None else parsed}


def as_text(value: Any) -> str:
    """Message or result content as text (structured values as compact JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return orjson.dumps(value, default=str).decode()


def messages_from(value: Any, tally: Tally) -> list[Message] | None:
    """A list of messages (or its JSON text) read into messages; None when it is not such a list."""
    items = decode_json(value)
    if isinstance(items, dict) and isinstance(items.get("messages"), list):
        items = items["messages"]
    if not isinstance(items, list):
        return None
    found: list[Message] = []
    for item in items:
        if isinstance(item, dict):
            found.extend(message_from_dict(item, tally))
        else:
            tally.add("message that is not an object")
    return found


def message_from_dict(raw: dict[str, Any], tally: Tally, default_role: str = "user") -> list[Message]:
    """One recorded message as normalised messages (its tool results split off as ``tool`` messages)."""
    given = raw.get("role") or default_role
    role = _ROLES.get(given) or _ROLES.get(str(given).lower())
    if role is None:
        tally.add(f"message with role {raw.get('role')!r}")
        return []
    message = Message(role)
    results: list[Message] = []
    texts: list[str] = []
    reasoning: list[str] = []
    content = raw.get("content")
    if content is not None:
        _read_content(content, texts, reasoning, tally)
    for part in raw.get("parts") or ():
        if type(part) is dict and part.get("type") == "text" and type(part.get("content")) is str:
            texts.append(part["content"])  # the usual part, read inline
        else:
            _read_part(part, message, texts, reasoning, results, tally)
    for call in raw.get("tool_calls") or ():
        parsed = _tool_call(call)
        if parsed is not None:
            message.tool_calls.append(parsed)
    message.text = _joined(texts)
    message.reasoning = _joined(reasoning)
    if role == "tool":
        message.call_id = _call_id(raw.get("tool_call_id") or raw.get("id"))
        message.name = raw.get("name") if isinstance(raw.get("name"), str) else None
        return [message, *results] if message.text or message.call_id or not results else results
    keep = bool(message.text or message.reasoning or message.tool_calls or not results)
    return [message, *results] if keep else results


def _joined(texts: list[str]) -> str:
    if not texts:
        return ""
    if len(texts) == 1:
        return texts[0]
    return "\n".join(text for text in texts if text)


def _read_content(content: Any, texts: list[str], reasoning: list[str], tally: Tally) -> None:
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict):
                _content_part(part, texts, reasoning, tally)
    elif isinstance(content, dict):
        texts.append(as_text(content))


def _content_part(part: dict[str, Any], texts: list[str], reasoning: list[str], tally: Tally) -> None:
    kind = str(part.get("type") or "text")
    if kind in ("reasoning", "thinking"):
        reasoning.append(str(part.get("text") or part.get("thinking") or part.get("content") or ""))
    elif kind in _MEDIA:
        texts.append(f"[{kind} omitted]")
        tally.add(f"{kind} content")
    else:
        texts.append(as_text(part.get("text", part.get("content"))))


def _read_part(
    part: Any, message: Message, texts: list[str], reasoning: list[str], results: list[Message], tally: Tally
) -> None:
    """One part of a GenAI-convention (``type``) or Gemini (``text`` / ``function_call``) message."""
    if not isinstance(part, dict):
        return
    kind = part.get("type")
    if kind is None:
        _gemini_part(part, message, texts, reasoning, results, tally)
    elif kind == "text":
        texts.append(as_text(part.get("content")))
    elif kind == "reasoning":
        reasoning.append(as_text(part.get("content")))
    elif kind == "tool_call":
        message.tool_calls.append(RequestedToolCall(_call_id(part.get("id")), str(part.get("name") or ""),
                                           as_arguments(part.get("arguments"))))
    elif kind == "tool_call_response":
        results.append(Message("tool", as_text(part.get("response", part.get("result"))),
                               call_id=_call_id(part.get("id"))))
    elif kind in _MEDIA:
        texts.append(f"[{kind} omitted]")
        tally.add(f"{kind} content")
    else:
        tally.add(f"message part of type {kind!r}")


def _gemini_part(
    part: dict[str, Any], message: Message, texts: list[str], reasoning: list[str], results: list[Message],
    tally: Tally,
) -> None:
    if "text" in part:
        (reasoning if part.get("thought") else texts).append(as_text(part["text"]))
    elif isinstance(part.get("function_call"), dict):
        call = part["function_call"]
        message.tool_calls.append(RequestedToolCall(_call_id(call.get("id")), str(call.get("name") or ""),
                                           as_arguments(call.get("args"))))
    elif isinstance(part.get("function_response"), dict):
        response = part["function_response"]
        results.append(Message("tool", as_text(response.get("response")), call_id=_call_id(response.get("id")),
                               name=response.get("name") if isinstance(response.get("name"), str) else None))
    else:
        tally.add("message part " + ", ".join(sorted(map(str, part))[:3]))


def _tool_call(raw: Any) -> RequestedToolCall | None:
    if not isinstance(raw, dict):
        return None
    function: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else raw
    name = function.get("name")
    if not isinstance(name, str):
        return None
    return RequestedToolCall(_call_id(raw.get("id")), name, as_arguments(function.get("arguments")))


def _call_id(value: Any) -> str | None:
    """A tool call id, or None for a missing one (ADK writes the literal ``<not specified>``)."""
    if value is None or value == "" or value == "<not specified>":
        return None
    return str(value).strip() or None


def unflatten(attributes: dict[str, Any], prefix: str) -> list[Any]:
    """Indexed, dot-flattened attributes (``llm.input_messages.0.message.role``) as a list of nested objects."""
    root: dict[Any, Any] = {}
    start = len(prefix) + 1
    for key, value in attributes.items():
        if not key.startswith(prefix) or key[len(prefix) : start] != ".":
            continue
        node = root
        parts = key[start:].split(".")
        for part in parts[:-1]:
            node = node.setdefault(int(part) if part.isdigit() else part, {})
            if not isinstance(node, dict):
                break
        else:
            last = parts[-1]
            node[int(last) if last.isdigit() else last] = value
    listed = _listify(root)
    return listed if isinstance(listed, list) else []


def _listify(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if node and all(isinstance(key, int) for key in node):
        return [_listify(node[key]) for key in sorted(node)]
    return {key: _listify(value) for key, value in node.items()}
