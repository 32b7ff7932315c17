"""Read small configuration files with a hard size cap."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tracegrade.errors import ConfigError, InputError

__all__ = ["as_path", "read_capped_text"]


def as_path(value: object, param: str) -> Path:
    """Check that a parameter holds a usable path.

    Args:
        value: The parameter's value.
        param: The parameter's name, used in error messages.

    Returns:
        The path (user home expanded).

    Raises:
        ConfigError: The value is not a non-empty string or path.

    """
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{param}: must be a non-empty file path")
    return Path(value).expanduser()


def read_capped_text(path: Path, *, param: str, max_bytes: int) -> tuple[str, bytes]:
    """Read a UTF-8 file of at most ``max_bytes`` bytes.

    The size is checked on the file's metadata before opening it, and the read itself
    never takes more than ``max_bytes + 1`` bytes, so an oversized or growing file is
    refused without being read whole. Only regular files are accepted (a FIFO would
    block).

    Args:
        path: The file.
        param: The parameter that named the file, used in error messages.
        max_bytes: The size cap.

    Returns:
        The decoded text and the raw bytes (for hashing).

    Raises:
        ConfigError: The file is missing, not a regular file, or over the cap.
        InputError: The file cannot be read or is not UTF-8.

    """
    _check_regular_file(path, param=param, max_bytes=max_bytes)
    try:
        with path.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"{param}: cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise _too_large(path, param, max_bytes)
    try:
        return raw.decode("utf-8-sig"), raw
    except UnicodeDecodeError as exc:
        raise InputError(f"{param}: {path}: byte {exc.start}: not valid UTF-8") from None


def _check_regular_file(path: Path, *, param: str, max_bytes: int) -> None:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ConfigError(f"{param}: file not found: {path}") from None
    except OSError as exc:
        raise ConfigError(f"{param}: cannot access {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{param}: {path} is not a regular file")
    if info.st_size > max_bytes:
        raise _too_large(path, param, max_bytes)


def _too_large(path: Path, param: str, max_bytes: int) -> ConfigError:
    return ConfigError(f"{param}: {path} is larger than the {max_bytes:,}-byte limit", code="limit_exceeded")
