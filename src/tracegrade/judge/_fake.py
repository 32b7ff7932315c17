"""An in-process judge for tests: answers come from a function, through the real validation path."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from tracegrade.errors import JudgeError
from tracegrade.judge._judge import PROTOCOL_ERROR_CODES
from tracegrade.judge._request import JudgeRequest, Reply
from tracegrade.judge._settings import JudgeSettings
from tracegrade.judge._telemetry import JudgeStats

__all__ = ["FakeJudge"]

R = TypeVar("R", bound=Reply)

Answer = Callable[[JudgeRequest], "dict[str, Any] | Exception"]


class FakeJudge:
    """A judge whose answers are computed in-process, for tests of anything that asks a judge.

    ``answer(request)`` returns the judge's JSON object (validated by the caller's parser exactly
    as a real answer is) or an exception to raise (e.g. ``JudgeError(..., code="transport_error")``).
    Every request is recorded in :attr:`requests`; it satisfies
    :class:`~tracegrade.judge.JudgeProtocol`, so it stands in wherever a :class:`~tracegrade.judge.Judge`
    is asked.

    Args:
        answer: Computes the answer to one request.
        settings: What the judge reports as its settings and provenance (default: model ``fake``).
        delay: Seconds to wait before answering a request (default: none), so that answers can
            arrive in any order.
    """

    def __init__(self, answer: Answer, *, settings: JudgeSettings | None = None,
                 delay: Callable[[JudgeRequest], float] | None = None) -> None:
        self._answer = answer
        self._delay = delay
        self.settings = settings if settings is not None else JudgeSettings("http://fake.invalid/v1", "fake")
        self.requests: list[JudgeRequest] = []
        self.stats = JudgeStats()
        self.in_flight = 0
        """Requests being answered now."""
        self.peak_in_flight = 0
        """Most requests that were being answered at once."""

    async def __aenter__(self) -> FakeJudge:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    def provenance(self) -> dict[str, Any]:
        """The provenance of :attr:`settings`, as a real judge records it."""
        return self.settings.provenance()

    async def ask(self, request: JudgeRequest, parse: Callable[[dict[str, Any]], R]) -> R:
        """Validate ``answer(request)`` with ``parse``; protocol failures raise ``JudgeError``."""
        self.requests.append(request)
        self.stats.requests += 1
        outcome = await self._answered(request)
        if isinstance(outcome, Exception):
            raise outcome
        self.stats.successes += 1
        try:
            return parse(outcome)
        except JudgeError as error:
            if error.code in PROTOCOL_ERROR_CODES:
                self.stats.protocol_errors += 1
            raise

    async def _answered(self, request: JudgeRequest) -> dict[str, Any] | Exception:
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            if self._delay is not None:
                await asyncio.sleep(self._delay(request))
            return self._answer(request)
        finally:
            self.in_flight -= 1
