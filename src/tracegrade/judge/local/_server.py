"""Run llama.cpp's OpenAI-compatible server (``python -m tracegrade.judge.local._server [args]``).

The arguments are those of ``python -m llama_cpp.server`` plus ``--no-extra-buffers``, which
turns off llama.cpp's repacked weight buffers. Builds that compiled in AMX kernels crash (SIGILL,
or SIGSEGV in ``ggml_backend_amx_mul_mat``) on machines, often VMs, that advertise AMX but cannot run
it; without the extra buffers those kernels are never used. :func:`extra_buffers` does the same for
a model loaded in this process.

It also offers ``--chat_format tracegrade-plain`` (see :mod:`tracegrade.judge.local._plain`) and samples
greedy answers under a grammar without matching the grammar against the whole vocabulary at every token
(see :mod:`tracegrade.judge.local._sampling`). Started with ``TRACEGRADE_LLAMA_PARENT`` set to its parent's
process id, it ends when that process ends, however it ends (Linux; elsewhere the parent stops it).
"""

from __future__ import annotations

import ctypes
import os
import runpy
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tracegrade.judge.local._plain import register_plain_format
from tracegrade.judge.local._sampling import install_grammar_last_greedy

__all__ = ["PARENT_VARIABLE", "extra_buffers", "main", "stop_with_parent"]

NO_EXTRA_BUFFERS = "--no-extra-buffers"
PARENT_VARIABLE = "TRACEGRADE_LLAMA_PARENT"
_PR_SET_PDEATHSIG = 1


def main(argv: list[str]) -> None:
    """Start the server with ``argv`` (blocks until it stops)."""
    stop_with_parent()
    if NO_EXTRA_BUFFERS in argv:
        argv = [arg for arg in argv if arg != NO_EXTRA_BUFFERS]
        _disable_extra_buffers()
    register_plain_format()
    install_grammar_last_greedy()
    sys.argv = ["llama_cpp.server", *argv]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


def stop_with_parent() -> None:
    """Have the kernel kill this process when the one named by ``TRACEGRADE_LLAMA_PARENT`` ends.

    Exits at once when that process has already ended. Does nothing without the variable or off Linux.
    """
    parent = os.environ.get(PARENT_VARIABLE, "")
    if not parent.isdigit() or not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return
    if os.getppid() != int(parent):  # the parent ended before the signal was asked for
        raise SystemExit(f"the process that started the local judge server ({parent}) has ended")


@contextmanager
def extra_buffers(allowed: bool) -> Iterator[None]:
    """Models loaded in this process inside the block use the repacked weight buffers only if ``allowed``.

    Pass :attr:`LocalJudge.extra_buffers <tracegrade.judge.local._runner.LocalJudge>` to load as the server does.
    """
    import llama_cpp.llama_cpp as low_level

    saved = low_level.llama_model_default_params
    if not allowed:
        _disable_extra_buffers()
    try:
        yield
    finally:
        low_level.llama_model_default_params = saved


def _disable_extra_buffers() -> None:
    import llama_cpp.llama_cpp as low_level

    default_params = low_level.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = default_params()
        params.use_extra_bufts = False
        return params

    low_level.llama_model_default_params = without_extra_buffers


if __name__ == "__main__":
    main(sys.argv[1:])
