"""The judge's HTTP plumbing against real loopback servers: framing, HTTP/1.0, TLS and proxies."""

from __future__ import annotations

import asyncio
import base64
import gzip
import socket
import ssl
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
from yarl import URL

from tests.conftest import judge_settings, unavailable
from tracegrade.errors import ConfigError, JudgeError
from tracegrade.judge import (
    JudgeRequest,
    JudgeSettings,
    JudgeStats,
    JudgeTelemetry,
    ResponseFormat,
    chat_completions_url,
)
from tracegrade.judge._client import ChatClient
from tracegrade.judge._settings import Endpoint
from tracegrade.judge._transport import PooledSession, failure_code, route_for, tls_context
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply

CHAT = orjson.dumps({"choices": [{"message": {"role": "assistant", "content": "ok"}}]})
REQUEST = JudgeRequest(purpose="check", messages=({"role": "user", "content": "hello"},),
                       response_schema={"type": "object"}, template_hash="t")
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "REQUEST_METHOD")

Respond = Callable[[int], bytes]
"""Raw response bytes for the n-th request on a connection."""


def ok(body: bytes, *extra: bytes, version: bytes = b"HTTP/1.1") -> bytes:
    head = [version + b" 200 OK", b"content-length: " + str(len(body)).encode(), *extra]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


async def ask(url: str, calls: int = 1, *, concurrency: int = 1, ca_bundle: str | None = None,
              environ: dict[str, str] | None = None, **changes: Any) -> tuple[list[str], JudgeStats]:
    """The content of each answer, or its error code, and the client's counters."""
    options: dict[str, Any] = {"judge_timeout_seconds": 5.0, "judge_initial_backoff_seconds": 0.001,
                               "response_format": ResponseFormat.NONE, "concurrency_limit": concurrency, **changes}
    settings = judge_settings(url, "m", **options)
    stats = JudgeStats()
    client = ChatClient(settings, Endpoint(chat_completions_url(url)), stats, JudgeTelemetry(),
                        ca_bundle=ca_bundle, environ=environ or {})

    async def one() -> str:
        try:
            return (await client.complete(REQUEST)).content
        except JudgeError as error:
            return error.code

    try:
        return list(await asyncio.gather(*(one() for _ in range(calls)))), stats
    finally:
        await client.aclose()


@asynccontextmanager
async def raw_server(respond: Respond, *, close_after: bool = False, idle_close: float | None = None,
                     tls: ssl.SSLContext | None = None, hold: float = 0.0) -> AsyncIterator[tuple[str, list[int]]]:
    """Answers each request with ``respond(n)``; yields the base URL and requests served per connection."""
    connections: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(0)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length")), 0)
                await reader.readexactly(length)
                writer.write(respond(connections[-1]))
                await writer.drain()
                connections[-1] += 1
                await asyncio.sleep(hold)
                if close_after:
                    break
                if idle_close is not None:
                    await asyncio.sleep(idle_close)
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}", connections
    finally:
        server.close()


async def test_keep_alive_reuses_one_connection() -> None:
    async with raw_server(lambda n: ok(CHAT)) as (url, connections):
        answers, stats = await ask(url, 3)
    assert answers == ["ok"] * 3
    assert (connections, stats.requests) == ([3], 3)  # one connection carried the three calls


async def test_chunked_body_with_extensions_and_trailers() -> None:
    half = len(CHAT) // 2
    chunked = (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
               + b"%x;ext=1\r\n%s\r\n%x\r\n%s\r\n0\r\nx-trailer: y\r\n\r\n"
               % (half, CHAT[:half], len(CHAT) - half, CHAT[half:]))
    async with raw_server(lambda n: chunked) as (url, connections):
        answers, stats = await ask(url, 2)
    assert answers == ["ok", "ok"]
    assert (connections, stats.transport_errors) == ([2], 0)


async def test_interim_answers_are_skipped() -> None:
    interim = b"HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n" + ok(CHAT)
    async with raw_server(lambda n: interim) as (url, connections):
        assert (await ask(url, 2))[0] == ["ok", "ok"]
    assert connections == [2]


async def test_compressed_bodies_are_decoded() -> None:
    async with raw_server(lambda n: ok(gzip.compress(CHAT), b"content-encoding: gzip")) as (url, _):
        assert (await ask(url))[0] == ["ok"]


@pytest.mark.parametrize("response", [ok(CHAT, b"connection: close"), ok(CHAT, version=b"HTTP/1.0"),
                                      b"HTTP/1.0 200 OK\r\n\r\n" + CHAT])
