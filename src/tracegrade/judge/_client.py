"""The HTTP side of the judge: one pooled aiohttp session, bounded concurrency, retries and a request budget.

Failures leave as :class:`~tracegrade.errors.JudgeError` with a safe code only; raw exception
text and response bodies never reach an error, a log record or a cache.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp
import orjson

from tracegrade._io import loads_written
from tracegrade.errors import JudgeError
from tracegrade.judge._extract import ChatReply, parse_chat_body, protocol_error
from tracegrade.judge._request import JudgeRequest
from tracegrade.judge._settings import Endpoint, JudgeSettings, ResponseFormat
from tracegrade.judge._telemetry import JudgeStats, JudgeTelemetry
from tracegrade.judge._transport import PooledSession, failure_code, route_for, tls_context

__all__ = ["MAX_RESPONSE_BYTES", "ChatClient", "record_usage"]

logger = logging.getLogger("tracegrade.judge")

MAX_RESPONSE_BYTES = 64 * 1024
"""Most bytes of an HTTP response body that are read."""
MAX_BACKOFF_SECONDS = 30.0
MAX_RETRY_AFTER_SECONDS = 120.0
TURNS_PER_ITERATION = 4
"""Most answers post-processed per event-loop iteration before the requests sent so far leave."""
_REFUSAL_STATUSES = frozenset({400, 422})
"""Statuses with which servers reject a request they cannot parse (e.g. an unknown response_format)."""


@dataclass(frozen=True, slots=True)
class _Answer:
    """What one HTTP attempt produced (before the body is interpreted)."""

    status: int
    body: bytes
    too_large: bool = False
    retry_after: float | None = None


class _Failed(Exception):
    """One attempt failed; ``retryable`` says whether another attempt may help."""

    def __init__(self, code: str, *, retryable: bool, retry_after: float | None = None,
                 schema_refused: bool = False) -> None:
        super().__init__(code)
        self.code = code
        self.retryable = retryable
        self.retry_after = retry_after
        self.schema_refused = schema_refused


class _Turns:
    """Lets about ``per_iteration`` tasks per event-loop iteration (never twice as many) post-process answers.

    Why: answers that arrive together would otherwise send their next requests together, in waves.
    """

    __slots__ = ("_loop", "_passed", "_per_iteration", "_waiters")

    def __init__(self, per_iteration: int) -> None:
        self._per_iteration = per_iteration
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._passed = 0
        """Turns given in the current iteration (0: no ``_pass_on`` is scheduled)."""
        self._loop: asyncio.AbstractEventLoop | None = None

    async def take(self) -> None:
        """Return once this task's turn has come (at once when the current iteration has one left)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new event loop: nothing of the previous one can pass a turn on
            self._loop, self._passed = loop, 0
            self._waiters.clear()
        if self._passed < self._per_iteration and not self._waiters:
            if not self._passed:
                loop.call_soon(self._pass_on, loop)
            self._passed += 1
            return
        turn: asyncio.Future[None] = loop.create_future()
        self._waiters.append(turn)
        await turn  # a cancelled waiter is skipped by _pass_on

    def _pass_on(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start a new iteration's turns: wake the first waiters (runs each iteration while any wait)."""
        self._passed = 0
        while self._waiters and self._passed < self._per_iteration:
            turn = self._waiters.popleft()
            if not turn.done():
                turn.set_result(None)
                self._passed += 1
        if self._passed:
            loop.call_soon(self._pass_on, loop)


class ChatClient:
    """Sends chat-completions requests with retries, within concurrency and budget limits.

    The aiohttp session is opened on the first request, inside the running event loop, and
    closed by :meth:`aclose` (call it before using the client from another event loop).
    Redirects are not followed: a 3xx is an ``http_status_<n>`` error, and the key goes nowhere else.

    Args:
        settings: Judge settings.
        endpoint: Resolved URL and Authorization value.
        stats: Counters to update.
        telemetry: OpenTelemetry instruments to update.
        ca_bundle: PEM file of CA certificates to trust for an ``https`` judge instead of the
            system store; by default ``REQUESTS_CA_BUNDLE`` or ``SSL_CERT_FILE`` when set.
        environ: Environment to read the CA bundle variables from (default ``os.environ``).

    Raises:
        ConfigError: when the CA bundle cannot be loaded.
    """

    def __init__(self, settings: JudgeSettings, endpoint: Endpoint, stats: JudgeStats,
                 telemetry: JudgeTelemetry, *, ca_bundle: str | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        self._settings = settings
        self._route = route_for(endpoint.url)
        tls = tls_context(endpoint.url, ca_bundle, os.environ if environ is None else environ)
        self._sessions = PooledSession(settings.options.concurrency_limit, tls)
        self._stats = stats
        self._telemetry = telemetry
        self._slots = asyncio.Semaphore(settings.options.concurrency_limit)
        self._turns = _Turns(TURNS_PER_ITERATION)
        self._schema_refused = False
        self._random = random.Random()
        headers = {"content-type": "application/json", "accept-encoding": "identity"}
        if endpoint.authorization:
            headers["authorization"] = endpoint.authorization
        self._headers = headers | dict(self._route.headers)

    @property
    def uses_schema(self) -> bool:
        """Whether requests currently carry a ``response_format`` JSON schema."""
        mode = self._settings.response_format
        return mode is not ResponseFormat.NONE and not (mode is ResponseFormat.AUTO and self._schema_refused)

    async def complete(self, request: JudgeRequest) -> ChatReply:
        """The judge's reply to ``request``, after retries where they may help.

        Raises:
            JudgeError: ``timeout``, ``transport_error``, ``dns_error``, ``tls_error`` (an untrusted certificate: not
                retried), ``http_status_<n>``, ``budget_exhausted``, or a protocol code
                (``response_too_large``, ``invalid_json``, ``schema_violation``).
        """
        attempt = 1
        while True:
            with_schema = self.uses_schema
            try:
                return await self._attempt(self._body(request, with_schema), with_schema)
            except _Failed as failure:
                if failure.schema_refused and with_schema and self._fall_back():
                    continue
                if not failure.retryable or attempt >= self._settings.options.judge_max_attempts:
                    raise _judge_error(failure.code, attempt) from None
                await asyncio.sleep(self._delay(attempt, failure.retry_after))
                self._stats.retries += 1
                attempt += 1

    def body(self, request: JudgeRequest) -> dict[str, Any]:
        """The body of ``request`` as the next attempt would send it."""
        return loads_written(self._body(request, self.uses_schema))  # type: ignore[no-any-return]

    def read(self, body: bytes) -> ChatReply:
        """A chat-completions body answered elsewhere (a batch), its usage counted as an attempt's."""
        if len(body) > MAX_RESPONSE_BYTES:
            raise protocol_error("response_too_large", f"the body exceeds {MAX_RESPONSE_BYTES} bytes")
        reply = parse_chat_body(body)
        record_usage(self._stats, self._telemetry, reply)
        return reply

    async def aclose(self) -> None:
        """Close the pooled connections (a later request opens a new session)."""
        await self._sessions.aclose()

    def _fall_back(self) -> bool:
        """Stop sending ``response_format`` after the server refused it (auto mode only)."""
        if self._settings.response_format is not ResponseFormat.AUTO:
            return False
        if not self._schema_refused:
            logger.warning("judge server refused response_format; continuing without a JSON schema")
        self._schema_refused = True
        return True

    async def _attempt(self, body: bytes, with_schema: bool) -> ChatReply:
        async with self._slots:  # held for the HTTP exchange only
            self._spend_budget()
            answer = await self._timed_post(body, with_schema)
        await self._turns.take()
        if answer.too_large:
            raise protocol_error("response_too_large", f"the body exceeds {MAX_RESPONSE_BYTES} bytes")
        reply = parse_chat_body(answer.body)
        record_usage(self._stats, self._telemetry, reply)
        return reply

    def _spend_budget(self) -> None:
        limit = self._settings.options.max_judge_requests
        if limit is not None and self._stats.requests >= limit:
            self._stats.budget_exhausted += 1
            raise JudgeError(f"judge request budget of {limit} requests is spent", code="budget_exhausted")
        self._stats.requests += 1

    async def _timed_post(self, body: bytes, with_schema: bool) -> _Answer:
        started = time.perf_counter()
        failed: tuple[str, bool] | None = None
        try:
            async with asyncio.timeout(self._settings.options.judge_timeout_seconds):
                answer = await self._post(body, read_refusal=with_schema)
        except (TimeoutError, aiohttp.ClientError, OSError) as error:
            failed = failure_code(error) or ("transport_error", True)
        if failed is not None:  # raised outside the handler: no aiohttp exception (or its request) is chained
            code, retryable = failed
            self._record(started, None, code)
            raise _Failed(code, retryable=retryable)
        if 200 <= answer.status < 300:
            self._record(started, answer.status, None)
            return answer
        code = f"http_status_{answer.status}"
        self._record(started, answer.status, code)
        raise _classify(answer, code)

    async def _post(self, body: bytes, *, read_refusal: bool) -> _Answer:
        """POST ``body``; read the answer of a 2xx, and of a 400/422 that may refuse the schema."""
        route = self._route
        async with self._sessions.get().post(route.url, data=body, headers=self._headers, proxy=route.proxy,
                                        proxy_headers=route.proxy_headers, allow_redirects=False) as response:
            status = response.status
            if 200 <= status < 300 or (status in _REFUSAL_STATUSES and read_refusal):
                content, too_large = await _read_capped(response)
                return _Answer(status, content, too_large)
            # The body is not read; releasing the response closes the connection unless it was complete.
            return _Answer(status, b"", retry_after=_retry_after(response.headers.get("retry-after")))

    def _record(self, started: float, status: int | None, error: str | None) -> None:
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        if error is None:
            self._stats.successes += 1
        elif status is None:
            self._stats.transport_errors += 1
        else:
            self._stats.http_errors += 1
        self._telemetry.call(elapsed_ms, status=status, error=error)
        if error is not None:
            logger.debug("judge attempt failed: %s", error)

    def _body(self, request: JudgeRequest, with_schema: bool) -> bytes:
        settings, options = self._settings, self._settings.options
        messages = list(request.messages) if settings.system_role else _without_system(request.messages)
        body: dict[str, Any] = {"model": settings.model, "messages": messages,
                                "temperature": options.judge_temperature}
        if options.judge_max_tokens is not None:
            body["max_tokens"] = options.judge_max_tokens
        seed = request.seed if request.seed is not None else options.judge_seed
        if seed is not None:
            body["seed"] = seed
        if with_schema:
            body["response_format"] = _response_format(settings.response_format, request)
        if request.top_logprobs is not None:
            body["logprobs"] = True
            body["top_logprobs"] = request.top_logprobs
        return orjson.dumps(body)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """Exponential backoff with jitter, never shorter than the server's ``Retry-After``."""
        base = min(self._settings.options.judge_initial_backoff_seconds * 2.0 ** (attempt - 1), MAX_BACKOFF_SECONDS)
        delay = base * self._random.uniform(0.5, 1.0)
        return max(delay, retry_after) if retry_after is not None else delay


def record_usage(stats: JudgeStats, telemetry: JudgeTelemetry, reply: ChatReply) -> None:
    """Count the tokens one answer reports, cached input tokens included when the provider says."""
    stats.input_tokens += reply.input_tokens
    stats.output_tokens += reply.output_tokens
    cached = reply.cached_input_tokens
    if cached is not None:
        stats.cached_input_tokens += cached
        stats.cached_input_reported += 1
    telemetry.tokens(reply.input_tokens, reply.output_tokens, cached or 0)


def _without_system(messages: tuple[dict[str, str], ...]) -> list[dict[str, str]]:
    """The messages with system content moved to the start of the first user message."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    merged = [dict(m) for m in messages if m["role"] != "system"]
    if system and merged and merged[0]["role"] == "user":
        merged[0]["content"] = f"{system}\n\n{merged[0]['content']}"
    elif system:
        merged.insert(0, {"role": "user", "content": system})
    return merged


def _response_format(mode: ResponseFormat, request: JudgeRequest) -> dict[str, Any]:
    if mode is ResponseFormat.JSON_OBJECT:
        return {"type": "json_object", "schema": request.response_schema}
    return {"type": "json_schema",
            "json_schema": {"name": f"tracegrade_{request.purpose}", "strict": True,
                            "schema": request.response_schema}}


def _classify(answer: _Answer, code: str) -> _Failed:
    if answer.status in _REFUSAL_STATUSES:
        text = answer.body.lower()
        refused = b"response_format" in text or b"json_schema" in text
        return _Failed(code, retryable=False, schema_refused=refused)
    retryable = answer.status == 429 or answer.status >= 500
    return _Failed(code, retryable=retryable, retry_after=answer.retry_after)


async def _read_capped(response: aiohttp.ClientResponse) -> tuple[bytes, bool]:
    """At most ``MAX_RESPONSE_BYTES`` of the (decoded) body; True when there was more (left unread).

    A declared ``Content-Length`` over the limit is refused before any of the body is read.
    """
    identity = response.headers.get("content-encoding", "identity").lower() == "identity"
    length = response.content_length
    if identity and length is not None:
        return (b"", True) if length > MAX_RESPONSE_BYTES else (await response.read(), False)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            return b"", True
        chunks.append(chunk)
    return b"".join(chunks), False


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date), capped."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError):
            return None
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_SECONDS)


def _judge_error(code: str, attempts: int) -> JudgeError:
    noun = "attempt" if attempts == 1 else "attempts"
    return JudgeError(f"judge call failed after {attempts} {noun}: {code}", code=code)
