"""Recorded results: one JSON line per attempt, scored without running anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracegrade._io import JsonProblem, loads, loads_many, loads_written
from tracegrade.errors import InputError
from tracegrade.runs import read_lines
from tracegrade.suites.checking._records import AttemptRequest, Observation
from tracegrade.suites.reading._dataset import Dataset

__all__ = ["MAX_RECORDED_LINE_BYTES", "RecordedResults"]

MAX_RECORDED_LINE_BYTES = 64 * 1024 * 1024
"""Largest line of a recorded-results file (a case file has the same limit); the file itself is read
line by line and has no cap of its own."""

_KEYS = frozenset({"suite", "id", "repetition", "result", "elapsed_seconds", "usage"})
Key = tuple[str | None, str, int]
_BATCH_LINES = 128
_BATCH_BYTES = 256 * 1024
"""Most lines, and bytes, decoded together."""


class RecordedResults:
    """Results saved by another run: ``{suite?, id, repetition?, result, elapsed_seconds?, usage?}`` per line.

    ``result: null`` or a non-object means that attempt produced no valid result. An attempt with no
    line is an ``error`` attempt (``no_recorded_result``).
    """

    def __init__(self, path: Path, dataset: Dataset, repeat: int) -> None:
        self.path = path
        self._lines: dict[Key, Observation | bytes] = {}
        """Each attempt's observation, or the line of a common one (see :meth:`attempt`)."""
        ids = {(suite.name, case_id) for suite in dataset.suites for case_id in suite.columns.ids}
        names = {suite.name for suite in dataset.suites}
        self._all_ids = {case_id for _, case_id in ids}
        batch: list[tuple[int, bytes]] = []
        size = 0
        for number, line in read_lines(path, MAX_RECORDED_LINE_BYTES):
            if line.strip():
                batch.append((number, line))
                size += len(line)
                if len(batch) >= _BATCH_LINES or size >= _BATCH_BYTES:
                    self._add_batch(batch, ids, names, repeat)
                    batch, size = [], 0
        self._add_batch(batch, ids, names, repeat)

    def _add_batch(self, batch: list[tuple[int, bytes]], ids: set[tuple[str, str]], names: set[str],
                   repeat: int) -> None:
        """Add these lines in order: decoded together when all are strict JSON, else one by one."""
        items = loads_many([line for _, line in batch])
        if items is None:
            for number, line in batch:
                self._add(number, self._decoded(number, line), ids, names, repeat)
            return
        lines, all_ids, keys = self._lines, self._all_ids, _KEYS
        for (number, line), item in zip(batch, items, strict=True):
            # The common line (no suite, a known id, a new repetition, float seconds) is added here; others via _add.
            if type(item) is dict and "id" in item and "result" in item and keys.issuperset(item) and \
                    item.get("suite") is None:
                case_id, repetition, elapsed = item["id"], item.get("repetition", 1), item.get("elapsed_seconds")
                key = (None, case_id, repetition)
                if type(case_id) is str and case_id in all_ids and type(repetition) is int and \
                        1 <= repetition <= repeat and (elapsed is None or (type(elapsed) is float and elapsed >= 0)) \
                        and key not in lines:
                    lines[key] = line  # decoded again when asked for: see ``attempt``
                    continue
            self._add(number, item, ids, names, repeat)

    def describe(self) -> dict[str, Any]:
        """Kind and file."""
        return {"kind": "recorded", "path": str(self.path)}

    def _fail(self, number: int, message: str) -> InputError:
        return InputError(f"{self.path}: line {number}: {message}", code="invalid_results")

    def _decoded(self, number: int, line: bytes) -> Any:
        try:
            return loads(line)
        except JsonProblem as exc:
            raise self._fail(number, f"{exc.message} ({exc.where})" if exc.where else exc.message) from None

    def _add(self, number: int, item: Any, ids: set[tuple[str, str]], names: set[str], repeat: int) -> None:
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
        """The recorded observation of this attempt (a common line is kept as bytes and decoded again here)."""
        found = self._lines.get((request.suite, request.case_id, request.repetition)) or \
            self._lines.get((None, request.case_id, request.repetition))
        if type(found) is bytes:
            item = loads_written(found)  # a line of the file this reader screened
            result, usage = item["result"], item.get("usage")
            usage = usage if type(usage) is dict else None
            if type(result) is dict:
                return Observation(result, None, item.get("elapsed_seconds"), usage)
            return Observation(None, "invalid_result", item.get("elapsed_seconds"), usage)
        return found if isinstance(found, Observation) else Observation(None, "no_recorded_result")

    async def aclose(self) -> None:
        """Nothing to release."""
