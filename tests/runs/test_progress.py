from __future__ import annotations

import io

from rich.console import Console

from tracegrade.runs import progress


def test_progress_draws_nothing_off_a_terminal() -> None:
    with progress(3, "work") as advance:
        advance(1)
        advance(2)


def terminal() -> tuple[Console, io.StringIO]:
    screen = io.StringIO()
    return Console(file=screen, force_terminal=True, width=80), screen


def test_on_a_terminal_the_bar_shows_the_description_and_the_count() -> None:
    console, screen = terminal()
    with progress(3, "scoring", console=console) as advance:
        advance(2)
        advance(1)
    assert "scoring" in screen.getvalue() and "3/3" in screen.getvalue()


def test_a_disabled_bar_draws_nothing_even_on_a_terminal() -> None:
    console, screen = terminal()
    with progress(3, "scoring", console=console, enabled=False) as advance:
        advance(3)
    assert screen.getvalue() == ""
