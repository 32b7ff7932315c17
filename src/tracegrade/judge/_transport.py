"""What the judge client needs from aiohttp: a pooled session, the proxy route, TLS trust, error codes.

Proxies follow the usual variables (``HTTP_PROXY``, ``HTTPS_PROXY``, ``NO_PROXY``, lower-case forms too),
read once per judge, except that a judge on this machine (``localhost``, ``127.0.0.0/8``, ``::1``) is always
reached directly: a proxy cannot reach this machine's loopback. ``trust_env`` is not used: its ``~/.netrc``
lookup would clash with the ``Authorization`` header.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from tracegrade.errors import ConfigError

__all__ = ["CA_BUNDLE_VARIABLES", "KEEPALIVE_SECONDS", "PooledSession", "Route", "failure_code", "new_session",
           "route_for", "tls_context"]

KEEPALIVE_SECONDS = 4.0
"""How long an idle connection is kept: below the 5 s idle timeout of common servers (uvicorn), so
the client does not reuse a connection the server is closing at that moment."""
CA_BUNDLE_VARIABLES = ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")
"""Environment variables naming a PEM file of trusted CA certificates, in order of precedence."""


@dataclass(frozen=True, slots=True)
class Route:
    """Where a judge request goes: the URL, and the proxy the environment names for it."""

    url: URL
    proxy: URL | None = None
    """Forward proxy, without the credentials its variable may hold."""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Headers added to each request: ``Proxy-Authorization`` for a plain-HTTP judge behind a proxy."""
    proxy_headers: Mapping[str, str] | None = field(default=None, repr=False)
    """Headers of the ``CONNECT`` request that tunnels to an HTTPS judge (``Proxy-Authorization``)."""


def route_for(url: str) -> Route:
    """The route to ``url``: through the proxy ``HTTP(S)_PROXY`` names unless ``NO_PROXY`` excludes the host.

    A loopback host is always reached directly.
    """
    target = URL(url)
    if _loopback(target.host):
        return Route(target)
    try:
        proxy, auth = get_env_proxy_for_url(target)
    except LookupError:
        return Route(target)
    if auth is None:
        return Route(target, proxy)
    credentials = {"Proxy-Authorization": auth.encode()}  # from the proxy URL, or ~/.netrc for the proxy host
    if target.scheme == "https":
        return Route(target, proxy, proxy_headers=credentials)
    return Route(target, proxy, headers=credentials)


def _loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def tls_context(url: str, ca_bundle: str | None, environ: Mapping[str, str]) -> ssl.SSLContext | bool:
    """How to verify the judge's certificate; ``True`` means the system store (aiohttp's default).

    A CA bundle (``ca_bundle``, else ``REQUESTS_CA_BUNDLE``, else ``SSL_CERT_FILE``) replaces the
    system store, as it does for ``requests`` and OpenSSL. Verification is never turned off.

    Raises:
        ConfigError: when the bundle cannot be read or holds no usable certificate.
    """
    if URL(url).scheme != "https":
        return True
    source, path = _bundle(ca_bundle, environ)
    if path is None:
        return True
    try:
        context = ssl.create_default_context(cafile=path)
    except (OSError, ssl.SSLError):
        raise ConfigError(f"{source}: cannot load CA certificates from {path}", code="invalid_ca_bundle") from None
    context.set_alpn_protocols(["http/1.1"])
    return context


def _bundle(ca_bundle: str | None, environ: Mapping[str, str]) -> tuple[str, str | None]:
    if ca_bundle:
        return "ca_bundle", ca_bundle
    for name in CA_BUNDLE_VARIABLES:
        if value := environ.get(name, "").strip():
            return name, value
    return "", None


def new_session(concurrency: int, tls: ssl.SSLContext | bool) -> aiohttp.ClientSession:
    """A session with ``concurrency`` keep-alive connections; call it inside the running loop.

    Deadlines are the caller's (one ``asyncio.timeout`` per attempt), so aiohttp sets no timer of
    its own; cookies are not kept (judge calls are independent).
    """
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=0, ssl=tls,
                                     keepalive_timeout=KEEPALIVE_SECONDS)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(),
                                 cookie_jar=aiohttp.DummyCookieJar(), trust_env=False)


class PooledSession:
    """One :func:`new_session`, opened on first use (inside the running loop) and again after it was closed."""

    def __init__(self, concurrency: int, tls: ssl.SSLContext | bool) -> None:
        self._concurrency = concurrency
        self._tls = tls
        self._http: aiohttp.ClientSession | None = None

    def get(self) -> aiohttp.ClientSession:
        """The open session."""
        if self._http is None or self._http.closed:
            self._http = new_session(self._concurrency, self._tls)
        return self._http

    async def aclose(self) -> None:
        """Close the pooled connections (a later :meth:`get` opens a new session)."""
        session, self._http = self._http, None
        if session is not None:
            await session.close()


def failure_code(error: BaseException) -> tuple[str, bool] | None:
    """The safe code of a failed attempt and whether another attempt may help; None if not an HTTP failure."""
    if isinstance(error, TimeoutError):
        return "timeout", True
    if isinstance(error, aiohttp.ClientSSLError | ssl.SSLError):
        return "tls_error", False  # an untrusted or mismatched certificate stays so
    if isinstance(error, aiohttp.ClientConnectorDNSError | socket.gaierror) or (
            isinstance(error, aiohttp.ClientConnectorError) and isinstance(error.os_error, socket.gaierror)):
        return "dns_error", True  # the host name did not resolve: nothing was refused
    if isinstance(error, aiohttp.ClientError | OSError):
        return "transport_error", True
    return None
