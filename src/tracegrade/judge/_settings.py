"""Judge settings: the endpoint and model, and the judge's tunable options (no secrets)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from tracegrade.errors import ConfigError

__all__ = [
    "DEFAULT_MAX_CONTEXT_BYTES",
    "LOCAL_MODEL_ALIAS",
    "LOCAL_PINNED_OPTIONS",
    "MIN_CONTEXT_BYTES",
    "Endpoint",
    "JudgeOptions",
    "JudgeSettings",
    "ResponseFormat",
    "chat_completions_url",
    "endpoint_identity",
    "redact_url",
    "resolve_endpoint",
]

DEFAULT_MAX_CONTEXT_BYTES = 65536
LOCAL_MODEL_ALIAS = "gemma-3-270m-q4_k_m-plain"
"""The local judge's served model name, also in every cache key: it names the prompt format, so answers cached
from the earlier chat-format server are not reused."""
LOCAL_PINNED_OPTIONS: dict[str, Any] = {"concurrency_limit": 1, "judge_timeout_seconds": 300.0,
                                        "judge_temperature": 0.0, "judge_max_tokens": 512, "judge_seed": 0}
"""Options the local judge fixes whatever it is given (one call at a time on the CPU, a long deadline, short
greedy answers); here, away from the judge's server code, so that recording them loads nothing."""
MIN_CONTEXT_BYTES = 1024
DEFAULT_PROXY_URL = "http://localhost:8080"
K8S_AUTHORIZATION = "Bearer api-key:ref"
"""Literal credential reference the EvalHub sidecar replaces with the real key."""
_INT64 = 2**63 - 1
"""Largest integer an option takes: what JSON tools, telemetry and Parquet carry (int64)."""
_DAY = 86_400.0
"""Longest judge deadline or retry delay accepted, in seconds."""


class ResponseFormat(StrEnum):
    """How the judge is asked for structured output."""

    AUTO = "auto"
    """Send the OpenAI JSON schema form; if the server refuses it, stop sending it (once, remembered)."""
    JSON_SCHEMA = "json_schema"
    """Always send the OpenAI form ``response_format: {type: json_schema, json_schema: {schema}}``."""
    JSON_OBJECT = "json_object"
    """Always send ``response_format: {type: json_object, schema}`` (llama.cpp's Python server)."""
    NONE = "none"
    """Never send ``response_format``; rely on the prompt."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where judge requests go and the Authorization header value (kept out of ``repr``)."""

    url: str
    authorization: str | None = None

    def __repr__(self) -> str:
        auth = "set" if self.authorization else "none"
        return f"Endpoint(url={redact_url(self.url)!r}, authorization={auth})"


