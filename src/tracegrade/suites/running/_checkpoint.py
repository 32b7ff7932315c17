"""An append-only JSONL checkpoint (mode 0600) of finished attempts, so an interrupted run resumes."""

from __future__ import annotations

import contextlib
import math
import os
from pathlib import Path
from typing import Any

import orjson

from tracegrade._io import loads_written, write_atomic
from tracegrade.errors import ConfigError, InputError
from tracegrade.runs import MAX_INPUT_BYTES, UnreadableFile, read_capped
from tracegrade.suites.checking._records import Observation

__all__ = ["Checkpoint"]

Key = tuple[str, str, int]
_FIELDS = frozenset({"suite", "id", "repetition", "result", "error_code", "elapsed_seconds", "usage"})


class Checkpoint:
    """Finished observations of one run, keyed by (suite, case id, repetition).

    The first line names the run (``run_key``); a checkpoint of another run, or a file that is no
    checkpoint at all, is refused and left as it is. A new checkpoint is created with its first line
    in one step, so a file without one was never written by a run. A last line cut short by a crash is
    cut off before anything is appended; everything before it is reused.
    """

    def __init__(self, path: Path, run_key: str) -> None:
        self.path = path
        self.run_key = run_key
        self.done: dict[Key, Observation] = {}
        if os.path.lexists(path):
            self.done, complete = self._read()
            self._fd = self._open()
            if os.fstat(self._fd).st_size > complete:
                os.ftruncate(self._fd, complete)
        else:
            self._create()
            self._fd = self._open()

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise InputError(f"{self.path}: cannot open the checkpoint ({exc.strerror})", code="checkpoint") from None

    def _create(self) -> None:
        """Write the first line to a temporary file and link it in place (never replacing a file)."""
        try:
            write_atomic(self.path, orjson.dumps({"run_key": self.run_key}) + b"\n", mode=0o600, sync=False,
                         exclusive=True)
        except FileExistsError:
            raise ConfigError(f"{self.path} appeared while the run started; pass another --checkpoint",
                              code="checkpoint") from None
        except OSError as exc:
            raise InputError(f"{self.path}: cannot create the checkpoint ({exc.strerror})", code="checkpoint") from None

    def _read(self) -> tuple[dict[Key, Observation], int]:
        """The finished attempts, and where the last complete line ends."""
        try:
            data = read_capped(self.path, MAX_INPUT_BYTES)  # a FIFO or device is refused, never waited on
        except UnreadableFile as exc:
            raise InputError(str(exc), code="checkpoint") from None
        complete = data.rfind(b"\n") + 1
        lines = data[:complete].split(b"\n")[:-1]
        self._check_header(lines[0] if lines else b"")
        done: dict[Key, Observation] = {}
        for number, line in enumerate(lines[1:], start=2):
            if line.strip():
                key, observation = self._record(number, line)
                done[key] = observation
        return done, complete

    def _check_header(self, line: bytes) -> None:
        try:
            header = loads_written(line)
        except orjson.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or set(header) != {"run_key"}:
            raise ConfigError(f"{self.path} is not a tracegrade checkpoint (it is left as it is); "
                              "pass another --checkpoint", code="checkpoint")
        if header["run_key"] != self.run_key:
            raise ConfigError(f"{self.path} belongs to a different run (dataset, target or parameters "
                              "changed); remove it or pass another --checkpoint", code="checkpoint")

    def _record(self, number: int, line: bytes) -> tuple[Key, Observation]:
        try:
            item = loads_written(line)
        except orjson.JSONDecodeError:
            raise InputError(f"{self.path}: line {number}: not JSON", code="checkpoint") from None
        if not _valid_record(item):
            raise InputError(f"{self.path}: line {number}: not a checkpoint record", code="checkpoint")
        key = (item["suite"], item["id"], item["repetition"])
        return key, Observation(item["result"], item["error_code"], item["elapsed_seconds"], item["usage"])

    def append(self, suite: str, case_id: str, repetition: int, observation: Observation) -> None:
        """Record one finished attempt."""
        os.write(self._fd, orjson.dumps({
            "suite": suite, "id": case_id, "repetition": repetition, "result": observation.result,
            "error_code": observation.error_code, "elapsed_seconds": observation.elapsed_seconds,
            "usage": observation.usage}) + b"\n")

    def close(self) -> None:
        """Flush to disk and close."""
        with contextlib.suppress(OSError):
            os.fsync(self._fd)
        os.close(self._fd)


def _valid_record(item: Any) -> bool:
    """Whether a line holds an attempt as :meth:`Checkpoint.append` writes it (types included)."""
    if not isinstance(item, dict) or set(item) != _FIELDS:
        return False
    result, code, elapsed, usage = item["result"], item["error_code"], item["elapsed_seconds"], item["usage"]
    return (isinstance(item["suite"], str) and isinstance(item["id"], str)
            and type(item["repetition"]) is int and item["repetition"] >= 1
            and (isinstance(result, dict) if code is None else result is None and isinstance(code, str))
            and (elapsed is None or (type(elapsed) in (int, float) and math.isfinite(elapsed) and elapsed >= 0))
            and (usage is None or isinstance(usage, dict)))
