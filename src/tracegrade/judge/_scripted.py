"""What the scripted judge server receives and answers: request and reply records, and the rule type."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from tracegrade._io import JsonProblem, loads

__all__ = ["REASONS", "ReceivedRequest", "Rule", "ScriptedReply"]

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
"""Reason phrases of the statuses the server sends."""


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    """One request as the server received it."""

    index: int
    """0-based arrival order."""
    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON (None when empty or not JSON)."""
        try:
            return loads(self.body) if self.body else None
        except JsonProblem:
            return None


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """How the server answers one request."""

    status: int = 200
    content: str | None = None
    """Assistant message text, wrapped in a chat-completions body (ignored when ``body`` is set)."""
    body: bytes | None = None
    """Raw response body."""
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    """Seconds to wait before answering (added to the server's latency)."""
    drop: bool = False
    """Close the connection instead of answering."""
    truncate: bool = False
    """Send the headers and only half of the body (``Content-Length`` promises all of it), then close."""
    drip: float = 0.0
    """Seconds between the 16-byte pieces the answer is sent in (0: all at once)."""
    usage: tuple[int, int] | None = (100, 20)
    """Prompt and completion tokens reported in ``usage``."""
    cached_tokens: int | None = None
    """Prompt tokens reported as served from the prompt cache (``usage.prompt_tokens_details.cached_tokens``)."""

    @classmethod
    def answer(cls, obj: Any, **kwargs: Any) -> ScriptedReply:
        """Content that is exactly the JSON of ``obj``."""
        return cls(content=orjson.dumps(obj).decode(), **kwargs)

    @classmethod
    def fenced(cls, obj: Any) -> ScriptedReply:
        """The JSON of ``obj`` inside a Markdown ```json fence with prose around it."""
        text = orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode()
        return cls(content=f"Here is my assessment:\n```json\n{text}\n```\nHope this helps.")

    @classmethod
    def prose(cls, obj: Any) -> ScriptedReply:
        """The JSON of ``obj`` embedded in prose that itself contains braces."""
        text = orjson.dumps(obj).decode()
        return cls(content=f"Thinking about {{the step}} carefully... verdict: {text} -- done {{end}}")

    @classmethod
    def text(cls, content: str) -> ScriptedReply:
        """Arbitrary assistant text (e.g. garbage)."""
        return cls(content=content)

    @classmethod
    def huge(cls, size: int = 200_000) -> ScriptedReply:
        """A body of roughly ``size`` bytes."""
        return cls(content="x" * size)

    @classmethod
    def error(cls, status: int, *, retry_after: float | str | None = None, body: bytes = b"") -> ScriptedReply:
        """An HTTP error status, optionally with ``Retry-After``."""
        headers = (("retry-after", str(retry_after)),) if retry_after is not None else ()
        return cls(status=status, body=body or orjson.dumps({"error": {"message": REASONS.get(status, "")}}),
                   headers=headers)

    @classmethod
    def stall(cls, seconds: float) -> ScriptedReply:
        """Wait ``seconds`` before a normal answer (to outlast a client timeout)."""
        return cls(delay=seconds, content='{"stalled": true}')

    @classmethod
    def dropped(cls) -> ScriptedReply:
        """Close the connection without answering."""
        return cls(drop=True)


Rule = Callable[[ReceivedRequest], ScriptedReply]
"""Chooses the reply for a request."""