class JudgeOptions(BaseModel):
    """The judge's tunable options: concurrency, deadlines, retries, budgets and sampling.

    Each is declared here once, under the name a job parameter and a CLI option use; front doors
    compose this model into their own parameters (ATIF's ``ScoringOptions`` is one).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency_limit: StrictInt = Field(10, ge=1, le=1024, description="Judge requests in flight at once.")
    judge_timeout_seconds: float = Field(
        30.0, gt=0, le=_DAY, allow_inf_nan=False, description="Deadline of one judge HTTP attempt."
    )
    judge_max_attempts: StrictInt = Field(3, ge=1, le=10, description="Attempts per judge call, retries included.")
    judge_initial_backoff_seconds: float = Field(
        0.5, ge=0, le=_DAY, allow_inf_nan=False, description="First retry delay; it doubles on each retry."
    )
    max_judge_requests: StrictInt | None = Field(
        None, ge=1, le=_INT64, description="Budget of judge HTTP attempts for the whole job (unlimited if unset)."
    )
    max_context_bytes: StrictInt = Field(
        DEFAULT_MAX_CONTEXT_BYTES, ge=MIN_CONTEXT_BYTES, le=_INT64, description="Byte budget of one judge request."
    )
    judge_temperature: float = Field(
        0.0, ge=0.0, le=2.0, allow_inf_nan=False, description="Judge sampling temperature."
    )
    judge_max_tokens: StrictInt | None = Field(1024, ge=1, le=_INT64, description="Judge answer token limit.")
    judge_seed: StrictInt | None = Field(
        None, ge=-_INT64 - 1, le=_INT64, description="Judge sampling seed, when the endpoint supports one."
    )


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """Everything that configures a judge; the key itself is read from ``api_key_env`` at use.

    Raises:
        ConfigError: when the URL, the model name or the response format is unusable.
    """

    base_url: str
    """OpenAI-compatible base URL (``http://host:8000``, ``.../v1`` or a full ``.../chat/completions``)."""
    model: str
    """Model name sent with every request and recorded in provenance."""
    api_key_env: str | None = None
    """Name of the environment variable holding the API key; the value is never stored here."""
    response_format: ResponseFormat = ResponseFormat.AUTO
    system_role: bool = True
    """Send the instruction as a ``system`` message; when False it opens the user message instead
    (for chat templates that drop system messages, such as Gemma's)."""
    options: JudgeOptions = field(default_factory=JudgeOptions)
    """Concurrency, deadlines, retries, budgets and sampling."""
    endpoint_name: str | None = None
    """The endpoint as provenance and the cache key name it; default :func:`endpoint_identity` of ``base_url``
    (the local judge, on a new port each time, names itself ``local``)."""
    share_cache_across_endpoints: bool = False
    """Leave the endpoint out of the cache key, so that runs against other endpoints serving a model of the same
    name reuse each other's answers (recorded in provenance as ``cache_shared_across_endpoints``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "response_format", _response_format(self.response_format))
        _check_url(self.base_url)
        _check(self.api_key_env is None or not _has_credentials(self.base_url), "base_url",
               "holds credentials (user:password@) and api_key_env names a key too; give one of them")
        _check(bool(self.model.strip()), "model", "must not be empty")

    def provenance(self) -> dict[str, Any]:
        """What produced a score: model, endpoint, sampling and output format (requests add their prompt version).

        Two servers may serve different models under one name, so the endpoint is part of it, normalised
        (:func:`endpoint_identity`: never credentials, query or key).
        """
        recorded = {
            "model": self.model,
            "endpoint": self.endpoint_name or endpoint_identity(self.base_url),
            "temperature": self.options.judge_temperature,
            "max_tokens": self.options.judge_max_tokens,
            "seed": self.options.judge_seed,
            "response_format": self.response_format.value,
            "system_role": self.system_role,
        }
        if self.share_cache_across_endpoints:
            recorded["cache_shared_across_endpoints"] = True
        return recorded

    def cache_identity(self) -> dict[str, Any]:
        """The provenance the judge cache keys answers by: without the endpoint when it is shared across them."""
        recorded = self.provenance()
        if self.share_cache_across_endpoints:
            del recorded["endpoint"], recorded["cache_shared_across_endpoints"]
        return recorded


def chat_completions_url(base: str) -> str:
    """The chat-completions URL for an OpenAI-compatible base URL."""
    trimmed = base.rstrip("/")
    if trimmed.endswith("/chat/completions"):
        return trimmed
    if trimmed.endswith("/v1"):
        return trimmed + "/chat/completions"
    return trimmed + "/v1/chat/completions"


def resolve_endpoint(settings: JudgeSettings, environ: Mapping[str, str] | None = None) -> Endpoint:
    """Where to send requests and how to authenticate, for this environment.

    In EvalHub Kubernetes mode (``EVALHUB_MODE=k8s``) requests go to the sidecar proxy, which
    swaps the literal credential reference for the real key. Otherwise the key is read from the
    environment variable named by ``settings.api_key_env``.

    Raises:
        ConfigError: when the named environment variable is unset or empty.
    """
    env = os.environ if environ is None else environ
    if env.get("EVALHUB_MODE", "").strip().lower() == "k8s":
        proxy = env.get("EVALHUB_JUDGE_PROXY_URL") or DEFAULT_PROXY_URL
        _check_url(proxy, "EVALHUB_JUDGE_PROXY_URL")
        return Endpoint(chat_completions_url(proxy), K8S_AUTHORIZATION)
    url = chat_completions_url(settings.base_url)
    if settings.api_key_env is None:
        return Endpoint(url)
    key = env.get(settings.api_key_env, "").strip()
    if not key:
        raise ConfigError(
            f"environment variable {settings.api_key_env} (named by api_key_env) is not set or empty",
            code="missing_api_key",
        )
    return Endpoint(url, f"Bearer {key}")


def _response_format(value: ResponseFormat | str) -> ResponseFormat:
    try:
        return ResponseFormat(value)
    except ValueError:
        choices = ", ".join(m.value for m in ResponseFormat)
        raise ConfigError(f"response_format: must be one of {choices}") from None


def _check_url(url: str, name: str = "base_url") -> None:
    parts = urlsplit(url)
    _check(parts.scheme in ("http", "https") and bool(parts.netloc), name, "must be an http(s) URL")


def _has_credentials(url: str) -> bool:
    parts = urlsplit(url)
    return parts.username is not None or parts.password is not None


_DEFAULT_PORTS = {"http": 80, "https": 443}


def endpoint_identity(base: str) -> str:
    """The chat-completions URL of ``base`` as provenance and the cache record it, normalised.

    Scheme, host and port in lower case with the default port written out, and the path; never user,
    password, query or fragment: ``http://Judge:80/v1/`` and ``http://judge/v1/chat/completions`` name the
    same endpoint.
    """
    parts = urlsplit(base.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        port = None
    path = "/".join(part for part in chat_completions_url(parts.path).split("/") if part)
    return f"{scheme}://{host}{f':{port}' if port else ''}/{path}"


def redact_url(url: str) -> str:
    """``url`` as it may be shown or logged: without user, password, query or fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is not a number, or out of range: shown as no port
        port = ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _check(ok: bool, name: str, rule: str) -> None:
    if not ok:
        raise ConfigError(f"{name}: {rule}")
