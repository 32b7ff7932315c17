"""The product's one garbage-collector policy, applied once per command at the CLI edge."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

__all__ = ["FULL_THRESHOLD", "YOUNG_THRESHOLD", "command_collector", "offline_command", "skip_final_collection"]

YOUNG_THRESHOLD = 20_000
"""Allocations between young collections (Python's default: 700)."""
FULL_THRESHOLD = 1_000
"""Middle-generation collections between full ones (Python's default: 10)."""
_OFFLINE = {("validate",), ("import",), ("merge",), ("compare",), ("suite", "check"), ("suite", "compare")}
"""Commands that only read files and write files: no judge, no system under test, no figures."""
_RECORDED = {("suite", "run"), ("suite", "replay")}
"""Commands that are offline when they score recorded results (``--results``) without a judge."""


def offline_command(argv: Sequence[str]) -> bool:
    """Whether ``tracegrade`` ``argv`` names a command that only reads and writes files (no network, no figures)."""
    words = tuple(word for word in argv[:2] if not word.startswith("-"))
    judged = any(arg.startswith(("--judge-url", "--judge-kind", "--target-url", "--target-cmd", "--pairwise"))
                 for arg in argv)
    if (words[:1] in _OFFLINE or words in _OFFLINE) and not judged:
        return True
    return words in _RECORDED and not judged and any(arg.startswith("--results") for arg in argv)


@contextmanager
def command_collector(*, offline: bool = False) -> Iterator[None]:
    """The collector while a command runs: off for an offline command, else rare young and rarer full collections.

    A command builds large sets of records that live until it ends (trajectory trees, suite cases and
    results, dabench rows) and frees little in between: each collection walks survivors and frees nothing.
    An offline command (:func:`offline_command`) builds acyclic records only, freed by reference counting,
    so the collector is off. A command that calls a judge or a system under test makes short-lived cycles
    (exceptions, connections), which the young collections free. The collector is restored after.
    """
    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(max(thresholds[0], YOUNG_THRESHOLD), thresholds[1], max(thresholds[2], FULL_THRESHOLD))
    if offline:
        gc.disable()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if enabled:
            gc.enable()


def skip_final_collection() -> None:
    """Hide what the process holds from the collection the interpreter runs on its way out (call just before exit)."""
    gc.freeze()
