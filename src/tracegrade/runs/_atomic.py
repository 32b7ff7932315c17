"""Atomic file writes: a file appears complete or not at all."""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["atomic_file", "write_atomic"]


def write_atomic(path: Path, data: bytes, *, mode: int | None = None, sync: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and an atomic rename.

    Args:
        path: Destination; its folder is created when missing.
        data: The complete content.
        mode: Permission bits of the new file (e.g. ``0o600`` for private reports); default: the umask's.
        sync: Flush the file to disk before the rename. Without it a crash of the process still never
            leaves a partial file, but a power loss may; callers that flush many files at once
            (:class:`~tracegrade.runs.RunFolder`) turn it off.
    """
    with atomic_file(path, mode=mode, sync=sync) as handle:
        handle.write(data)


@contextmanager
def atomic_file(path: Path, *, mode: int | None = None, sync: bool = True) -> Iterator[BinaryIO]:
    """A binary file that appears at ``path`` only when the block ends without an exception.

    The same guarantees and arguments as :func:`write_atomic`, for content written a piece at a time.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@functools.cache
def _umask() -> int:
    current = os.umask(0)  # read once: os.umask can only be read by setting it
    os.umask(current)
    return current
