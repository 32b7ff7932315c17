"""Find the judge's verdict in a chat-completions answer, without repairing anything.

A judge may quote the evidence before it answers, and the evidence can hold objects shaped like
a verdict (a step whose text is ``{"scores": ...}``). So the verdict is not simply the first
object: every top-level JSON object in the message is a candidate, each is validated against
the expected shape, the last one that validates is the verdict, and two different candidates that
both validate make the answer ambiguous (a protocol error, never a guess). Duplicate keys, which
JSON parsers resolve silently and differently, are a protocol error too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tracegrade._io import JsonProblem, loads, objects_in_text
from tracegrade.errors import JudgeError

__all__ = [
    "AMBIGUOUS_ANSWER",
    "DUPLICATE_KEY",
    "ChatReply",
    "cached_tokens",
    "extract_json_object",
    "extract_verdict",
    "json_objects",
    "parse_chat_body",
]

T = TypeVar("T")

MAX_CANDIDATES = 4096
"""Most ``{`` positions tried before giving up (bounds the work on hostile text)."""
AMBIGUOUS_ANSWER = "ambiguous_answer"
"""Protocol error code: two different objects in one answer both validate as the verdict."""
DUPLICATE_KEY = "duplicate_key"
"""Protocol error code: an object in the answer repeats a key."""
_VALIDATION_CODES = frozenset({"invalid_json", "schema_violation", AMBIGUOUS_ANSWER, DUPLICATE_KEY})


@dataclass(frozen=True, slots=True)
class ChatReply:
    """The assistant message text and the token usage of one chat-completions answer."""

    content: str
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int | None = None
    """Input tokens the provider served from its prompt cache (``usage.prompt_tokens_details.cached_tokens``,
    or ``cache_read_input_tokens`` through an Anthropic-compatible gateway); None when it did not say."""
    logprobs: tuple[dict[str, Any], ...] | None = None
    """``choices[0].logprobs.content`` when the server sent it: per answer token ``token``,
    ``logprob`` and ``top_logprobs`` (a list of ``{"token", "logprob"}``), malformed entries dropped."""


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
        document = loads(body)
    except JsonProblem:
        raise protocol_error("invalid_json", "the HTTP body is not strict JSON") from None
    content = _content(document)
    if content is None:
        raise protocol_error("schema_violation", "no choices[0].message.content string")
    input_tokens, output_tokens = _usage(document)
    return ChatReply(content, input_tokens, output_tokens, logprobs=_logprobs(document),
                     cached_input_tokens=cached_tokens(document))


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in ``text``, in order: bare, inside fenced blocks, or amid prose.

    Text that breaks the JSON policy is not an object (:func:`tracegrade._io.objects_in_text`).

    Raises:
        JudgeError: ``duplicate_key`` when an object repeats a key.
    """
    try:
        return objects_in_text(text, MAX_CANDIDATES)
    except JsonProblem:
        raise protocol_error(DUPLICATE_KEY, "an object in the judge's message repeats a key") from None


def extract_verdict(text: str, validate: Callable[[dict[str, Any]], T],
                    same: Callable[[T, T], bool] | None = None) -> T:
    """The one verdict in ``text``: the last object that ``validate`` accepts.

    Args:
        text: The judge's message.
        validate: Turns an object into a verdict; raises ``JudgeError`` with a protocol code when
            the object does not have the expected shape.
        same: Whether two verdicts are equal (default ``==``); a different earlier verdict makes the
            answer ambiguous.

    Raises:
        JudgeError: ``invalid_json`` when the text holds no object, ``duplicate_key``, the last
            candidate's validation error when none validates, or ``ambiguous_answer``.
    """
    candidates = json_objects(text)
    if not candidates:
        raise protocol_error("invalid_json", "no JSON object found in the judge's message")
    equal = same or (lambda a, b: a == b)
    chosen: list[T] = []
    last_error: JudgeError | None = None  # the error of the last candidate: the likeliest verdict
    for candidate in reversed(candidates):
        try:
            verdict = validate(candidate)
        except JudgeError as error:
            if error.code not in _VALIDATION_CODES:
                raise
            last_error = last_error or error
            continue
        if chosen and not equal(chosen[0], verdict):
            raise protocol_error(AMBIGUOUS_ANSWER, "two different objects in the message validate as the verdict")
        chosen = chosen or [verdict]
    if chosen:
        return chosen[0]
    raise last_error or protocol_error("schema_violation", "no object in the message has the expected shape")


def extract_json_object(text: str) -> dict[str, Any]:
    """The one JSON object in ``text`` (any identical repeats allowed).

    Raises:
        JudgeError: ``invalid_json`` when there is none, ``ambiguous_answer`` when there are
            different ones, ``duplicate_key`` when one repeats a key.
    """
    return extract_verdict(text, lambda candidate: candidate)


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


def _logprobs(document: dict[str, Any]) -> tuple[dict[str, Any], ...] | None:
    """The answer's token log-probabilities in OpenAI's chat form, or None when absent or malformed."""
    logprobs = document["choices"][0].get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list):
        return None
    tokens = [_token(entry) for entry in content]
    return None if any(t is None for t in tokens) else tuple(t for t in tokens if t is not None)


def _token(entry: Any) -> dict[str, Any] | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("token"), str) or not _finite(entry.get("logprob")):
        return None
    alternatives = entry.get("top_logprobs")
    if not isinstance(alternatives, list):
        return None
    top = [{"token": a["token"], "logprob": float(a["logprob"])} for a in alternatives
           if isinstance(a, dict) and isinstance(a.get("token"), str) and _finite(a.get("logprob"))]
    return {"token": entry["token"], "logprob": float(entry["logprob"]), "top_logprobs": top}


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _usage(document: dict[str, Any]) -> tuple[int, int]:
    usage = document.get("usage")
    if not isinstance(usage, dict):
        return 0, 0
    return _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))


def cached_tokens(document: dict[str, Any]) -> int | None:
    """The cached input tokens a chat-completions body reports, or None when it reports none."""
    usage = document.get("usage")
    if not isinstance(usage, dict):
        return None
    details = usage.get("prompt_tokens_details")
    for value in (details.get("cached_tokens") if isinstance(details, dict) else None,
                  usage.get("cache_read_input_tokens")):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
