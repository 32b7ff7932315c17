"""Pausing garbage collections while large acyclic record sets are built."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_off", "gc_paused"]

_freezing = [0, 0]
"""How deep the pauses that may freeze records are nested (0: none, or a freeze that is not ours), and
whether :func:`gc_off` froze records inside them."""
_lock = threading.Lock()


@contextmanager
def gc_paused() -> Iterator[None]:
    """Skip full (oldest-generation) collections inside, restoring the thresholds after.

    Scoring a suite or a DataAgent-Bench run builds millions of small acyclic records, and every full
    collection walks all of them: that doubled the time of large suite runs. Young collections still
    run, so short-lived cycles (an exception and its traceback) are still freed during long live runs.
    Records that :func:`gc_off` froze inside are handed back to the collector (oldest generation) when
    the outermost pause ends.
    """
    thresholds = gc.get_threshold()
    with _lock:  # never undo a freeze that is not ours
        counted = bool(_freezing[0]) or gc.get_freeze_count() == 0
        _freezing[0] += counted
    gc.set_threshold(thresholds[0], thresholds[1], 2**30)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        with _lock:
            _freezing[0] -= counted
            if counted and _freezing[0] == 0 and _freezing[1]:
                _freezing[1] = 0
                gc.unfreeze()


@contextmanager
def gc_off() -> Iterator[None]:
    """No collections at all inside; inside :func:`gc_paused`, what was built is frozen on the way out.

    Only for work that makes no reference cycles (reading files with orjson, scoring recorded results
    with built-in comparisons). Young collections there walk each new record once or twice and free
    nothing; frozen, the records are not walked again until the outermost pause ends. Outside a pause
    (or where the process froze objects itself) collections are only deferred to the end.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        with _lock:
            if _freezing[0]:
                _freezing[1] = 1
                gc.freeze()
        if enabled:
            gc.enable()
