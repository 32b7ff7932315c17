"""One question for the judge, and the shape of a validated answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from tracegrade.errors import JudgeError

__all__ = ["JudgeRequest", "Reply", "context_overflow", "dumps"]


def dumps(value: Any) -> bytes:
    """Deterministic JSON bytes (sorted keys, no whitespace)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def context_overflow(what: str, size: int, limit: int) -> JudgeError:
    """The error for evidence or a request that does not fit its byte budget."""
    return JudgeError(f"{what} needs {size} bytes but only {limit} are available "
                      "(raise max_context_bytes)", code="context_overflow")


class Reply(Protocol):
    """A validated judge answer that can be stored as JSON and parsed back to itself."""

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON form (what the cache stores)."""
        ...


@dataclass(frozen=True)
class JudgeRequest:
    """One judge question: chat messages plus the JSON schema the answer must follow."""

    purpose: str
    """What is asked (``score``, ``derive``, ``categorize``, ``check``...); recorded with the answer."""
    messages: tuple[dict[str, str], ...]
    response_schema: dict[str, Any]
    template_hash: str
    """SHA-256 of the instruction and template that produced the messages."""
    prompt_version: str = ""
    """Name of the prompt generation; part of the cache key."""
    seed: int | None = None
    """Sampling seed for this request instead of the settings' seed (repeated judgements); when set it
    replaces the seed in the cache key's provenance, so each seed is cached separately."""
    top_logprobs: int | None = None
    """Ask for the answer's token log-probabilities with this many alternatives per token (the
    local judge's verdicts); the validator then receives ``{"answer": object, "logprobs": [...]}``."""
    canonical: bytes = field(init=False, repr=False)
    """Deterministic bytes of messages and schema (and ``top_logprobs`` when set): what the cache key
    and size limit use."""

    def __post_init__(self) -> None:
        document: dict[str, Any] = {"messages": list(self.messages), "response_schema": self.response_schema}
        if self.top_logprobs is not None:
            document["top_logprobs"] = self.top_logprobs
        object.__setattr__(self, "canonical", dumps(document))
