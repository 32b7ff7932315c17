"""The product's one file writer: a file appears complete or not at all, private or not, replacing or not."""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["atomic_file", "replace_path", "write_atomic"]


def write_atomic(path: Path, data: bytes | Iterable[bytes | memoryview], *, mode: int | None = None,
                 sync: bool = True, exclusive: bool = False) -> None:
    """Write ``data`` (bytes, or pieces written in turn) to ``path`` through a temporary file beside it.

    Args:
        path: Destination; its folder is created when missing.
        data: The complete content, or its pieces (a failure while they are made leaves no file).
        mode: Permission bits of the new file (``0o600`` for a private file); default: the umask's.
        sync: Flush the file to disk before it appears. Without it a crash of the process still never
            leaves a partial file, but a power loss may; callers that flush many files at once turn it off.
        exclusive: Never replace a file: raise ``FileExistsError`` when ``path`` exists, even when it
            appeared while the content was written.

    Raises:
        OSError: the folder cannot be written (``FileExistsError`` as above).
    """
    with atomic_file(path, mode=mode, sync=sync, exclusive=exclusive) as handle:
        for piece in (data,) if isinstance(data, bytes) else data:
            handle.write(piece)


@contextmanager
def atomic_file(path: Path, *, mode: int | None = None, sync: bool = True,
                exclusive: bool = False) -> Iterator[BinaryIO]:
    """A binary file that appears at ``path`` only when the block ends without an exception.

    The same guarantees and arguments as :func:`write_atomic`, for content written a piece at a time.
    """
    if exclusive and os.path.lexists(path):
        raise FileExistsError(f"{path} exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode if mode is not None else 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            yield handle
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        if exclusive:
            os.link(tmp, path)  # fails instead of replacing a file that appeared meanwhile
        else:
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def replace_path(source: Path, target: Path) -> None:
    """Move ``source`` (a finished file or folder) to ``target`` in one step, replacing a file or empty folder."""
    os.replace(source, target)


@functools.cache
def _umask() -> int:
    current = os.umask(0)  # read once: os.umask can only be read by setting it
    os.umask(current)
    return current