async def test_servers_that_close_after_each_answer_cause_no_transport_error(response: bytes) -> None:
    async with raw_server(lambda n: response, close_after=True) as (url, connections):
        answers, stats = await ask(url, 6, concurrency=2)
    assert answers == ["ok"] * 6
    assert (stats.transport_errors, stats.retries, len(connections)) == (0, 0, 6)


async def test_a_connection_the_server_closed_while_idle_is_not_reused() -> None:
    async with raw_server(lambda n: ok(CHAT), idle_close=0.05) as (url, connections):
        settings = JudgeSettings(base_url=url, model="m", response_format=ResponseFormat.NONE)
        stats = JudgeStats()
        client = ChatClient(settings, Endpoint(chat_completions_url(url)), stats, JudgeTelemetry(), environ={})
        try:
            await client.complete(REQUEST)
            await asyncio.sleep(0.2)
            assert (await client.complete(REQUEST)).content == "ok"
        finally:
            await client.aclose()
    assert (len(connections), stats.transport_errors) == (2, 0)


@pytest.mark.parametrize("raw", [b"garbage\r\n\r\n", b"HTTP/1.1 200 OK\r\nbroken header\r\n\r\n",
                                 b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{}"])
async def test_malformed_or_truncated_responses_are_transport_errors(raw: bytes) -> None:
    async with raw_server(lambda n: raw, close_after=True) as (url, _):
        answers, stats = await ask(url, judge_max_attempts=2)
    assert answers == ["transport_error"]
    assert (stats.requests, stats.transport_errors, stats.retries) == (2, 2, 1)


async def test_a_declared_oversized_body_is_refused_before_it_is_read() -> None:
    head = b"HTTP/1.1 200 OK\r\ncontent-length: 100000000\r\n\r\n{"  # the rest never comes
    async with raw_server(lambda n: head, hold=10) as (url, _):
        answers, stats = await ask(url)
    assert answers == ["response_too_large"]  # a client that waited for the body would end in timeout
    assert (stats.requests, stats.retries) == (1, 0)


async def test_an_oversized_chunked_body_is_cut_at_the_limit() -> None:
    chunk = b"x" * 16384
    body = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + b"4000\r\n%s\r\n" % chunk * 8 + b"0\r\n\r\n"
    async with raw_server(lambda n: body) as (url, _):
        assert (await ask(url))[0] == ["response_too_large"]


async def test_the_deadline_covers_reading_the_body() -> None:
    head = b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"  # the rest never comes
    async with raw_server(lambda n: head, hold=10) as (url, _):
        answers, stats = await ask(url, judge_timeout_seconds=0.3, judge_max_attempts=2)
    assert answers == ["timeout"]  # without the deadline the body would be cut when the server closes: transport_error
    assert (stats.requests, stats.transport_errors, stats.retries) == (2, 2, 1)


async def test_redirects_are_not_followed() -> None:
    async with raw_server(lambda n: ok(CHAT)) as (elsewhere, connections):
        moved = b"HTTP/1.1 307 Temporary Redirect\r\nlocation: %s/v1/chat/completions\r\ncontent-length: 0\r\n\r\n"
        async with raw_server(lambda n: moved % elsewhere.encode()) as (url, _):
            answers, stats = await ask(url)
    assert answers == ["http_status_307"]  # the request and its key go nowhere else
    assert (connections, stats.retries) == ([], 0)


@contextmanager
def http10_server() -> Iterator[tuple[str, list[str]]]:
    """Python's stdlib server speaking HTTP/1.0: one request per connection, closed after the answer."""
    paths: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            paths.append(self.path)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(CHAT)))
            self.end_headers()
            self.wfile.write(CHAT)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
    server.request_queue_size = 64  # the default backlog of 5 drops SYNs under 8 parallel connects (1 s stalls)
    server.server_bind()
    server.server_activate()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", paths
    finally:
        server.shutdown()
        server.server_close()


