from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest

from tracegrade.judge._transport import KeepAliveTransport, lean_transport_allowed

Respond = Callable[[int], bytes]
"""Raw response bytes for the n-th request on a connection."""


@asynccontextmanager
async def raw_server(respond: Respond, *, close_after: bool = False,
                     idle_close: float | None = None) -> AsyncIterator[tuple[str, list[int]]]:
    connections: list[int] = []

    async def exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, served: int) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length")), 0)
        await reader.readexactly(length)
        writer.write(respond(served))
        await writer.drain()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        served = 0
        try:
            while True:
                await exchange(reader, writer, served)
                served += 1
                if close_after:
                    break
                if idle_close is not None:
                    await asyncio.sleep(idle_close)
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1/chat/completions", connections
    finally:
        server.close()


@asynccontextmanager
async def client_for(respond: Respond, *, close_after: bool = False, idle_close: float | None = None,
                     ) -> AsyncIterator[tuple[httpx.AsyncClient, str, list[int]]]:
    async with (raw_server(respond, close_after=close_after, idle_close=idle_close) as (url, connections),
                httpx.AsyncClient(transport=KeepAliveTransport()) as client):
        yield client, url, connections


def ok(body: bytes, *extra: bytes) -> bytes:
    head = [b"HTTP/1.1 200 OK", b"content-length: " + str(len(body)).encode(), *extra]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


async def post(client: httpx.AsyncClient, url: str) -> httpx.Response:
    response = await client.post(url, content=b'{"q": 1}')
    await response.aread()
    return response


async def test_keep_alive_reuses_one_connection() -> None:
    async with client_for(lambda n: ok(b'{"n": %d}' % n)) as (client, url, connections):
        bodies = [(await post(client, url)).json() for _ in range(3)]
    assert bodies == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert len(connections) == 1


async def test_chunked_body_with_extensions_and_trailers() -> None:
    chunked = (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
               b"4;ext=1\r\n{\"a\"\r\n3\r\n: 1\r\n1\r\n}\r\n0\r\nx-trailer: y\r\n\r\n")
    async with client_for(lambda n: chunked) as (client, url, connections):
        assert (await post(client, url)).json() == {"a": 1}
        assert (await post(client, url)).json() == {"a": 1}
    assert len(connections) == 1


async def test_interim_answers_are_skipped() -> None:
    interim = b"HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n" + ok(b'{"final": 1}')
    async with client_for(lambda n: interim) as (client, url, _):
        assert (await post(client, url)).json() == {"final": 1}


async def test_body_delimited_by_close() -> None:
    until_eof = b"HTTP/1.1 200 OK\r\n\r\n{\"eof\": true}"
    async with client_for(lambda n: until_eof, close_after=True) as (client, url, connections):
        assert (await post(client, url)).json() == {"eof": True}
        assert (await post(client, url)).json() == {"eof": True}
    assert len(connections) == 2


async def test_connection_close_header_is_honoured() -> None:
    closing = ok(b"{}", b"connection: close")
    async with client_for(lambda n: closing, close_after=True) as (client, url, connections):
        await post(client, url)
        await post(client, url)
    assert len(connections) == 2


async def test_a_connection_the_server_closed_while_idle_is_not_reused() -> None:
    async with client_for(lambda n: ok(b"{}"), idle_close=0.05) as (client, url, connections):
        await post(client, url)
        await asyncio.sleep(0.2)
        assert (await post(client, url)).status_code == 200
    assert len(connections) == 2


async def test_compressed_bodies_are_decoded() -> None:
    packed = gzip.compress(b'{"z": 1}')
    async with client_for(lambda n: ok(packed, b"content-encoding: gzip")) as (client, url, _):
        assert (await post(client, url)).json() == {"z": 1}


@pytest.mark.parametrize("raw", [b"garbage\r\n\r\n", b"HTTP/1.1 200 OK\r\nbroken header\r\n\r\n",
                                 b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{}"])
async def test_malformed_or_truncated_responses_are_protocol_errors(raw: bytes) -> None:
    async with client_for(lambda n: raw, close_after=True) as (client, url, _):
        with pytest.raises(httpx.RemoteProtocolError):
            await post(client, url)


async def test_refused_connections_are_connect_errors() -> None:
    async with httpx.AsyncClient(transport=KeepAliveTransport()) as client:
        with pytest.raises(httpx.ConnectError):
            await client.post("http://127.0.0.1:9/", content=b"x")


def test_proxies_select_httpx_own_transport() -> None:
    assert lean_transport_allowed({})
    assert not lean_transport_allowed({"HTTPS_PROXY": "http://proxy:3128"})
    assert not lean_transport_allowed({"all_proxy": "socks5://p"})
