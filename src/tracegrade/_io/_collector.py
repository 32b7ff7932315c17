"""The product's one garbage-collector policy, applied once per command at the CLI edge."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FULL_THRESHOLD", "YOUNG_THRESHOLD", "command_collector", "skip_final_collection"]

YOUNG_THRESHOLD = 20_000
"""Allocations between young collections (Python's default: 700)."""
FULL_THRESHOLD = 1_000
"""Middle-generation collections between full ones (Python's default: 10)."""


@contextmanager
def command_collector() -> Iterator[None]:
    """Collect young objects rarely and the oldest generation almost never while a command runs.

    A command builds large sets of records that live until it ends (trajectory trees, suite cases and
    results, dabench rows) and frees little in between: each collection walks survivors and frees nothing.
    Cycles are still freed, by the rarer collections and at the end. The thresholds are restored after.
    """
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], YOUNG_THRESHOLD), thresholds[1], max(thresholds[2], FULL_THRESHOLD))
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def skip_final_collection() -> None:
    """Hide what the process holds from the collection the interpreter runs on its way out (call just before exit)."""
    gc.freeze()
