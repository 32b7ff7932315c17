"""The LLM judge: an OpenAI-compatible client, prompts, answer validation, context budget, cache.

Everything a scorer needs to put one question to a judge and get a validated answer or a
:class:`~tracegrade.errors.JudgeError` with a safe ``code``::

    async with Judge(settings, cache=JudgeCache(default_cache_path())) as judge:
        evidence = build_evidence(task, tools, history, step, None, settings.max_context_bytes)
        verdict = await score_step(judge, rubric, evidence)

The scripted test server lives in :mod:`tracegrade.judge.testing`.
"""

from tracegrade.judge._cache import JudgeCache, cache_key, default_cache_path
from tracegrade.judge._client import MAX_RESPONSE_BYTES
from tracegrade.judge._context import Evidence, build_evidence, project_step
from tracegrade.judge._extract import extract_json_object
from tracegrade.judge._judge import PROTOCOL_ERROR_CODES, Judge
from tracegrade.judge._local import (
    LOCAL_JUDGE_NOTICE,
    LOCAL_MAX_CONTEXT_BYTES,
    LocalJudge,
    check_local_judge_installed,
)
from tracegrade.judge._prompts import (
    CATEGORIES,
    SYSTEM_INSTRUCTION,
    JudgeRequest,
    categorize_request,
    derive_request,
    score_request,
    template_hash,
)
from tracegrade.judge._protocol import (
    MAX_RATIONALE_CHARS,
    Categorization,
    DerivedCriteria,
    ScoreReply,
    parse_categorization,
    parse_criteria,
    parse_scores,
)
from tracegrade.judge._questions import StepJudgement, categorize_step, derive_criteria, score_step
from tracegrade.judge._settings import (
    DEFAULT_MAX_CONTEXT_BYTES,
    MIN_CONTEXT_BYTES,
    PROMPT_VERSION,
    JudgeSettings,
    ResponseFormat,
    chat_completions_url,
)
from tracegrade.judge._telemetry import JudgeStats, JudgeTelemetry, configure_meter_provider

__all__ = [
    "CATEGORIES",
    "DEFAULT_MAX_CONTEXT_BYTES",
    "LOCAL_JUDGE_NOTICE",
    "LOCAL_MAX_CONTEXT_BYTES",
    "MAX_RATIONALE_CHARS",
    "MAX_RESPONSE_BYTES",
    "MIN_CONTEXT_BYTES",
    "PROMPT_VERSION",
    "PROTOCOL_ERROR_CODES",
    "SYSTEM_INSTRUCTION",
    "Categorization",
    "DerivedCriteria",
    "Evidence",
    "Judge",
    "JudgeCache",
    "JudgeRequest",
    "JudgeSettings",
    "JudgeStats",
    "JudgeTelemetry",
    "LocalJudge",
    "ResponseFormat",
    "ScoreReply",
    "StepJudgement",
    "build_evidence",
    "cache_key",
    "categorize_request",
    "categorize_step",
    "chat_completions_url",
    "check_local_judge_installed",
    "configure_meter_provider",
    "default_cache_path",
    "derive_criteria",
    "derive_request",
    "extract_json_object",
    "parse_categorization",
    "parse_criteria",
    "parse_scores",
    "project_step",
    "score_request",
    "score_step",
    "template_hash",
]
