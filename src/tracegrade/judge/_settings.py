"""Judge settings: endpoint, model, sampling, retries and budgets (no secrets)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from tracegrade.errors import ConfigError

__all__ = [
    "DEFAULT_MAX_CONTEXT_BYTES",
    "MIN_CONTEXT_BYTES",
    "Endpoint",
    "JudgeSettings",
    "ResponseFormat",
    "chat_completions_url",
    "resolve_endpoint",
]

DEFAULT_MAX_CONTEXT_BYTES = 65536
MIN_CONTEXT_BYTES = 1024
DEFAULT_PROXY_URL = "http://localhost:8080"
K8S_AUTHORIZATION = "Bearer api-key:ref"
"""Literal credential reference the EvalHub sidecar replaces with the real key."""


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
        return f"Endpoint(url={_redact_url(self.url)!r}, authorization={auth})"


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """Everything that configures a judge; the key itself is read from ``api_key_env`` at use.

    Raises:
        ConfigError: when a value is out of its documented range.
    """

    base_url: str
    """OpenAI-compatible base URL (``http://host:8000``, ``.../v1`` or a full ``.../chat/completions``)."""
    model: str
    """Model name sent with every request and recorded in provenance."""
    api_key_env: str | None = None
    """Name of the environment variable holding the API key; the value is never stored here."""
    temperature: float = 0.0
    max_tokens: int | None = 1024
    seed: int | None = None
    response_format: ResponseFormat = ResponseFormat.AUTO
    system_role: bool = True
    """Send the instruction as a ``system`` message; when False it opens the user message instead
    (for chat templates that drop system messages, such as Gemma's)."""
    concurrency_limit: int = 10
    """Most judge calls in flight at once."""
    judge_timeout_seconds: float = 30.0
    """Deadline of one HTTP attempt, reading the response included."""
    judge_max_attempts: int = 3
    """Attempts per call (1-10) for retryable failures."""
    judge_initial_backoff_seconds: float = 0.5
    max_judge_requests: int | None = None
    """Global budget of HTTP attempts (retries included); None means unlimited."""
    max_context_bytes: int = DEFAULT_MAX_CONTEXT_BYTES
    """Byte budget of one serialised request."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "response_format", _response_format(self.response_format))
        _check_url(self.base_url)
        _check(bool(self.model.strip()), "model", "must not be empty")
        _check(_finite(self.temperature) and 0 <= self.temperature <= 2, "temperature", "must be in [0, 2]")
        _check(self.max_tokens is None or self.max_tokens >= 1, "max_tokens", "must be >= 1")
        _check(self.concurrency_limit >= 1, "concurrency_limit", "must be >= 1")
        _check(_finite(self.judge_timeout_seconds) and self.judge_timeout_seconds > 0,
               "judge_timeout_seconds", "must be a positive number")
        _check(1 <= self.judge_max_attempts <= 10, "judge_max_attempts", "must be between 1 and 10")
        _check(_finite(self.judge_initial_backoff_seconds) and self.judge_initial_backoff_seconds >= 0,
               "judge_initial_backoff_seconds", "must be >= 0")
        _check(self.max_judge_requests is None or self.max_judge_requests >= 1,
               "max_judge_requests", "must be >= 1 when given")
        _check(self.max_context_bytes >= MIN_CONTEXT_BYTES, "max_context_bytes",
               f"must be >= {MIN_CONTEXT_BYTES}")

    def provenance(self) -> dict[str, Any]:
        """What produced a score: model, sampling settings and output format (each request adds its prompt version).

        The endpoint and credentials are deliberately absent: they do not change a judgement
        and may carry secrets.
        """
        return {
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "response_format": self.response_format.value,
            "system_role": self.system_role,
        }


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


def _redact_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _finite(value: float) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _check(ok: bool, name: str, rule: str) -> None:
    if not ok:
        raise ConfigError(f"{name}: {rule}")
