"""SIGTERM handled like Ctrl-C, so CI time-outs and Kubernetes stops keep finished work; lines that must run whole."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["STOP_SIGNALS", "interrupts", "stop_signals", "uninterrupted"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""Ctrl-C and SIGTERM: both stop a job the same way."""


@contextmanager
def stop_signals(handler: Callable[[], object]) -> Iterator[None]:
    """While inside, Ctrl-C and SIGTERM call ``handler`` in the running event loop instead of raising."""
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, handler)
    try:
        yield
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


@contextmanager
def interrupts() -> Iterator[None]:
    """While inside, SIGTERM raises ``KeyboardInterrupt`` in the main thread (as Ctrl-C does).

    Outside the main thread this does nothing (signals can only be handled there).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def uninterrupted() -> Iterator[None]:
    """While inside, Ctrl-C and SIGTERM wait: one that came is raised as ``KeyboardInterrupt`` on the way out.

    For the few lines that must run whole, such as a task's rows added to each of its tables (an interrupt
    between two columns would leave a table that cannot be written). Outside the main thread it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []

    def _hold(signum: int, frame: FrameType | None) -> None:
        came.append(signum)

    previous = {number: signal.signal(number, _hold) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if came:
        raise KeyboardInterrupt
