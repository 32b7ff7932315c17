"""Progress display: a rich bar on a terminal, nothing in CI logs or pipes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["drawing", "live_console", "progress"]

_LIVE: list[Console] = []
"""Consoles drawing a progress bar now (innermost last)."""


def live_console() -> Console | None:
    """The console drawing a progress bar now, if any: print through it so the bar is redrawn below the text."""
    return _LIVE[-1] if _LIVE else None


@contextmanager
def drawing(console: Console) -> Iterator[None]:
    """Mark ``console`` as drawing a bar while inside (see :func:`live_console`)."""
    _LIVE.append(console)
    try:
        yield
    finally:
        _LIVE.remove(console)


@contextmanager
def progress(
    total: int | None, description: str, *, console: Console | None = None, enabled: bool = True
) -> Iterator[Callable[[int], None]]:
    """Show a progress bar on stderr while inside; yields ``advance(n)``.

    Args:
        total: Units of work, or None when unknown.
        description: What is being done (``scoring``, ``evaluating tasks``).
        console: Where to draw (default: stderr); nothing is drawn when it is not a terminal.
        enabled: False to draw nothing (``--quiet``).
    """
    from rich.console import Console  # rich's console and progress load only when a bar may be drawn

    target = console or Console(stderr=True, highlight=False)
    if not enabled or not target.is_terminal:
        yield _ignore
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn(description), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=target, transient=True) as bar, drawing(target):
        task = bar.add_task(description, total=total)

        def advance(n: int = 1) -> None:
            bar.advance(task, n)

        yield advance


def _ignore(n: int = 1) -> None:
    """Progress off: nothing to draw."""
