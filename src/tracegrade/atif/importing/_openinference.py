"""Arize OpenInference attributes: span kinds, flattened ``llm.*_messages``, ``input.value`` / ``output.value``."""

from __future__ import annotations

from typing import Any

from tracegrade.atif.importing._messages import (
    Message,
    as_text,
    decode_json,
    message_from_dict,
    messages_from,
    unflatten,
)
from tracegrade.atif.importing._spans import Tally

__all__ = ["KIND", "READ", "READ_PREFIXES", "io_messages", "messages", "tool_definitions"]

KIND = "openinference.span.kind"

READ = frozenset({
    KIND, "llm.model_name", "llm.provider", "llm.system", "llm.request.model_name", "llm.response.model_name",
    "input.value", "input.mime_type", "output.value", "output.mime_type", "llm.token_count.prompt",
    "llm.token_count.completion", "llm.token_count.prompt_details.cache_read",
    "llm.token_count.completion_details.reasoning", "llm.cost.total", "tool.name", "tool.id", "tool.description",
    "tool_call.id", "agent.name", "session.id", "llm.finish_reason",
})
"""Attribute keys the importer reads (the indexed ``llm.input_messages.*`` and friends come on top)."""

READ_PREFIXES = ("llm.input_messages.", "llm.output_messages.", "llm.tools.")


def messages(attributes: dict[str, Any], key: str, tally: Tally) -> list[Message] | None:
    """``llm.input_messages`` or ``llm.output_messages`` (flattened and indexed), or None when absent."""
    first = f"{key}.0.message."
    if first + "role" not in attributes and first + "content" not in attributes:
        return None
    items = unflatten(attributes, key)
    if not items:
        return None
    found: list[Message] = []
    for item in items:
        raw = item.get("message") if isinstance(item, dict) else None
        if isinstance(raw, dict):
            found.extend(_message(raw, tally))
    return found


def _message(raw: dict[str, Any], tally: Tally) -> list[Message]:
    contents = [c.get("message_content") for c in raw.get("contents") or () if isinstance(c, dict)]
    parts = [{"type": c.get("type") or "text", "text": c.get("text")} for c in contents if isinstance(c, dict)]
    calls = [c.get("tool_call") for c in raw.get("tool_calls") or () if isinstance(c, dict)]
    shaped = {
        "role": raw.get("role"),
        "content": parts or raw.get("content"),
        "tool_calls": [{"id": c.get("id"), "function": c.get("function") or {}} for c in calls if isinstance(c, dict)],
        "tool_call_id": raw.get("tool_call_id"),
        "name": raw.get("name"),
    }
    return message_from_dict(shaped, tally)


def io_messages(attributes: dict[str, Any], side: str, tally: Tally) -> list[Message] | None:
    """Messages from ``input.value`` / ``output.value`` when no flattened messages were recorded."""
    value = attributes.get(f"{side}.value")
    if value is None:
        return None
    parsed = decode_json(value) if attributes.get(f"{side}.mime_type") == "application/json" else None
    if parsed is None:
        return [Message("user" if side == "input" else "assistant", as_text(value))]
    if side == "output":
        return _output(parsed, tally)
    found = messages_from(parsed, tally)
    return found if found is not None else [Message("user", as_text(parsed))]


def _output(parsed: Any, tally: Tally) -> list[Message]:
    """An output payload: OpenAI ``choices``, ``{text}``, a message, a message list, or any JSON as text."""
    if isinstance(parsed, dict):
        choices = parsed.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            return messages_from([choices[0].get("message") or {"content": choices[0].get("text")}], tally) or []
        if "role" in parsed:
            return messages_from([parsed], tally) or []
        if isinstance(parsed.get("text"), str):
            return [Message("assistant", parsed["text"])]
    if isinstance(parsed, list):
        listed = messages_from(parsed, tally)
        if listed:
            return listed
    return [Message("assistant", as_text(parsed))]


def tool_definitions(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    """``llm.tools.N.tool.json_schema`` as OpenAI-style function definitions."""
    if "llm.tools.0.tool.json_schema" not in attributes:
        return []
    found = []
    for item in unflatten(attributes, "llm.tools"):
        schema = decode_json(item.get("tool", {}).get("json_schema")) if isinstance(item, dict) else None
        if isinstance(schema, dict):
            found.append(schema if "function" in schema else {"type": "function", "function": schema})
    return found
