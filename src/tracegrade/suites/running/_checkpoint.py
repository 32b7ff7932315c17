"""An append-only JSONL checkpoint (mode 0600) of finished attempts, so an interrupted run resumes."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import orjson

from tracegrade.errors import ConfigError, InputError
from tracegrade.suites.checking._records import Observation

__all__ = ["Checkpoint"]

Key = tuple[str, str, int]


class Checkpoint:
    """Finished observations of one run, keyed by (suite, case id, repetition).

    The first line names the run (``run_key``); a checkpoint of another run is refused. A last
    line cut short by a crash is ignored; everything before it is reused.
    """

    def __init__(self, path: Path, run_key: str) -> None:
        self.path = path
        self.run_key = run_key
        self.done: dict[Key, Observation] = self._read() if path.exists() else {}
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            raise InputError(f"{path}: cannot open the checkpoint ({exc.strerror})", code="checkpoint") from None
        if os.fstat(self._fd).st_size == 0:
            self._write({"run_key": run_key})

    def _read(self) -> dict[Key, Observation]:
        lines = self.path.read_bytes().split(b"\n")
        done: dict[Key, Observation] = {}
        for number, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                item = orjson.loads(line)
            except orjson.JSONDecodeError:
                if number == len(lines) - 1:
                    break  # cut short by a crash
                raise InputError(f"{self.path}: line {number + 1}: not JSON", code="checkpoint") from None
            if number == 0:
                if item.get("run_key") != self.run_key:
                    raise ConfigError(f"{self.path} belongs to a different run (dataset, target or parameters "
                                      "changed); remove it or pass another --checkpoint", code="checkpoint")
                continue
            try:
                done[(item["suite"], item["id"], item["repetition"])] = Observation(
                    item["result"], item["error_code"], item["elapsed_seconds"], item["usage"])
            except (KeyError, TypeError):
                raise InputError(f"{self.path}: line {number + 1}: not a checkpoint record",
                                 code="checkpoint") from None
        return done

    def _write(self, item: dict[str, Any]) -> None:
        os.write(self._fd, orjson.dumps(item) + b"\n")

    def append(self, suite: str, case_id: str, repetition: int, observation: Observation) -> None:
        """Record one finished attempt."""
        self._write({"suite": suite, "id": case_id, "repetition": repetition, "result": observation.result,
                     "error_code": observation.error_code, "elapsed_seconds": observation.elapsed_seconds,
                     "usage": observation.usage})

    def close(self, *, remove: bool = False) -> None:
        """Flush to disk and close; ``remove`` deletes the file (after the report is safely written)."""
        with contextlib.suppress(OSError):
            os.fsync(self._fd)
        os.close(self._fd)
        if remove:
            self.path.unlink(missing_ok=True)
