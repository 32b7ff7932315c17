from __future__ import annotations

import os
import signal
import threading

import pytest

from tracegrade.runs import interrupts


def test_sigterm_is_handled_like_ctrl_c_inside_and_restored_after() -> None:
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), interrupts():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.sigtimedwait([], 0.1) if hasattr(signal, "sigtimedwait") else None
    assert signal.getsignal(signal.SIGTERM) == previous


def test_outside_the_main_thread_nothing_is_installed() -> None:
    seen: list[object] = []

    def work() -> None:
        try:
            with interrupts():
                seen.append(signal.getsignal(signal.SIGTERM))
        except ValueError as error:  # what signal.signal raises outside the main thread
            seen.append(error)

    previous = signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [previous]
