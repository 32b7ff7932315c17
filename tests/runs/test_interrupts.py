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


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_inside_an_uninterrupted_block_is_raised_when_it_ends(number: int) -> None:
    from tracegrade.runs import uninterrupted

    before = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    ran = []
    with pytest.raises(KeyboardInterrupt), uninterrupted():
        os.kill(os.getpid(), number)
        signal.sigtimedwait([], 0.05) if hasattr(signal, "sigtimedwait") else None
        ran.append("the rest of the block")
    assert ran == ["the rest of the block"]
    assert {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)} == before


def test_an_uninterrupted_block_without_a_signal_or_with_an_error_raises_only_that() -> None:
    from tracegrade.runs import uninterrupted

    with uninterrupted():
        pass
    with pytest.raises(ValueError, match="own"), uninterrupted():
        os.kill(os.getpid(), signal.SIGINT)
        signal.sigtimedwait([], 0.05) if hasattr(signal, "sigtimedwait") else None
        raise ValueError("its own error")


def test_stop_signals_call_the_handler_in_the_loop_and_are_removed_after() -> None:
    import asyncio

    from tracegrade.runs import STOP_SIGNALS, stop_signals

    async def main() -> list[int]:
        stop, seen = asyncio.Event(), []
        with stop_signals(lambda: seen.append(1) or stop.set()):
            for signum in STOP_SIGNALS:
                stop.clear()
                os.kill(os.getpid(), signum)
                await asyncio.wait_for(stop.wait(), 5)
        assert not asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)  # none left installed
        return seen

    assert asyncio.run(main()) == [1, 1]
