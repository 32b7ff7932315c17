from __future__ import annotations

import io

from rich.console import Console

from tracegrade.runs import progress


def terminal() -> tuple[Console, io.StringIO]:
    screen = io.StringIO()
    return Console(file=screen, force_terminal=True, width=80), screen


def test_on_a_terminal_the_bar_shows_the_description_and_the_count() -> None:
    console, screen = terminal()
    with progress(3, "scoring", console=console) as advance:
        advance(2)
        advance(1)
    assert "scoring" in screen.getvalue() and "3/3" in screen.getvalue()


def test_progress_draws_nothing_off_a_terminal() -> None:
    screen = io.StringIO()
    console = Console(file=screen, width=80)  # a pipe or a CI log: not a terminal
    with progress(3, "work", console=console) as advance:
        advance(1)
        advance(2)
    assert not console.is_terminal and screen.getvalue() == ""


def test_a_disabled_bar_draws_nothing_even_on_a_terminal() -> None:
    console, screen = terminal()
    with progress(3, "scoring", console=console, enabled=False) as advance:
        advance(3)
    assert screen.getvalue() == ""
