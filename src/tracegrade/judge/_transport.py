"""A lean HTTP/1.1 keep-alive transport for httpx, built on asyncio streams.

The judge keeps dozens of requests in flight for long runs, and httpcore's connection pool
spends CPU on every request in proportion to the square of its connection count (plus anyio
wrappers on every socket operation): about a millisecond per request at 64 connections. This
transport keeps idle connections on a stack per origin, so taking and returning one is O(1).

It speaks plain HTTP/1.1 with ``Content-Length`` or chunked bodies, over TCP or TLS, and maps
failures onto httpx's exception types. Proxies are not supported: :func:`lean_transport_allowed`
says when the judge must fall back to httpx's own transport.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

__all__ = ["KeepAliveTransport", "lean_transport_allowed"]

_MAX_HEAD_BYTES = 64 * 1024
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def lean_transport_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """True unless proxy variables are set (this transport does not speak to proxies)."""
    env = os.environ if environ is None else environ
    return not any(env.get(name) or env.get(name.upper()) for name in _PROXY_VARIABLES)


class _Connection:
    """One open TCP/TLS connection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @property
    def reusable(self) -> bool:
        """Idle and still open: nothing unread and no end-of-stream from the server."""
        unread = getattr(self.reader, "_buffer", b"")  # bytes arriving while idle: the exchange is off
        return not self.writer.is_closing() and not self.reader.at_eof() and not unread

    def close(self) -> None:
        self.writer.close()


