"""A scripted OpenAI-compatible judge server on loopback (HTTP/1.1 over real sockets), for tests and benchmarks.

Use it as a context manager::

    with ScriptedJudgeServer(lambda request: ScriptedReply.answer({"verdict": "ok"}), latency=0.05) as server:
        settings = JudgeSettings(base_url=server.base_url, model="scripted")
        server.queue(ScriptedReply.error(429, retry_after=1.0))   # first answer, then the rule
        ...
        assert server.count == 2

``scripted_rule(rules)`` answers every request tracegrade makes by documented, deterministic rules
(``tracegrade judge-server --scripted`` serves it; docs/scripted-judge.md).

Run ``python -m tracegrade.judge.testing --rule package.module:factory --latency 0.05`` to serve
from a separate process: ``factory(**options)`` returns the rule (default: ``scripted_rule`` with the
built-in rules), ``--option score=0.5`` passes options (JSON values). It prints ``READY <base_url>`` and
stops on SIGTERM/SIGINT or when stdin closes.

``FaultInjector(rule, rate=0.3)`` makes any rule answer a seeded share of requests with the failures real
endpoints produce (:class:`Fault`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import logging
import signal
import sys
import threading
import time
from collections import deque
from types import TracebackType
from typing import Any

import orjson

from tracegrade._io import loads
from tracegrade.judge._fake import FakeJudge
from tracegrade.judge._faults import Fault, FaultInjector
from tracegrade.judge._scripted import (
    DEFAULT_RULES,
    KINDS,
    REASONS,
    SCRIPTED_MODEL,
    Cue,
    Kind,
    ReceivedRequest,
    Rule,
    Rules,
    RulesError,
    ScriptedReply,
    rules_from_mapping,
    scripted_rule,
)

__all__ = [
    "DEFAULT_RULES",
    "KINDS",
    "SCRIPTED_MODEL",
    "Cue",
    "FakeJudge",
    "Fault",
    "FaultInjector",
    "Kind",
    "ReceivedRequest",
    "Rule",
    "Rules",
    "RulesError",
    "ScriptedJudgeServer",
    "ScriptedReply",
    "rules_from_mapping",
    "scripted_rule",
]

logger = logging.getLogger("tracegrade.judge.testing")


class ScriptedJudgeServer:
    """An OpenAI-compatible HTTP server answering by rule, on a loopback port, in a thread.

    Args:
        rule: Chooses each reply (a front door's tests supply one that answers its prompts).
        latency: Seconds added before every answer.
        host: Interface to bind.
        port: Port (0 picks a free one).
        record_bodies: Keep request bodies in :attr:`requests` (turn off for long benchmarks).
    """

    def __init__(self, rule: Rule, *, latency: float = 0.0, host: str = "127.0.0.1",
                 port: int = 0, record_bodies: bool = True) -> None:
        self._rule = rule
        self._pending: deque[ScriptedReply] = deque()
        self.latency = latency
        self._host = host
        self._port = port
        self._record_bodies = record_bodies
        self.requests: list[ReceivedRequest] = []
        self.peak_in_flight = 0
        """Most chat-completions requests being answered at the same time."""
        self._in_flight = 0
        self._count = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._connections: set[_Exchange] = set()
        self._ready = threading.Event()
        self._failed: OSError | None = None
        """Why the port could not be bound (raised by :meth:`start`)."""
        self._stopped: asyncio.Event | None = None

    @property
    def base_url(self) -> str:
        """``http://host:port`` of the running server."""
        return f"http://{self._host}:{self._port}"

    @property
    def count(self) -> int:
        """Chat-completions requests received so far."""
        return self._count

    def set_rule(self, rule: Rule) -> None:
        """Answer later requests with ``rule``."""
        self._rule = rule

    def queue(self, *replies: ScriptedReply) -> None:
        """Answer the next requests with ``replies``, in order, before falling back to the rule."""
        with self._lock:
            self._pending.extend(replies)

    def start(self) -> ScriptedJudgeServer:
        """Start serving in a background thread; returns once the port is bound."""
        self._thread = threading.Thread(target=self._run, name="scripted-judge", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout=10):
            raise RuntimeError("scripted judge server did not start")
        if self._failed is not None:
            self._thread.join(timeout=10)
            raise self._failed
        return self

    def stop(self) -> None:
        """Stop serving, drop open connections and join the thread."""
        if self._loop is not None and self._stopped is not None:
            self._loop.call_soon_threadsafe(self._stopped.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._thread = None

    def __enter__(self) -> ScriptedJudgeServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except OSError as error:  # the port cannot be bound: start() raises it
            self._failed = error
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        self._server = await self._loop.create_server(lambda: _Exchange(self), self._host, self._port,
                                                      backlog=1024)
        self._port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stopped.wait()
        self._server.close()
        for connection in list(self._connections):
            connection.abort()
        await self._server.wait_closed()

    def _answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[ScriptedReply, float]:
        """The reply to a chat-completions request and how long to wait before sending it."""
        with self._lock:
            index = self._count
            self._count += 1
            reply = self._pending.popleft() if self._pending else None
        received = ReceivedRequest(index, method, path, headers, body)
        if self._record_bodies:
            self.requests.append(received)
        if reply is None:
            try:
                reply = self._rule(received)
            except Exception:  # a broken rule answers 500 instead of hanging the connection
                logger.exception("scripted judge rule failed")
                reply = ScriptedReply.error(500)
        self._in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        return reply, self.latency + reply.delay

    def _info(self, path: str) -> bytes:
        if path.startswith("/_scripted/count"):
            return orjson.dumps({"count": self._count, "cpu_s": time.process_time()})
        return orjson.dumps({"object": "list", "data": [{"id": SCRIPTED_MODEL, "object": "model"}]})


class _Exchange(asyncio.Protocol):
    """One client connection: requests are answered one at a time, in order (keep-alive)."""

    def __init__(self, server: ScriptedJudgeServer) -> None:
        self._server = server
        self._buffer = bytearray()
        self._transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._drip_timer: asyncio.TimerHandle | None = None
        self._busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._server._connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self._server._connections.discard(self)
        if self._drip_timer is not None:
            self._drip_timer.cancel()
            self._drip_timer = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self._server._in_flight -= 1
        self._transport = None

    def abort(self) -> None:
        if self._transport is not None:
            self._transport.abort()

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if not self._busy:
            self._next()

    def _next(self) -> None:
        """Start answering the next complete request in the buffer, if any."""
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        try:
            method, path, headers = _parse_head(bytes(self._buffer[: end + 4]))
            length = int(headers.get("content-length", "0"))
        except ValueError:
            self.abort()
            return
        if len(self._buffer) < end + 4 + length:
            return
        body = bytes(self._buffer[end + 4 : end + 4 + length])
        del self._buffer[: end + 4 + length]
        keep_alive = headers.get("connection", "").lower() != "close"
        if method == "GET":
            self._send(_render(200, self._server._info(path), ()), keep_alive)
            return
        reply, delay = self._server._answer(method, path, headers, body)
        self._busy = True
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(delay, self._reply, reply, body, keep_alive)

    def _reply(self, reply: ScriptedReply, request_body: bytes, keep_alive: bool) -> None:
        self._timer = None
        self._server._in_flight -= 1
        self._busy = False
        if reply.drop:
            self.abort()
            return
        body = _reply_body(reply, request_body)
        response = _render(reply.status, body, reply.headers)
        if reply.truncate:
            if self._transport is not None:
                self._transport.write(response[: len(response) - max(1, len(body) // 2)])
                self._transport.close()
            return
        if reply.drip > 0:
            self._busy = True
            self._drip(response, reply.drip, keep_alive)
            return
        self._send(response, keep_alive)

    def _drip(self, rest: bytes, interval: float, keep_alive: bool) -> None:
        """Send the answer 16 bytes at a time, ``interval`` seconds apart (a slow or congested link)."""
        self._drip_timer = None
        if self._transport is None or self._transport.is_closing():
            return
        self._transport.write(rest[:16])
        if len(rest) > 16:
            loop = asyncio.get_running_loop()
            self._drip_timer = loop.call_later(interval, self._drip, rest[16:], interval, keep_alive)
            return
        self._busy = False
        self._send(b"", keep_alive)

    def _send(self, response: bytes, keep_alive: bool) -> None:
        if self._transport is None or self._transport.is_closing():
            return
        self._transport.write(response)
        if not keep_alive:
            self._transport.close()
            return
        self._next()


def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    method, path, _version = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return method, path, headers


def _reply_body(reply: ScriptedReply, request_body: bytes) -> bytes:
    if reply.body is not None:
        return reply.body
    document: dict[str, Any] = {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": SCRIPTED_MODEL,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": reply.content or ""}}],
    }
    if reply.usage is not None:
        prompt, completion = reply.usage
        document["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion}
        if reply.cached_tokens is not None:
            document["usage"]["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
    return orjson.dumps(document)


def _render(status: int, body: bytes, headers: tuple[tuple[str, str], ...]) -> bytes:
    typed = any(name.lower() == "content-type" for name, _ in headers)
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}",
             *([] if typed else ["content-type: application/json"]),
             f"content-length: {len(body)}", *(f"{name}: {value}" for name, value in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def main(argv: list[str] | None = None) -> None:
    """Serve a rule from this process until SIGTERM/SIGINT or stdin closes."""
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible judge server (for tests).")
    parser.add_argument("--rule", default=None,
                        help="MODULE:FACTORY returning the rule (default: the built-in scripted rules)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=JSON",
                        help="keyword argument of the factory (repeatable)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    rule = scripted_rule() if args.rule is None else _load_rule(args.rule, args.option)
    server = ScriptedJudgeServer(rule, latency=args.latency, port=args.port,
                                 record_bodies=False)
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())

    def watch_stdin() -> None:
        sys.stdin.read()
        done.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    with server:
        print(f"READY {server.base_url}", flush=True)
        done.wait()


def _load_rule(spec: str, options: list[str]) -> Rule:
    module, _, name = spec.partition(":")
    factory = getattr(importlib.import_module(module), name)
    kwargs = {key: loads(value) for key, _, value in (option.partition("=") for option in options)}
    rule: Rule = factory(**kwargs)
    return rule


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
