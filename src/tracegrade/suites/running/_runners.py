"""The system under test: a command, an HTTP endpoint or a Python callable, one attempt at a time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import orjson

from tracegrade._io import JsonProblem, loads
from tracegrade.errors import ConfigError
from tracegrade.suites.checking._records import AttemptRequest, Observation

__all__ = ["MAX_RESULT_BYTES", "CallableTarget", "CommandTarget", "HttpTarget", "Target", "observation_from"]

MAX_RESULT_BYTES = 64 * 1024 * 1024
_EXIT_POLL_SECONDS = 0.05
"""How often a command whose stdout is still open is checked for having exited."""
_REAP_POLLS = 40
"""Checks, after its group was killed, before the command is killed on its own."""


class Target(Protocol):
    """A system under test that turns one attempt request into an observation (never raises for it)."""

    def describe(self) -> dict[str, Any]:
        """Identity of the target (kind and address) recorded in the report and checkpoint."""
        ...

    async def attempt(self, request: AttemptRequest, timeout: float) -> Observation:
        """Run one attempt; failures become an observation with a safe ``error_code``."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


def observation_from(body: bytes, elapsed: float) -> Observation:
    """An observation from a response body: only a JSON object is a result."""
    if len(body) > MAX_RESULT_BYTES:
        return Observation(None, "result_too_large", elapsed)
    try:
        value = loads(body)
    except JsonProblem:
        return Observation(None, "invalid_result", elapsed)
    if not isinstance(value, dict):
        return Observation(None, "invalid_result", elapsed)
    return Observation(value, None, elapsed)


class CommandTarget:
    """Runs a command per attempt: request JSON on stdin, result JSON on stdout; killed on timeout."""

    def __init__(self, command: str, *, cwd: str | None = None) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise ConfigError("--target-cmd is empty")
        self.command = command
        self.cwd = cwd

    def describe(self) -> dict[str, Any]:
        """Kind and command line."""
        return {"kind": "command", "command": self.command}

    async def attempt(self, request: AttemptRequest, timeout: float) -> Observation:
        """Run the command once."""
        start = time.perf_counter()
        data = orjson.dumps(request.to_json())
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, cwd=self.cwd, start_new_session=True)
        except OSError:
            return Observation(None, "target_not_started", time.perf_counter() - start)
        try:
            async with asyncio.timeout(timeout):
                stdout = await _exchange(process, data)
        except TimeoutError:
            return Observation(None, "timeout", time.perf_counter() - start)
        finally:
            await _kill(process)
        elapsed = time.perf_counter() - start
        if process.returncode != 0:
            return Observation(None, "target_exit_status", elapsed)
        return observation_from(stdout, elapsed)

    async def aclose(self) -> None:
        """Nothing to release."""


async def _exchange(process: asyncio.subprocess.Process, data: bytes) -> bytes:
    """Send the request and take what the command writes until it exits.

    A child the command left behind may hold stdout open for ever: once the command itself has
    exited, its process group is killed, so the output ends where the command's own output ended.
    """
    assert process.stdin is not None and process.stdout is not None
    reading = asyncio.ensure_future(_read_capped(process.stdout))
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a command that ignores its input
            process.stdin.write(data)
            await process.stdin.drain()
            process.stdin.close()
        while not reading.done() and process.returncode is None:
            await asyncio.wait({reading}, timeout=_EXIT_POLL_SECONDS)
        if not reading.done():
            _kill_group(process)
        stdout = await reading
        await process.wait()
        return stdout
    finally:
        reading.cancel()


async def _read_capped(stream: asyncio.StreamReader) -> bytes:
    """Everything up to the end of ``stream``; past MAX_RESULT_BYTES the rest is read and dropped."""
    body = bytearray()
    while chunk := await stream.read(1 << 16):
        if len(body) <= MAX_RESULT_BYTES:
            body += chunk
    return bytes(body)


def _kill_group(process: asyncio.subprocess.Process) -> bool:
    """SIGKILL the command's process group (its own session); False when it could not be signalled."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the command and its process group if it still runs, then close its pipes and reap it.

    ``Process.kill`` is only the fallback: it polls the child first, and reaping it there makes
    asyncio's child watcher warn ("Unknown child process pid").
    """
    if process.returncode is None and _kill_group(process):
        for _ in range(_REAP_POLLS):
            if process.returncode is not None:
                break
            await asyncio.sleep(_EXIT_POLL_SECONDS)
    if process.returncode is None:  # no group to signal, or the command left it: kill the command alone
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    transport = getattr(process, "_transport", None)
    if transport is not None:  # closed now (a child may hold a pipe), not by the GC after the loop has gone
        transport.close()
    await process.wait()


class HttpTarget:
    """POSTs the request JSON to a URL per attempt; a 2xx JSON-object body is the result."""

    def __init__(self, url: str) -> None:
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"--target-url must be an http(s) URL, got {url[:80]!r}")
        self.url = url
        self._session: Any = None

    def describe(self) -> dict[str, Any]:
        """Kind and URL."""
        return {"kind": "url", "url": self.url}

    async def attempt(self, request: AttemptRequest, timeout: float) -> Observation:
        """POST once."""
        import aiohttp

        if self._session is None:
            self._session = aiohttp.ClientSession()
        start = time.perf_counter()
        try:
            async with self._session.post(self.url, data=orjson.dumps(request.to_json()),
                                          headers={"Content-Type": "application/json"},
                                          timeout=aiohttp.ClientTimeout(total=timeout)) as response:
                status = response.status
                body = bytearray()
                async for chunk in response.content.iter_chunked(1 << 16):
                    body += chunk
                    if len(body) > MAX_RESULT_BYTES:
                        break
        except TimeoutError:
            return Observation(None, "timeout", time.perf_counter() - start)
        except aiohttp.ClientError:
            return Observation(None, "target_unreachable", time.perf_counter() - start)
        elapsed = time.perf_counter() - start
        if not 200 <= status < 300:
            return Observation(None, "target_http_status", elapsed)
        return observation_from(bytes(body), elapsed)

    async def aclose(self) -> None:
        """Close the one client session."""
        if self._session is not None:
            await self._session.close()
            self._session = None


Handler = Callable[[AttemptRequest], Awaitable[Any]]


class CallableTarget:
    """Calls ``await fn(request)`` per attempt; the returned JSON object is the result."""

    def __init__(self, fn: Handler, *, name: str = "callable") -> None:
        self.fn = fn
        self.name = name

    def describe(self) -> dict[str, Any]:
        """Kind and the name given."""
        return {"kind": "callable", "name": self.name}

    async def attempt(self, request: AttemptRequest, timeout: float) -> Observation:
        """Call once."""
        start = time.perf_counter()
        try:
            value = await asyncio.wait_for(self.fn(request), timeout)
        except TimeoutError:
            return Observation(None, "timeout", time.perf_counter() - start)
        except Exception:  # the system under test failed: an operational error, not a crash of the run
            return Observation(None, "target_exception", time.perf_counter() - start)
        try:  # a callable may hand back anything: keep only a strict JSON document
            data = json.dumps(value, allow_nan=False).encode()
        except (TypeError, ValueError):
            return Observation(None, "invalid_result", time.perf_counter() - start)
        return observation_from(data, time.perf_counter() - start)

    async def aclose(self) -> None:
        """Nothing to release."""
