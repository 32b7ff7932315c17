"""Pausing full garbage collections while large acyclic record sets are built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Skip full (oldest-generation) collections inside, restoring the thresholds after.

    Scoring a suite or a DataAgent-Bench run builds millions of small acyclic records, and every full
    collection walks all of them: that doubled the time of large suite runs. Young collections still
    run, so short-lived cycles (an exception and its traceback) are still freed during long live runs.
    """
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], 2**30)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