class _Body(httpx.AsyncByteStream):
    """A response body read lazily from the connection; returns the connection when complete."""

    def __init__(self, transport: KeepAliveTransport, key: tuple[str, str, int], connection: _Connection,
                 framing: tuple[str, int], keep_alive: bool, read_timeout: float | None) -> None:
        self._transport = transport
        self._key = key
        self._connection: _Connection | None = connection
        self._framing = framing
        self._keep_alive = keep_alive
        self._timeout = read_timeout
        self._complete = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None:
            return
        kind, length = self._framing
        if kind == "length":
            async for chunk in self._fixed(connection.reader, length):
                yield chunk
        elif kind == "chunked":
            async for chunk in self._chunked(connection.reader):
                yield chunk
        else:
            async for chunk in self._until_eof(connection.reader):
                yield chunk
        self._complete = True

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        if self._complete and self._keep_alive:
            self._transport._release(self._key, connection)
        else:
            connection.close()

    async def _fixed(self, reader: asyncio.StreamReader, length: int) -> AsyncIterator[bytes]:
        remaining = length
        while remaining > 0:
            chunk = await _read(reader.read(min(remaining, 65536)), self._timeout)
            if not chunk:
                raise httpx.RemoteProtocolError("connection closed before the body was complete")
            remaining -= len(chunk)
            yield chunk

    async def _chunked(self, reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
        while True:
            line = await _read(reader.readuntil(b"\r\n"), self._timeout)
            size = _chunk_size(line)
            if size == 0:
                await _skip_trailers(reader, self._timeout)
                return
            async for piece in self._fixed(reader, size):
                yield piece
            await _read(reader.readexactly(2), self._timeout)

    async def _until_eof(self, reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
        while chunk := await _read(reader.read(65536), self._timeout):
            yield chunk


class KeepAliveTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 over asyncio streams with a LIFO stack of idle connections per origin.

    Args:
        max_idle: Most idle connections kept per origin (extra ones are closed).
        verify: TLS verification, as for :func:`httpx.create_ssl_context`.
    """

    def __init__(self, max_idle: int = 64, *, verify: bool = True) -> None:
        self._max_idle = max_idle
        self._verify = verify
        self._tls: ssl.SSLContext | None = None
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` and return a response whose body streams from the connection."""
        url = request.url
        key = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
        timeouts: dict[str, Any] = request.extensions.get("timeout", {})
        connection = self._reuse(key) or await self._connect(key, timeouts.get("connect"))
        try:
            await self._send(connection, request, timeouts.get("write"))
            return await self._receive(connection, key, request, timeouts.get("read"))
        except BaseException:
            connection.close()
            raise

    async def aclose(self) -> None:
        """Close every idle connection."""
        for stack in self._idle.values():
            for connection in stack:
                connection.close()
        self._idle.clear()

    def _reuse(self, key: tuple[str, str, int]) -> _Connection | None:
        stack = self._idle.get(key)
        while stack:
            connection = stack.pop()
            if connection.reusable:
                return connection
            connection.close()
        return None

    def _release(self, key: tuple[str, str, int], connection: _Connection) -> None:
        stack = self._idle.setdefault(key, [])
        if connection.reusable and len(stack) < self._max_idle:
            stack.append(connection)
        else:
            connection.close()

    async def _connect(self, key: tuple[str, str, int], timeout: float | None) -> _Connection:
        scheme, host, port = key
        tls = self._tls_context() if scheme == "https" else None
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(host, port, ssl=tls, limit=_MAX_HEAD_BYTES)
        except TimeoutError:
            raise httpx.ConnectTimeout("connect timed out") from None
        except OSError as error:
            raise httpx.ConnectError(f"connect failed ({type(error).__name__})") from None
        return _Connection(reader, writer)

    def _tls_context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = httpx.create_ssl_context(verify=self._verify)
        return self._tls

    async def _send(self, connection: _Connection, request: httpx.Request, timeout: float | None) -> None:
        body = await request.aread()
        head = [f"{request.method} ".encode() + request.url.raw_path + b" HTTP/1.1"]
        head += [name + b": " + value for name, value in request.headers.raw]
        if body and "content-length" not in request.headers:
            head.append(b"content-length: " + str(len(body)).encode())
        connection.writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        await _read(connection.writer.drain(), timeout, write=True)

    async def _receive(self, connection: _Connection, key: tuple[str, str, int], request: httpx.Request,
                       timeout: float | None) -> httpx.Response:
        status, headers = 100, list[tuple[bytes, bytes]]()
        while 100 <= status < 200 and status != 101:  # skip interim answers (100 Continue, 103 ...)
            status, headers = _parse_head(await _read(connection.reader.readuntil(b"\r\n\r\n"), timeout))
        framing = _framing(request.method, status, headers)
        keep_alive = framing[0] != "eof" and _wants_keep_alive(headers)
        body = _Body(self, key, connection, framing, keep_alive, timeout)
        return httpx.Response(status, headers=headers, stream=body, extensions={"http_version": b"HTTP/1.1"})


async def _read(operation: Any, timeout: float | None, *, write: bool = False) -> Any:
    """Await a stream operation, mapping its failures onto httpx exceptions."""
    try:
        if timeout is None:
            return await operation
        async with asyncio.timeout(timeout):
            return await operation
    except TimeoutError:
        raise (httpx.WriteTimeout if write else httpx.ReadTimeout)("timed out") from None
    except asyncio.IncompleteReadError:
        raise httpx.RemoteProtocolError("connection closed by the server") from None
    except asyncio.LimitOverrunError:
        raise httpx.RemoteProtocolError("response head too large") from None
    except OSError as error:  # resets, broken pipes, TLS failures
        failure = httpx.WriteError if write else httpx.ReadError
        raise failure(f"connection failed ({type(error).__name__})") from None


def _parse_head(head: bytes) -> tuple[int, list[tuple[bytes, bytes]]]:
    lines = head[:-4].split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise httpx.RemoteProtocolError("malformed status line")
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            raise httpx.RemoteProtocolError("malformed header line")
        headers.append((name.strip(), value.strip()))
    return int(parts[1]), headers


def _framing(method: str, status: int, headers: list[tuple[bytes, bytes]]) -> tuple[str, int]:
    """How the body is delimited: (``length``, n), (``chunked``, 0) or (``eof``, 0)."""
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return "length", 0
    values = {name.lower(): value for name, value in headers}
    if b"chunked" in values.get(b"transfer-encoding", b"").lower():
        return "chunked", 0
    length = values.get(b"content-length")
    if length is not None:
        if not length.isdigit():
            raise httpx.RemoteProtocolError("invalid content-length")
        return "length", int(length)
    return "eof", 0


def _wants_keep_alive(headers: list[tuple[bytes, bytes]]) -> bool:
    return not any(name.lower() == b"connection" and b"close" in value.lower() for name, value in headers)


def _chunk_size(line: bytes) -> int:
    try:
        return int(line.split(b";", 1)[0].strip(), 16)
    except ValueError:
        raise httpx.RemoteProtocolError("invalid chunk size") from None


async def _skip_trailers(reader: asyncio.StreamReader, timeout: float | None) -> None:
    while (await _read(reader.readuntil(b"\r\n"), timeout)) != b"\r\n":
        pass

