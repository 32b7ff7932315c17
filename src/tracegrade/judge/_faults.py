"""Fault injection for the scripted judge server: a rule that breaks a share of its answers.

``FaultInjector`` wraps any :data:`~tracegrade.judge.testing.Rule` and, for a seeded share of the
requests, answers with one of the failures a real judge endpoint or the network in front of it
produces, instead of the rule's answer. Every decision is kept in :attr:`FaultInjector.ledger`, so
a test can account for each request::

    injector = FaultInjector(rule, rate=0.3, seed=7)
    with ScriptedJudgeServer(injector) as server:
        ...
    assert sum(injector.counts.values()) == server.count
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import orjson

from tracegrade._io import JsonProblem, loads
from tracegrade.judge._scripted import ReceivedRequest, Rule, ScriptedReply, read_request

__all__ = ["Fault", "FaultInjector"]

TEN_MB = 10 * 1024 * 1024
_HUGE_BODY = b'{"choices": [{"message": {"content": "' + b"x" * TEN_MB + b'"}}]}'
"""Built once: a soak test sends it many times."""


class Fault(StrEnum):
    """One way an answer can go wrong."""

    RATE_LIMITED = "rate_limited"
    """HTTP 429 with ``Retry-After``."""
    SERVER_ERROR = "server_error"
    """HTTP 500."""
    UNAVAILABLE = "unavailable"
    """HTTP 503."""
    HTML_ERROR_PAGE = "html_error_page"
    """HTTP 502 with an HTML page from a proxy."""
    RESET = "reset"
    """The connection is closed without an answer."""
    TIMEOUT = "timeout"
    """The answer comes after the client has given up."""
    TRUNCATED = "truncated"
    """The body stops short of its ``Content-Length`` and the connection closes."""
    HUGE_BODY = "huge_body"
    """A 10 MB body."""
    SLOW_DRIP = "slow_drip"
    """A valid answer sent a few bytes at a time."""
    INVALID_UTF8 = "invalid_utf8"
    """A body that is not UTF-8."""
    WRONG_TYPES = "wrong_types"
    """A well-formed answer whose scores are strings and whose rationale is a number."""
    QUOTES_EVIDENCE = "quotes_evidence"
    """The judge quotes the step it was shown, then gives the rule's verdict."""


RETRIED = frozenset({Fault.RATE_LIMITED, Fault.SERVER_ERROR, Fault.UNAVAILABLE, Fault.HTML_ERROR_PAGE, Fault.RESET,
                     Fault.TIMEOUT, Fault.TRUNCATED})
"""Faults a client should retry (transport failures, 429 and 5xx)."""


class FaultInjector:
    """A rule answering ``rate`` of the requests with a fault, chosen from ``faults`` with a seeded RNG.

    Args:
        rule: The rule that answers the other requests (and supplies the verdict a quoting or slow
            answer carries).
        rate: Share of requests that get a fault, in [0, 1].
        seed: Seed of the choices (the same seed and arrival order give the same faults).
        faults: The faults to draw from (all by default).
        stall_seconds: How long a ``timeout`` fault waits before answering.
        retry_after: The ``Retry-After`` seconds of a 429.
        limit: Most faults injected in all (None: no limit); later requests get the rule's answer.
        quote: What a ``quotes_evidence`` answer quotes from the request before its verdict (by
            default the last message, as sent); a front door's tests pass what its prompts hold.
    """

    def __init__(self, rule: Rule, *, rate: float = 0.3, seed: int = 0, faults: tuple[Fault, ...] = tuple(Fault),
                 stall_seconds: float = 2.0, retry_after: float = 0.05, limit: int | None = None,
                 quote: Callable[[ReceivedRequest], str] | None = None) -> None:
        if not 0.0 <= rate <= 1.0 or not faults:
            raise ValueError("rate must be in [0, 1] and faults must not be empty")
        self._rule = rule
        self._rate = rate
        self._faults = faults
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._stall = stall_seconds
        self._retry_after = retry_after
        self._left = limit
        self._quote = quote or _last_message
        self.ledger: list[Fault | None] = []
        """The fault given to each request, by arrival index (None: the rule answered)."""

    @property
    def counts(self) -> Counter[str]:
        """Requests per fault name (``ok`` for the rule's own answers)."""
        return Counter(str(fault) if fault is not None else "ok" for fault in self.ledger)

    def __call__(self, request: ReceivedRequest) -> ScriptedReply:
        with self._lock:
            fault = self._faults[self._random.randrange(len(self._faults))] \
                if self._random.random() < self._rate and self._left != 0 else None
            if fault is not None and self._left is not None:
                self._left -= 1
            self.ledger.append(fault)
        if fault is None:
            return self._rule(request)
        return self._reply(fault, request)

    def _reply(self, fault: Fault, request: ReceivedRequest) -> ScriptedReply:
        simple: dict[Fault, ScriptedReply] = {
            Fault.RATE_LIMITED: ScriptedReply.error(429, retry_after=self._retry_after),
            Fault.SERVER_ERROR: ScriptedReply.error(500),
            Fault.UNAVAILABLE: ScriptedReply.error(503),
            Fault.HTML_ERROR_PAGE: ScriptedReply(status=502, body=_HTML, headers=(("content-type", "text/html"),)),
            Fault.RESET: ScriptedReply.dropped(),
            Fault.TIMEOUT: ScriptedReply.stall(self._stall),
            Fault.HUGE_BODY: ScriptedReply(body=_HUGE_BODY),
            Fault.INVALID_UTF8: ScriptedReply(body=b'{"choices": [{"message": {"content": "\xff\xfe\xfd"}}]}'),
        }
        if fault in simple:
            return simple[fault]
        answer = self._rule(request)
        if fault is Fault.TRUNCATED:
            return ScriptedReply(content=answer.content, truncate=True)
        if fault is Fault.SLOW_DRIP:
            return ScriptedReply(content=answer.content, drip=0.01)
        if fault is Fault.WRONG_TYPES:
            return ScriptedReply(content=_wrong_types(answer.content))
        return ScriptedReply(content=f"The step under review reads {self._quote(request)}. "
                                     f"Having weighed it, my verdict is {answer.content}")


_HTML = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"


def _wrong_types(content: str | None) -> str:
    """The answer with every number turned into a word and every string into a number."""
    try:
        answer = loads(content or "{}")
    except JsonProblem:
        answer = {}
    return orjson.dumps(_mistyped(answer) if isinstance(answer, dict) and answer else {"value": "high"}).decode()


def _mistyped(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _mistyped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mistyped(item) for item in value]
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return value
    return 42 if isinstance(value, str) else "high"


def _last_message(request: ReceivedRequest) -> str:
    """The last message of the request, as sent."""
    return read_request(request.json()).prompt
