"""Run the local judge's server: llama.cpp's own OpenAI-compatible server, from the ``xllamacpp`` wheel.

``python -m tracegrade.judge.local._server --model PATH --port N [--alias NAME] [--n-ctx N] [--threads N]
[--no-extra-buffers]`` serves ``/v1/chat/completions`` and ``/v1/models`` on 127.0.0.1 with one slot, the
plain chat template of :mod:`tracegrade.judge.local._plain` and llama.cpp's defaults otherwise, except a
repetition penalty of 1.1 over the last 64 tokens and no prompt cache in memory beyond the slot's own.

The server sets ``OMP_WAIT_POLICY=PASSIVE`` unless the environment sets it (OpenMP's spinning threads waste
CPU on a busy machine).

``--no-extra-buffers`` turns off llama.cpp's repacked weight buffers, whose AMX kernels crash (SIGILL) on
machines, often VMs, that advertise AMX but cannot run it. Started with ``TRACEGRADE_LLAMA_PARENT`` set to its
parent's process id, the server ends when that process ends, however it ends (Linux; elsewhere the parent
stops it).
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import signal
import sys
import threading
from dataclasses import dataclass
from typing import Any

from tracegrade.judge.local._plain import PLAIN_CHAT_TEMPLATE

__all__ = ["NO_EXTRA_BUFFERS", "PARENT_VARIABLE", "WAIT_POLICY", "ServerConfig", "main", "parse_args", "server_params",
           "stop_with_parent"]

NO_EXTRA_BUFFERS = "--no-extra-buffers"
PARENT_VARIABLE = "TRACEGRADE_LLAMA_PARENT"
REPEAT_PENALTY = 1.1
REPEAT_LAST_N = 64
WAIT_POLICY = ("OMP_WAIT_POLICY", "PASSIVE")
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What the server is started with."""

    model: str
    port: int
    alias: str = ""
    n_ctx: int = 8192
    threads: int = 1
    extra_buffers: bool = True


def parse_args(argv: list[str]) -> ServerConfig:
    """The server's settings from its command line (argparse's usage error and exit 2 when they do not parse)."""
    parser = argparse.ArgumentParser(prog="python -m tracegrade.judge.local._server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--alias", default="")
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(NO_EXTRA_BUFFERS, action="store_true")
    args = parser.parse_args(argv)
    return ServerConfig(model=args.model, port=args.port, alias=args.alias, n_ctx=args.n_ctx,
                        threads=max(1, args.threads), extra_buffers=not args.no_extra_buffers)


def server_params(config: ServerConfig) -> Any:
    """``xllamacpp.CommonParams`` for ``config``: loopback, one slot, the plain template, greedy-ready sampling."""
    xllamacpp: Any = importlib.import_module("xllamacpp")
    params = xllamacpp.CommonParams()
    params.model.path = config.model
    params.hostnames = ["127.0.0.1"]
    params.port = config.port
    if config.alias:
        params.model_alias = {config.alias}
    params.n_ctx = config.n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = config.threads
    params.cpuparams_batch.n_threads = config.threads
    params.use_jinja = True
    params.chat_template = PLAIN_CHAT_TEMPLATE
    params.sampling.penalty_repeat = REPEAT_PENALTY
    params.sampling.penalty_last_n = REPEAT_LAST_N
    params.no_extra_bufts = not config.extra_buffers
    params.cache_ram_mib = 0  # no copies of earlier prompts' state in memory; the slot still reuses its prefix
    params.warmup = False
    return params


def main(argv: list[str]) -> None:
    """Start the server with ``argv`` and serve until terminated.

    Raises:
        SystemExit: 1 with a one-line reason when the model does not load or the port cannot be bound.
    """
    stop_with_parent()
    config = parse_args(argv)
    os.environ.setdefault(*WAIT_POLICY)  # read once, when the OpenMP runtime loads with xllamacpp
    xllamacpp: Any = importlib.import_module("xllamacpp")
    try:
        server = xllamacpp.Server(server_params(config))
    except RuntimeError as error:
        raise SystemExit(f"the local judge server did not start with model {config.model}: {error}") from None
    print(f"local judge server listening on {server.listening_address}", flush=True)
    threading.Event().wait()  # the server answers on its own threads; SIGTERM or SIGKILL ends the process


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


if __name__ == "__main__":
    main(sys.argv[1:])
