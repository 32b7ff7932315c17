"""An in-process judge for tests: answers come from a function, through the real validation path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tracegrade.errors import JudgeError
from tracegrade.judge._judge import PROTOCOL_ERROR_CODES
from tracegrade.judge._request import JudgeRequest, Reply
from tracegrade.judge._telemetry import JudgeStats

__all__ = ["FakeJudge"]

R = TypeVar("R", bound=Reply)

Answer = Callable[[JudgeRequest], "dict[str, Any] | Exception"]


class FakeJudge:
    """A judge whose answers are computed in-process, for tests of anything that asks a judge.

    ``answer(request)`` returns the judge's JSON object (validated by the caller's parser exactly
    as a real answer is) or an exception to raise (e.g. ``JudgeError(..., code="transport_error")``).
    Every request is recorded in :attr:`requests`.

    Args:
        answer: Computes the answer to one request.
    """

    def __init__(self, answer: Answer) -> None:
        self._answer = answer
        self.requests: list[JudgeRequest] = []
        self.stats = JudgeStats()

    async def __aenter__(self) -> FakeJudge:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def ask(self, request: JudgeRequest, parse: Callable[[dict[str, Any]], R]) -> R:
        """Validate ``answer(request)`` with ``parse``; protocol failures raise ``JudgeError``."""
        self.requests.append(request)
        self.stats.requests += 1
        outcome = self._answer(request)
        if isinstance(outcome, Exception):
            raise outcome
        self.stats.successes += 1
        try:
            return parse(outcome)
        except JudgeError as error:
            if error.code in PROTOCOL_ERROR_CODES:
                self.stats.protocol_errors += 1
            raise
