"""``tracegrade review``: a local page where a person labels the judge's steps, and agreement as it grows."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tracegrade.errors import InputError, OutputError

if TYPE_CHECKING:
    from tracegrade.atif.reviewing import ReviewOrder

__all__ = ["can_open_browser", "review"]


def review(
    run: Annotated[Path, typer.Argument(help="Run folder of tracegrade judge (finished: its manifest is checked).")],
    labels: Annotated[
        Path | None,
        typer.Option("--labels", help="Labels file the answers are appended to (default: labels.jsonl in RUN)."),
    ] = None,
    reviewer: Annotated[
        str | None, typer.Option("--reviewer", help="Your name in the labels (default: your login name).")
    ] = None,
    order: Annotated[
        str,
        typer.Option("--order", help="lowest (judge score), contested (unsure verdicts first) or random (a seeded "
                                     "sample: the order for figures you can quote)."),
    ] = "lowest",
    seed: Annotated[int, typer.Option(help="Seed of --order random.")] = 0,
    blind: Annotated[
        bool, typer.Option("--blind", help="Hide the judge's verdict on a step until you have answered it.")
    ] = False,
    no_open: Annotated[bool, typer.Option("--no-open", help="Print the address; do not open a browser.")] = False,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1 (0: a free one).")] = 0,
) -> None:
    """Serve a review page over a finished judge run on 127.0.0.1 until Ctrl-C.

    Each answer (pass/fail, a score, a category, the decisive step, a note) is appended to the labels file at
    once, with your name as `reviewer`; an undo appends a retraction. `tracegrade agree RUN --labels FILE
    --reviewer NAME` then gives the figures the page showed. The address holds a random token: share it only
    with people who may write labels.
    """
    import asyncio

    from tracegrade.atif.reviewing import ReviewOrder, ReviewSettings, ReviewState, read_review_run, serve_review
    from tracegrade.runs import stop_signals

    chosen = _order(order, ReviewOrder)
    name = reviewer if reviewer is not None else _login()
    if not name.strip() or not name.isprintable() or len(name) > 100:
        raise InputError(f"--reviewer {name!r}: give a printable name of at most 100 characters")
    target = labels if labels is not None else run / "labels.jsonl"
    found = read_review_run(run)
    settings = ReviewSettings(labels=target, reviewer=name, order=chosen, seed=seed, blind=blind)
    server = ReviewState(found, settings)
    standing = server.labels.read()  # a file the strict reader refuses stops here, before the server starts
    _check_writable(target)
    console = Console(highlight=False, soft_wrap=True)
    mine = len(server.mine(standing))
    console.print(f"Reviewing job {found.results.job_id}: {len(server.queue)} scored steps, order {chosen.value}"
                  f"{f' (seed {seed})' if chosen.value == 'random' else ''}, as {name!r}; {mine} answered so far.",
                  markup=False)
    console.print(f"Answers are appended to {target}.", markup=False)

    def ready(url: str) -> None:
        print(f"Review page: {url}", flush=True)
        print("Ctrl-C stops the server; every answer is already on disk.", flush=True)
        if not no_open and can_open_browser():
            import webbrowser

            webbrowser.open(url)

    async def main() -> None:
        stop = asyncio.Event()
        with stop_signals(stop.set):
            await serve_review(server, ready=ready, stop=stop, port=port)

    asyncio.run(main())
    answered = len(server.mine(server.labels.read()))
    console.print(f"Stopped. {answered} answers by {name!r} in {target}; compare them with the judge:\n"
                  f"  tracegrade agree {run} --labels {target} --reviewer {name}", markup=False)


def _order(value: str, kind: type[ReviewOrder]) -> ReviewOrder:
    try:
        return kind(value)
    except ValueError:
        raise InputError(f"--order {value!r}: give lowest, contested or random") from None


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "reviewer"


def _check_writable(path: Path) -> None:
    writable = os.access(path, os.W_OK) if path.exists() else os.access(path.parent, os.W_OK)
    if not writable:
        raise OutputError(f"{path}: cannot write labels there")


def can_open_browser() -> bool:
    """Whether a browser can be shown: a desktop session (macOS, Windows, or a display on other systems)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
