"""Labels appended to a labels file one line at a time, durably, by any number of reviewers at once.

Each answer is checked against what the file holds (read under an exclusive lock), written with
one ``write`` to the end of the file and flushed to disk (``fsync``) before it is acknowledged, so
a server killed at any moment loses at most the answer it was writing, and two reviewers writing
to one file never interleave or contradict each other. An undo is a retraction line (``"retract":
true``): nothing already written is ever changed.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from tracegrade.atif.agreement._labels import Label, parse_labels
from tracegrade.errors import InputError, OutputError
from tracegrade.runs import MAX_INPUT_BYTES

__all__ = ["Conflict", "LabelsFile", "retraction_of"]


class Conflict(Exception):
    """An answer the file's current labels do not allow (the message says why, for the reviewer)."""


Check = Callable[[tuple[Label, ...]], dict[str, Any]]
"""Given the standing labels, the line to append (or raise :class:`Conflict`)."""


class LabelsFile:
    """A labels file (JSON Lines) read strictly and appended to under an exclusive lock."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> tuple[Label, ...]:
        """The standing labels (none when the file does not exist yet).

        Raises:
            InputError: the file is not a valid labels file (``file:line: reason``).
        """
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return ()
        except OSError as exc:
            raise InputError(f"{self.path}: cannot read the labels ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            return self._parse(_read_all(fd, self.path))
        finally:
            os.close(fd)

    def append(self, check: Check) -> Label:
        """Append the line ``check`` returns for the standing labels, under one exclusive lock; the label as read back.

        Raises:
            Conflict: ``check`` refused.
            InputError: the file holds something the strict reader refuses.
            OutputError: the line could not be written or flushed to disk.
        """
        created = not self.path.exists()
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise OutputError(f"{self.path}: cannot open the labels file ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            data = _read_all(fd, self.path)
            standing = self._parse(data)
            line = check(standing)
            encoded = orjson.dumps(line)
            number = data.count(b"\n") + 1 + (1 if data and not data.endswith(b"\n") else 0)
            lines = data.split(b"\n")
            if data.endswith(b"\n"):
                lines.pop()
            parse_labels([*lines, encoded], str(self.path), allow_empty=True)  # what the reader will accept
            # a complete last line without its newline (written by hand) gets one, so the answer starts a line
            chunk = (b"\n" if data and not data.endswith(b"\n") else b"") + encoded + b"\n"
            _write_all(fd, chunk, self.path)
            os.fsync(fd)
        finally:
            os.close(fd)  # closing releases the lock
        if created:
            _sync_folder(self.path.parent)
        return Label.model_validate({**line, "line": number})

    def _parse(self, data: bytes) -> tuple[Label, ...]:
        return parse_labels(data.split(b"\n"), str(self.path), allow_empty=True)


def retraction_of(label: Label) -> dict[str, Any]:
    """The line that withdraws ``label``: its ids, step and reviewer as written, and ``"retract": true``."""
    line: dict[str, Any] = dict(label._ids())
    if label.step is not None:
        line["step"] = label.step
    elif label.step_id is not None:
        line["step_id"] = label.step_id
        if label.segment:
            line["segment"] = label.segment
    if label.reviewer is not None:
        line["reviewer"] = label.reviewer
    line["retract"] = True
    return line


def _read_all(fd: int, path: Path) -> bytes:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise InputError(f"{path}: not a regular file")
    chunks, size = [], 0
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, 1 << 20):
        size += len(chunk)
        if size > MAX_INPUT_BYTES:
            raise InputError(f"{path}: larger than {MAX_INPUT_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _write_all(fd: int, chunk: bytes, path: Path) -> None:
    try:
        done = os.write(fd, chunk)
        while done < len(chunk):  # a short write (full disk): the rest, still under the lock
            done += os.write(fd, chunk[done:])
    except OSError as exc:
        raise OutputError(f"{path}: cannot append the label ({exc.strerror or errno.errorcode.get(exc.errno or 0)})"
                          ) from None


def _sync_folder(folder: Path) -> None:
    """Flush the new file's directory entry too, so the file itself survives a crash."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
