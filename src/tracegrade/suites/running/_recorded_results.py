"""Recorded results: one JSON line per attempt, scored without running anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracegrade.errors import InputError
from tracegrade.runs import gc_paused, read_lines
from tracegrade.suites.checking._records import AttemptRequest, Observation
from tracegrade.suites.reading._dataset import Dataset
from tracegrade.suites.reading._json import JsonProblem, loads_strict

__all__ = ["MAX_RECORDED_LINE_BYTES", "RecordedResults"]

MAX_RECORDED_LINE_BYTES = 64 * 1024 * 1024
"""Largest line of a recorded-results file (a case file has the same limit); the file itself is read
line by line and has no cap of its own."""

_KEYS = frozenset({"suite", "id", "repetition", "result", "elapsed_seconds", "usage"})
Key = tuple[str | None, str, int]


class RecordedResults:
    """Results saved by another run: ``{suite?, id, repetition?, result, elapsed_seconds?, usage?}`` per line.

    ``result: null`` or a non-object means that attempt produced no valid result. An attempt with no
    line is an ``error`` attempt (``no_recorded_result``).
    """

    def __init__(self, path: Path, dataset: Dataset, repeat: int) -> None:
        self.path = path
        self._lines: dict[Key, Observation] = {}
        ids = {(suite.name, case_id) for suite in dataset.suites for case_id in suite.columns.ids}
        names = {suite.name for suite in dataset.suites}
        self._all_ids = {case_id for _, case_id in ids}
        with gc_paused():  # a FIFO or device is refused, never waited on
            for number, line in read_lines(path, MAX_RECORDED_LINE_BYTES):
                if line.strip():
                    self._add(number, line, ids, names, repeat)

    def describe(self) -> dict[str, Any]:
        """Kind and file."""
        return {"kind": "recorded", "path": str(self.path)}

    def _fail(self, number: int, message: str) -> InputError:
        return InputError(f"{self.path}: line {number}: {message}", code="invalid_results")

    def _add(self, number: int, line: bytes, ids: set[tuple[str, str]], names: set[str], repeat: int) -> None:
        try:
            item = loads_strict(line)
        except JsonProblem as exc:
            raise self._fail(number, f"{exc.message} ({exc.where})" if exc.where else exc.message) from None
        if not isinstance(item, dict) or "id" not in item or "result" not in item or not _KEYS.issuperset(item):
            raise self._fail(number, "expected an object with id, result and optionally suite, repetition, "
                                     "elapsed_seconds, usage")
        suite, case_id, repetition = item.get("suite"), item["id"], item.get("repetition", 1)
        if not isinstance(case_id, str) or (suite is not None and suite not in names):
            raise self._fail(number, "suite/id do not name a case of the dataset")
        if ((suite, case_id) not in ids) if suite is not None else (case_id not in self._all_ids):
            raise self._fail(number, f"id {case_id[:80]!r} is not a case of the dataset")
        if type(repetition) is not int or not 1 <= repetition <= repeat:
            raise self._fail(number, f"repetition must be an integer from 1 to --repeat ({repeat})")
        elapsed = item.get("elapsed_seconds")
        if elapsed is not None and (isinstance(elapsed, bool) or not isinstance(elapsed, int | float) or elapsed < 0):
            raise self._fail(number, "elapsed_seconds must be a non-negative number or null")
        key = (suite, case_id, repetition)
        if key in self._lines:
            raise self._fail(number, f"a second result for id {case_id[:80]!r} repetition {repetition}")
        result = item["result"]
        usage = item.get("usage")
        self._lines[key] = Observation(result if isinstance(result, dict) else None,
                                       None if isinstance(result, dict) else "invalid_result",
                                       None if elapsed is None else float(elapsed),
                                       usage if isinstance(usage, dict) else None)

    async def attempt(self, request: AttemptRequest, timeout: float) -> Observation:
        """The recorded observation of this attempt."""
        found = self._lines.get((request.suite, request.case_id, request.repetition)) or \
            self._lines.get((None, request.case_id, request.repetition))
        return found if found is not None else Observation(None, "no_recorded_result")

    async def aclose(self) -> None:
        """Nothing to release."""
