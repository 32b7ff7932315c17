"""The judge: cache lookup, HTTP call, JSON extraction and validation behind one ``ask``."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, Protocol, TypeVar

from tracegrade.errors import JudgeError
from tracegrade.judge._cache import CacheKeys, JudgeCache, cache_key
from tracegrade.judge._client import ChatClient
from tracegrade.judge._extract import AMBIGUOUS_ANSWER, DUPLICATE_KEY, extract_verdict
from tracegrade.judge._request import JudgeRequest, Reply
from tracegrade.judge._settings import JudgeSettings, resolve_endpoint
from tracegrade.judge._telemetry import JudgeStats, JudgeTelemetry

__all__ = ["PROTOCOL_ERROR_CODES", "Judge", "JudgeProtocol"]

R = TypeVar("R", bound=Reply)

PROTOCOL_ERROR_CODES = frozenset({"invalid_json", "schema_violation", "response_too_large", AMBIGUOUS_ANSWER,
                                  DUPLICATE_KEY})
"""Codes of answers that arrived (HTTP 2xx) but could not be used."""


class JudgeProtocol(Protocol):
    """What a front door needs of a judge: validated answers, and what to record about them.

    :class:`Judge` is the real one, :class:`~tracegrade.judge.testing.FakeJudge` the in-process one.
    """

    @property
    def settings(self) -> JudgeSettings:
        """The endpoint, model and options the judge runs with."""
        ...

    @property
    def stats(self) -> JudgeStats:
        """Counters of the requests asked so far."""
        ...

    def provenance(self) -> dict[str, Any]:
        """Model and settings behind every answer (no secrets)."""
        ...

    async def ask(self, request: JudgeRequest, parse: Callable[[dict[str, Any]], R]) -> R:
        """The validated answer to ``request``; raises ``JudgeError`` with a safe code."""
        ...


class Judge:
    """An OpenAI-compatible LLM judge with a validated-answer cache and telemetry.

    Use it as an async context manager (or call :meth:`aclose`) so pooled connections close.

    Args:
        settings: Endpoint, model, sampling, retry and budget settings.
        cache: Cache of validated answers; None disables caching.
        telemetry: OpenTelemetry instruments; a no-op-by-default instance when None.
        ca_bundle: PEM file of CA certificates to trust for an ``https`` judge instead of the system
            store; by default ``REQUESTS_CA_BUNDLE`` or ``SSL_CERT_FILE`` when set.
        environ: Environment to read the API key, EvalHub mode and CA bundle variables from
            (default ``os.environ``; proxy variables are always read from ``os.environ``).

    Raises:
        ConfigError: when the API key variable named by the settings is not set, or the CA bundle
            cannot be loaded.
    """

    def __init__(
        self,
        settings: JudgeSettings,
        *,
        cache: JudgeCache | None = None,
        telemetry: JudgeTelemetry | None = None,
        ca_bundle: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.settings = settings
        self.stats = JudgeStats()
        self._cache = cache
        self._telemetry = telemetry if telemetry is not None else JudgeTelemetry()
        self._provenance = settings.provenance()
        self._keyed = settings.cache_identity()
        self._keys = CacheKeys(self._keyed)
        self._asking: dict[str, asyncio.Event] = {}
        """The cache keys of requests being asked now, each set once its answer is in the cache (or failed)."""
        endpoint = resolve_endpoint(settings, os.environ if environ is None else environ)
        self._client = ChatClient(settings, endpoint, self.stats, self._telemetry, ca_bundle=ca_bundle,
                                  environ=environ)

    async def __aenter__(self) -> Judge:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connections and commit pending cache rows (the cache stays open)."""
        await self._client.aclose()
        if self._cache is not None:
            self._cache.flush()

    def provenance(self) -> dict[str, Any]:
        """Model, settings and prompt version behind every answer of this judge (no secrets)."""
        return dict(self._provenance)

    async def ask(self, request: JudgeRequest, parse: Callable[[dict[str, Any]], R]) -> R:
        """The validated answer to ``request``, from the cache or from the judge.

        With a cache, a request asked while the same one is in flight waits for that answer instead of paying
        for it again (counted as a cache hit); when that call fails, the waiting one asks for itself.

        Args:
            request: The question.
            parse: Validator turning the judge's JSON object into a reply; raises a
                ``JudgeError`` with a protocol code when the object is unusable.

        Raises:
            JudgeError: with a transport, budget or protocol code.
        """
        key = self._cache_key(request) if self._cache is not None else None
        while key is not None and key in self._asking:  # the same question in flight: wait for its cached answer
            await self._asking[key].wait()
        cached = self._lookup(key, parse)
        if cached is not None:
            return cached
        if key is not None:
            self._asking[key] = asyncio.Event()
        try:
            reply = await self._client.complete(request)
            validate = parse if request.top_logprobs is None else _with_logprobs(parse, reply.logprobs)
            result = extract_verdict(reply.content, validate, _same_reply)
            if key is not None and self._cache is not None:
                self._cache.put(key, request.purpose, result.to_json(), (reply.input_tokens, reply.output_tokens))
        except JudgeError as error:
            self._count_protocol_error(error)
            raise
        finally:
            if key is not None:
                self._asking.pop(key).set()
        return result

    def request_key(self, request: JudgeRequest) -> str:
        """The request's cache key (the same whether or not a cache is open): what identifies it in a batch."""
        return self._cache_key(request)

    def cached(self, request: JudgeRequest, parse: Callable[[dict[str, Any]], R], *, count: bool = True) -> R | None:
        """The cached validated answer to ``request``, or None (counted as a cache hit or miss when ``count``)."""
        hits, misses = self.stats.cache_hits, self.stats.cache_misses
        found = self._lookup(self._cache_key(request) if self._cache is not None else None, parse)
        if not count:
            self.stats.cache_hits, self.stats.cache_misses = hits, misses
        return found

    def chat_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The chat-completions body :meth:`ask` would send for ``request`` (a batch line's ``body``)."""
        return self._client.body(request)

    def accept(self, key: str, purpose: str, parse: Callable[[dict[str, Any]], R], body: bytes) -> R:
        """Read a chat-completions ``body`` answered elsewhere (a batch job) as :meth:`ask` reads its own.

        ``key`` is the request's :meth:`request_key`. The usage is counted, the verdict extracted and validated,
        then stored in the cache under ``key``.

        Raises:
            JudgeError: a protocol code, counted as :meth:`ask` counts it.
        """
        try:
            reply = self._client.read(body)
            result = extract_verdict(reply.content, parse, _same_reply)
        except JudgeError as error:
            self._count_protocol_error(error)
            raise
        if self._cache is not None:
            self._cache.put(key, purpose, result.to_json())
        return result

    def _count_protocol_error(self, error: JudgeError) -> None:
        """Count ``error`` when the judge's answer was unusable (a protocol code, not a transport one)."""
        if error.code in PROTOCOL_ERROR_CODES:
            self.stats.protocol_errors += 1
            self._telemetry.protocol_error(error.code)

    def _cache_key(self, request: JudgeRequest) -> str:
        if request.seed is None:
            return self._keys.key(request)
        return cache_key({**self._keyed, "seed": request.seed}, request)

    def _lookup(self, key: str | None, parse: Callable[[dict[str, Any]], R]) -> R | None:
        if key is None or self._cache is None:
            return None
        found = self._cache.get_with_tokens(key)
        if found is not None:
            stored, input_tokens, output_tokens = found
            try:
                result = parse(stored)
            except JudgeError:
                result = None  # an entry this version cannot read: ask again and overwrite it
            if result is not None:
                self.stats.cache_hits += 1
                self.stats.cache_hit_input_tokens += input_tokens
                self.stats.cache_hit_output_tokens += output_tokens
                return result
        self.stats.cache_misses += 1
        return None


def _with_logprobs(parse: Callable[[dict[str, Any]], R],
                   logprobs: tuple[dict[str, Any], ...] | None) -> Callable[[dict[str, Any]], R]:
    """A validator that receives each answer object together with the answer's token log-probabilities."""
    tokens = list(logprobs) if logprobs is not None else None
    return lambda answer: parse({"answer": answer, "logprobs": tokens})


def _same_reply(first: Reply, second: Reply) -> bool:
    return first.to_json() == second.to_json()