async def test_an_http10_judge_answers_30_requests_without_transport_errors() -> None:
    with http10_server() as (url, paths):
        answers, stats = await ask(url, 30, concurrency=8)
    assert answers == ["ok"] * 30
    assert (stats.requests, stats.transport_errors, stats.retries, len(paths)) == (30, 0, 0, 30)


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and judge.test signed by its own key, and that key (PEM files)."""
    try:
        import ipaddress
        from datetime import UTC, datetime, timedelta

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        unavailable("the cryptography package is needed to make a test certificate")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tracegrade test judge")])
    now = datetime.now(UTC)
    usage = x509.KeyUsage(digital_signature=True, key_cert_sign=True, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False, crl_sign=False,
                          encipher_only=False, decipher_only=False)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5)).not_valid_after(now + timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                    x509.DNSName("judge.test")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(usage, critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "judge.pem", folder / "judge.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, ssl.SSLContext]:
    cert_path, key_path = self_signed_certificate(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_path, key_path)
    return cert_path, context


async def test_an_untrusted_certificate_is_refused_once_with_a_safe_code(
        certificate: tuple[Path, ssl.SSLContext]) -> None:
    _, server_tls = certificate
    async with raw_server(lambda n: ok(CHAT), tls=server_tls) as (url, connections):
        answers, stats = await ask(url, judge_max_attempts=3)
    assert answers == ["tls_error"]  # not retried: the certificate will not become trusted
    assert (stats.requests, stats.transport_errors, stats.retries) == (1, 1, 0)
    assert sum(connections) == 0  # no request got through


async def test_a_ca_bundle_makes_the_certificate_trusted(certificate: tuple[Path, ssl.SSLContext]) -> None:
    cert_path, server_tls = certificate
    async with raw_server(lambda n: ok(CHAT), tls=server_tls) as (url, connections):
        assert (await ask(url, 2, ca_bundle=str(cert_path)))[0] == ["ok", "ok"]
        assert (await ask(url, environ={"REQUESTS_CA_BUNDLE": str(cert_path)}))[0] == ["ok"]
        assert (await ask(url, environ={"SSL_CERT_FILE": str(cert_path)}))[0] == ["ok"]
    assert connections == [2, 1, 1]


def test_an_unreadable_ca_bundle_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        tls_context("https://judge.example/v1", None, {"REQUESTS_CA_BUNDLE": str(tmp_path / "missing.pem")})
    assert caught.value.code == "invalid_ca_bundle"
    assert "REQUESTS_CA_BUNDLE" in str(caught.value)
    assert tls_context("http://judge.example/v1", "/no/such/file", {}) is True  # plain HTTP needs no trust


async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    except ConnectionError:
        pass
    finally:
        sink.close()


async def tunnel(target: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """``CONNECT host:port``: pipe bytes both ways (the TLS session runs end to end)."""
    _, port = target.decode().rsplit(":", 1)
    upstream_reader, upstream = await asyncio.open_connection("127.0.0.1", int(port))
    writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
    await asyncio.gather(pipe(reader, upstream), pipe(upstream_reader, writer))


async def forward(lines: list[bytes], reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """An absolute-URL request: send it on with a path-only target, relay the answer, close."""
    method, target, _ = lines[0].split(b" ")
    length = next(int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length"))
    body = await reader.readexactly(length)
    url = URL(target.decode())
    kept = [line for line in lines[1:] if not line.lower().startswith((b"proxy-", b"connection"))]
    upstream_reader, upstream = await asyncio.open_connection("127.0.0.1", url.port)
    first = b"%s %s HTTP/1.1" % (method, url.raw_path_qs.encode())
    upstream.write(b"\r\n".join([first, *kept, b"connection: close"]) + b"\r\n\r\n" + body)
    answer = await upstream_reader.read()  # the server closes after its answer
    upstream.close()
    status_end = answer.index(b"\r\n")
    writer.write(answer[:status_end] + b"\r\nconnection: close" + answer[status_end:])
    await writer.drain()


@asynccontextmanager
async def forward_proxy() -> AsyncIterator[tuple[str, list[bytes]]]:
    """An HTTP forward proxy (one request per connection, or a CONNECT tunnel); yields its URL and request heads.

    It sends everything to 127.0.0.1, whatever the host: the tests name a judge host that does not
    resolve (``judge.test``), so an answer can only have come through the proxy.
    """
    heads: list[bytes] = []

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            heads.append(head)
            lines = head.split(b"\r\n")[:-2]
            method, target, _ = lines[0].split(b" ")
            if method == b"CONNECT":
                await tunnel(target, reader, writer)
            else:
                await forward(lines, reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", heads
    finally:
        server.close()


@pytest.fixture
def clean_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in PROXY_VARIABLES:  # lower-case names win over upper-case ones in urllib's lookup
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    return monkeypatch


def via_judge_test(url: str) -> str:
    """The same server under the unresolvable host name ``judge.test``."""
    return url.replace("127.0.0.1", "judge.test")


async def test_requests_go_through_the_proxy_the_environment_names(clean_proxy_env: pytest.MonkeyPatch) -> None:
    with ScriptedJudgeServer(lambda _: ScriptedReply.text("via proxy")) as judge:
        async with forward_proxy() as (proxy_url, heads):
            clean_proxy_env.setenv("HTTP_PROXY", proxy_url.replace("http://", "http://user:pw@"))
            answers, stats = await ask(via_judge_test(judge.base_url), 3)
    assert answers == ["via proxy"] * 3
    assert stats.transport_errors == 0
    assert [head.split(b"\r\n")[0] for head in heads] == [
        f"POST {via_judge_test(judge.base_url)}/v1/chat/completions HTTP/1.1".encode()] * 3
    assert all(b"proxy-authorization: basic dxnlcjpwdw==" in head.lower() for head in heads)
    assert judge.count == 3


async def test_a_judge_on_loopback_is_reached_directly(clean_proxy_env: pytest.MonkeyPatch) -> None:
    with ScriptedJudgeServer(lambda _: ScriptedReply.text("direct")) as judge:
        async with forward_proxy() as (proxy_url, heads):
            clean_proxy_env.setenv("HTTP_PROXY", proxy_url)  # and no NO_PROXY: a proxy cannot reach our loopback
            assert (await ask(judge.base_url))[0] == ["direct"]
            assert (await ask(judge.base_url.replace("127.0.0.1", "localhost")))[0] == ["direct"]
    assert (heads, judge.count) == ([], 2)


def test_no_proxy_excludes_hosts(clean_proxy_env: pytest.MonkeyPatch) -> None:
    clean_proxy_env.setenv("HTTP_PROXY", "http://proxy.example:3128")
    assert route_for("http://judge.example/v1").proxy == URL("http://proxy.example:3128")
    clean_proxy_env.setenv("NO_PROXY", "other.example,judge.example")
    assert route_for("http://judge.example/v1").proxy is None
    assert route_for("http://judge.internal/v1").proxy == URL("http://proxy.example:3128")


async def test_an_https_judge_is_reached_through_a_connect_tunnel(
        clean_proxy_env: pytest.MonkeyPatch, certificate: tuple[Path, ssl.SSLContext]) -> None:
    cert_path, server_tls = certificate
    async with raw_server(lambda n: ok(CHAT), tls=server_tls) as (url, connections), forward_proxy() as (proxy, heads):
        clean_proxy_env.setenv("HTTPS_PROXY", proxy.replace("http://", "http://user:pw@"))
        answers, stats = await ask(via_judge_test(url), 2, ca_bundle=str(cert_path))
    assert answers == ["ok", "ok"]
    target = via_judge_test(url).removeprefix("https://")
    assert [head.split(b"\r\n")[0] for head in heads] == [f"CONNECT {target} HTTP/1.1".encode()]
    assert b"proxy-authorization: basic dxnlcjpwdw==" in heads[0].lower()
    assert (connections, stats.transport_errors) == ([2], 0)  # one tunnel, kept alive for both calls


def test_the_route_keeps_proxy_credentials_out_of_its_repr(clean_proxy_env: pytest.MonkeyPatch) -> None:
    clean_proxy_env.setenv("HTTPS_PROXY", "http://user:s3cret@proxy.example:3128")
    route = route_for("https://judge.example/v1/chat/completions")
    assert route.proxy == URL("http://proxy.example:3128")
    assert route.proxy_headers == {"Proxy-Authorization": "Basic " + base64.b64encode(b"user:s3cret").decode()}
    assert "s3cret" not in repr(route)
    assert route_for("http://judge.example/v1").proxy is None  # HTTPS_PROXY does not cover plain HTTP


@pytest.mark.parametrize(
    ("error", "expected"),
    [(TimeoutError(), ("timeout", True)), (aiohttp.ServerDisconnectedError(), ("transport_error", True)),
     (ConnectionResetError(), ("transport_error", True)),
     (ssl.SSLCertVerificationError("untrusted"), ("tls_error", False)), (ValueError("bug"), None),
     (socket.gaierror(-2, "Name or service not known"), ("dns_error", True))],
)
def test_failures_map_to_safe_codes(error: BaseException, expected: tuple[str, bool] | None) -> None:
    assert failure_code(error) == expected


def test_the_pooled_session_is_kept_until_closed_then_opened_again() -> None:
    async def main() -> None:
        pool = PooledSession(2, False)
        first = pool.get()
        assert pool.get() is first and first.connector is not None and first.connector.limit == 2
        await pool.aclose()
        assert first.closed
        second = pool.get()
        assert second is not first and not second.closed
        await pool.aclose()
        await pool.aclose()  # closing twice is harmless

    asyncio.run(main())
