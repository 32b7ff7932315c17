"""A generic OpenAI-compatible LLM judge: settings, client, cache, telemetry and the embedded local judge.

It knows nothing of what is judged: a front door builds a :class:`JudgeRequest` (messages plus the
JSON schema of the answer) and a strict parser, and gets a validated reply or a
:class:`~tracegrade.errors.JudgeError` with a safe ``code``::

    settings = JudgeSettings(base_url=url, model=name, options=JudgeOptions(concurrency_limit=4))
    async with Judge(settings, cache=JudgeCache(default_cache_path())) as judge:
        reply = await judge.ask(request, parse)

:mod:`tracegrade.judge.testing` has an in-process :class:`~tracegrade.judge.testing.FakeJudge` and a
scripted OpenAI-compatible server for protocol tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.judge._batch_api import FINAL_STATUSES as FINAL_STATUSES
    from tracegrade.judge._batch_api import BatchClient as BatchClient
    from tracegrade.judge._batch_api import BatchInfo as BatchInfo
    from tracegrade.judge._batch_api import batch_line as batch_line
    from tracegrade.judge._batch_api import parse_line as parse_line
    from tracegrade.judge._cache import JudgeCache as JudgeCache
    from tracegrade.judge._cache import cache_key as cache_key
    from tracegrade.judge._cache import default_cache_path as default_cache_path
    from tracegrade.judge._client import MAX_RESPONSE_BYTES as MAX_RESPONSE_BYTES
    from tracegrade.judge._costing import PrefixCacheModel as PrefixCacheModel
    from tracegrade.judge._costing import Prices as Prices
    from tracegrade.judge._costing import estimate_tokens as estimate_tokens
    from tracegrade.judge._costing import prompt_bytes as prompt_bytes
    from tracegrade.judge._extract import extract_json_object as extract_json_object
    from tracegrade.judge._extract import protocol_error as protocol_error
    from tracegrade.judge._judge import PROTOCOL_ERROR_CODES as PROTOCOL_ERROR_CODES
    from tracegrade.judge._judge import Judge as Judge
    from tracegrade.judge._judge import JudgeProtocol as JudgeProtocol
    from tracegrade.judge._panel import MemberAnswer as MemberAnswer
    from tracegrade.judge._panel import PanelAggregation as PanelAggregation
    from tracegrade.judge._panel import PanelJudge as PanelJudge
    from tracegrade.judge._panel import PanelMember as PanelMember
    from tracegrade.judge._panel import PanelSpec as PanelSpec
    from tracegrade.judge._panel import read_panel as read_panel
    from tracegrade.judge._request import JudgeRequest as JudgeRequest
    from tracegrade.judge._request import Reply as Reply
    from tracegrade.judge._request import context_overflow as context_overflow
    from tracegrade.judge._request import dumps as dumps
    from tracegrade.judge._settings import DEFAULT_MAX_CONTEXT_BYTES as DEFAULT_MAX_CONTEXT_BYTES
    from tracegrade.judge._settings import LOCAL_MODEL_ALIAS as LOCAL_MODEL_ALIAS
    from tracegrade.judge._settings import LOCAL_PINNED_OPTIONS as LOCAL_PINNED_OPTIONS
    from tracegrade.judge._settings import MIN_CONTEXT_BYTES as MIN_CONTEXT_BYTES
    from tracegrade.judge._settings import JudgeOptions as JudgeOptions
    from tracegrade.judge._settings import JudgeSettings as JudgeSettings
    from tracegrade.judge._settings import ResponseFormat as ResponseFormat
    from tracegrade.judge._settings import chat_completions_url as chat_completions_url
    from tracegrade.judge._settings import endpoint_identity as endpoint_identity
    from tracegrade.judge._settings import redact_url as redact_url
    from tracegrade.judge._telemetry import JudgeStats as JudgeStats
    from tracegrade.judge._telemetry import JudgeTelemetry as JudgeTelemetry
    from tracegrade.judge._telemetry import configure_meter_provider as configure_meter_provider
    from tracegrade.judge.local._runner import LOCAL_JUDGE_NOTICE as LOCAL_JUDGE_NOTICE
    from tracegrade.judge.local._runner import LOCAL_MAX_CONTEXT_BYTES as LOCAL_MAX_CONTEXT_BYTES
    from tracegrade.judge.local._runner import LocalJudge as LocalJudge
    from tracegrade.judge.local._runner import check_local_judge_installed as check_local_judge_installed

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
