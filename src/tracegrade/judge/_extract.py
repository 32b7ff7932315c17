"""Find the judge's JSON object in a chat-completions answer, without repairing anything."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from tracegrade.errors import JudgeError

__all__ = ["ChatReply", "extract_json_object", "parse_chat_body"]

MAX_CANDIDATES = 4096
"""Most ``{`` positions tried before giving up (bounds the work on hostile text)."""

_DECODER = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class ChatReply:
    """The assistant message text and the token usage of one chat-completions answer."""

    content: str
    input_tokens: int = 0
    output_tokens: int = 0


def protocol_error(code: str, what: str) -> JudgeError:
    """A judge protocol error carrying only a safe code and a fixed description."""
    return JudgeError(f"judge answer unusable ({code}): {what}", code=code)


def parse_chat_body(body: bytes) -> ChatReply:
    """Read ``choices[0].message.content`` and ``usage`` from an OpenAI chat-completions body.

    Raises:
        JudgeError: ``invalid_json`` when the body is not JSON, ``schema_violation`` when it
            has no string content.
    """
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise protocol_error("invalid_json", "the HTTP body is not JSON") from None
    content = _content(document)
    if content is None:
        raise protocol_error("schema_violation", "no choices[0].message.content string")
    input_tokens, output_tokens = _usage(document)
    return ChatReply(content, input_tokens, output_tokens)


def extract_json_object(text: str) -> dict[str, Any]:
    """The first complete JSON object in ``text``: bare, inside a fenced block, or amid prose.

    Every ``{`` is tried in order with a real JSON decoder, so braces inside strings cannot
    mislead it, and nothing is repaired.

    Raises:
        JudgeError: ``invalid_json`` when no JSON object can be decoded.
    """
    try:
        whole = orjson.loads(text)  # fast path: a bare object (NaN, huge ints... take the slow path)
    except orjson.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        return whole
    start = text.find("{")
    tried = 0
    while start != -1 and tried < MAX_CANDIDATES:
        found = _decode_at(text, start)
        if found is not None:
            return found
        tried += 1
        start = text.find("{", start + 1)
    raise protocol_error("invalid_json", "no JSON object found in the judge's message")


def _decode_at(text: str, start: int) -> dict[str, Any] | None:
    try:
        value, _end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _content(document: Any) -> str | None:
    if not isinstance(document, dict):
        return None
    choices = document.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    return content if isinstance(content, str) else None


def _usage(document: dict[str, Any]) -> tuple[int, int]:
    usage = document.get("usage")
    if not isinstance(usage, dict):
        return 0, 0
    return _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
