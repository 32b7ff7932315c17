"""Run llama.cpp's OpenAI-compatible server (``python -m tracegrade.judge._llama_server [args]``).

The arguments are those of ``python -m llama_cpp.server`` plus ``--no-extra-buffers``, which
turns off llama.cpp's repacked weight buffers. Builds that compiled in AMX kernels crash with
SIGILL on machines (often VMs) that advertise AMX but cannot run it; without the extra buffers
those kernels are never used.

It also offers ``--chat_format tracegrade-plain`` (see :mod:`tracegrade.judge._llama_plain`) and samples
greedy answers under a grammar without matching the grammar against the whole vocabulary at every token
(see :mod:`tracegrade.judge._llama_sampling`).
"""

from __future__ import annotations

import runpy
import sys
from typing import Any

from tracegrade.judge._llama_plain import register_plain_format
from tracegrade.judge._llama_sampling import install_grammar_last_greedy

__all__ = ["main"]

NO_EXTRA_BUFFERS = "--no-extra-buffers"


def main(argv: list[str]) -> None:
    """Start the server with ``argv`` (blocks until it stops)."""
    if NO_EXTRA_BUFFERS in argv:
        argv = [arg for arg in argv if arg != NO_EXTRA_BUFFERS]
        _disable_extra_buffers()
    register_plain_format()
    install_grammar_last_greedy()
    sys.argv = ["llama_cpp.server", *argv]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


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
