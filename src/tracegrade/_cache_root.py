"""Where tracegrade keeps what it caches between runs (judge answers, the local model, compiled templates)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["cache_root"]


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """``$TRACEGRADE_CACHE_DIR``, else ``~/.cache/tracegrade``.

    Raises:
        RuntimeError: without the variable, when there is no home directory to expand.
    """
    base = (os.environ if environ is None else environ).get("TRACEGRADE_CACHE_DIR")
    return Path(base).expanduser() if base else Path.home() / ".cache" / "tracegrade"
