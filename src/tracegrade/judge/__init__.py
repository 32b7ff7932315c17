"""A generic OpenAI-compatible LLM judge: settings, client, cache, telemetry and the embedded local judge.

It knows nothing of what is judged: a front door builds a :class:`JudgeRequest` (messages plus the
JSON schema of the answer) and a strict parser, and gets a validated reply or a
:class:`~tracegrade.errors.JudgeError` with a safe ``code``::

    async with Judge(settings, cache=JudgeCache(default_cache_path())) as judge:
        reply = await judge.ask(request, parse)

:mod:`tracegrade.judge.testing` has an in-process :class:`~tracegrade.judge.testing.FakeJudge` and a
scripted OpenAI-compatible server for protocol tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.judge._cache import JudgeCache, cache_key, default_cache_path
    from tracegrade.judge._client import MAX_RESPONSE_BYTES
    from tracegrade.judge._extract import extract_json_object, protocol_error
    from tracegrade.judge._judge import PROTOCOL_ERROR_CODES, Judge, JudgeProtocol
    from tracegrade.judge._local import (
        LOCAL_JUDGE_NOTICE,
        LOCAL_MAX_CONTEXT_BYTES,
        LocalJudge,
        check_local_judge_installed,
    )
    from tracegrade.judge._request import JudgeRequest, Reply, context_overflow, dumps
    from tracegrade.judge._settings import (
        DEFAULT_MAX_CONTEXT_BYTES,
        MIN_CONTEXT_BYTES,
        JudgeSettings,
        ResponseFormat,
        chat_completions_url,
    )
    from tracegrade.judge._telemetry import JudgeStats, JudgeTelemetry, configure_meter_provider

_LAZY: dict[str, tuple[str, ...]] = {
    "_cache": ("JudgeCache", "cache_key", "default_cache_path"),
    "_client": ("MAX_RESPONSE_BYTES",),
    "_extract": ("extract_json_object", "protocol_error"),
    "_judge": ("PROTOCOL_ERROR_CODES", "Judge", "JudgeProtocol"),
    "_local": ("LOCAL_JUDGE_NOTICE", "LOCAL_MAX_CONTEXT_BYTES", "LocalJudge", "check_local_judge_installed"),
    "_request": ("JudgeRequest", "Reply", "context_overflow", "dumps"),
    "_settings": (
        "DEFAULT_MAX_CONTEXT_BYTES",
        "MIN_CONTEXT_BYTES",
        "JudgeSettings",
        "ResponseFormat",
        "chat_completions_url",
    ),
    "_telemetry": ("JudgeStats", "JudgeTelemetry", "configure_meter_provider"),
}
"""Private module of each public name; a name is imported when first used (fast start-up)."""

__all__ = [
    "DEFAULT_MAX_CONTEXT_BYTES",
    "LOCAL_JUDGE_NOTICE",
    "LOCAL_MAX_CONTEXT_BYTES",
    "MAX_RESPONSE_BYTES",
    "MIN_CONTEXT_BYTES",
    "PROTOCOL_ERROR_CODES",
    "Judge",
    "JudgeCache",
    "JudgeProtocol",
    "JudgeRequest",
    "JudgeSettings",
    "JudgeStats",
    "JudgeTelemetry",
    "LocalJudge",
    "Reply",
    "ResponseFormat",
    "cache_key",
    "chat_completions_url",
    "check_local_judge_installed",
    "configure_meter_provider",
    "context_overflow",
    "default_cache_path",
    "dumps",
    "extract_json_object",
    "protocol_error",
]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
