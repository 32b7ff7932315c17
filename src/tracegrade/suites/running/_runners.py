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

from tracegrade.errors import ConfigError
from tracegrade.suites.checking._records import AttemptRequest, Observation
from tracegrade.suites.reading._json import JsonProblem, loads_strict

__all__ = ["MAX_RESULT_BYTES", "CallableTarget", "CommandTarget", "HttpTarget", "Target", "observation_from"]

MAX_RESULT_BYTES = 64 * 1024 * 1024


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


def observation_from(body: bytes | Any, elapsed: float, *, parsed: bool = False) -> Observation:
    """An observation from a response body (or an already-decoded value): only a JSON object is a result."""
    if not parsed:
        if len(body) > MAX_RESULT_BYTES:
            return Observation(None, "result_too_large", elapsed)
        try:
            body = loads_strict(body)
        except JsonProblem:
            return Observation(None, "invalid_result", elapsed)
    if not isinstance(body, dict):
        return Observation(None, "invalid_result", elapsed)
    return Observation(body, None, elapsed)


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
        data = _dumps(request.to_json())
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, cwd=self.cwd, start_new_session=True)
        except OSError:
            return Observation(None, "target_not_started", time.perf_counter() - start)
        try:
            stdout, _ = await asyncio.wait_for(process.communicate(data), timeout)
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


async def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


def _dumps(value: Any) -> bytes:
    import orjson

    return orjson.dumps(value)


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
            async with self._session.post(self.url, data=_dumps(request.to_json()),
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
