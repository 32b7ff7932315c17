"""Input files read with a hard cap: regular files only, never a FIFO, socket or device."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from tracegrade.errors import InputError

__all__ = ["MAX_INPUT_BYTES", "UnreadableFile", "read_capped", "read_lines"]

MAX_INPUT_BYTES = 1 << 30
"""The cap (1 GiB) of inputs without a tighter limit of their own: reports, run results, label and trace files."""
_CHUNK = 1 << 16


class UnreadableFile(InputError):
    """An input file refused before or while reading it.

    ``code`` is ``not_a_file`` (a FIFO, socket, device or folder), ``too_large`` or ``unreadable``;
    ``reason`` is the message without the path, for readers that report the path their own way.
    """

    def __init__(self, path: Path, reason: str, *, code: str) -> None:
        super().__init__(f"{path}: {reason}", code=code)
        self.path = path
        self.reason = reason


def read_capped(path: Path, limit: int, *, limit_name: str | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    The file is opened without blocking (a FIFO never waits for a writer) and checked on the open
    descriptor (a link to a device is refused too); the read stops one byte past ``limit``, so a
    file that grows while it is read is refused as well.

    Args:
        path: The file.
        limit: The most bytes accepted.
        limit_name: The parameter that sets the limit, named in the message (``max_file_bytes``).

    Raises:
        UnreadableFile: the file is missing or unreadable, not a regular file, or over ``limit``.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _unreadable(path, exc) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(path, "not a regular file (a FIFO, socket or device)", code="not_a_file")
        if info.st_size > limit:
            raise UnreadableFile(path, f"file is {info.st_size} bytes, over {_limit(limit, limit_name)}",
                                 code="too_large")
        data = _read_to_limit(fd, info.st_size, limit)
    except OSError as exc:
        raise _unreadable(path, exc) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise UnreadableFile(path, f"file grew over {_limit(limit, limit_name)} while reading", code="too_large")
    return data


def read_lines(path: Path, line_limit: int) -> Iterator[tuple[int, bytes]]:
    """The lines of a regular file, numbered from 1, each without its newline and of at most ``line_limit`` bytes.

    Opened as :func:`read_capped` opens a file (never waiting on a FIFO); the file as a whole has no
    cap, only each line, and a line is never held beyond ``line_limit`` bytes before it is refused.

    Raises:
        UnreadableFile: the file is missing or unreadable, not a regular file, or a line is over ``line_limit``.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _unreadable(path, exc) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnreadableFile(path, "not a regular file (a FIFO, socket or device)", code="not_a_file")
        handle = os.fdopen(fd, "rb", buffering=1 << 20)
    except BaseException:
        os.close(fd)
        raise
    with handle:
        number = 0
        while True:
            try:
                line = handle.readline(line_limit + 1)
            except OSError as exc:
                raise _unreadable(path, exc) from None
            if not line:
                return
            number += 1
            if line.endswith(b"\n"):
                line = line[:-1]
            if len(line) > line_limit:
                raise UnreadableFile(path, f"line {number} is over {_limit(line_limit, None)}", code="too_large")
            yield number, line


def _limit(limit: int, name: str | None) -> str:
    return f"{name}={limit}" if name else f"the limit of {limit} bytes"


def _unreadable(path: Path, exc: OSError) -> UnreadableFile:
    return UnreadableFile(path, f"cannot read: {(exc.strerror or type(exc).__name__).lower()}", code="unreadable")


def _read_to_limit(fd: int, size: int, limit: int) -> bytes:
    """Read to the end of the file or past ``limit``, usually with one read.

    The first read asks for the size ``fstat`` gave plus one byte (to see growth); more, small reads
    follow only when the file turned out shorter or longer. Asking for the expected size matters: a read
    allocates what it asks for before it shrinks the result, so asking for ``limit`` would cost a
    ``limit``-sized allocation per file.
    """
    chunk = os.read(fd, min(size, limit) + 1)
    if len(chunk) == size:  # the end of the file where ``fstat`` put it: no second read needed
        return chunk
    parts = [chunk]
    total = len(chunk)
    while chunk and total <= limit:
        chunk = os.read(fd, min(limit + 1 - total, _CHUNK))
        if chunk:
            parts.append(chunk)
            total += len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)
