"""Loopback servers and process helpers for the integration tests."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Recorder(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.posts: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    server: _Recorder

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        with self.server.lock:
            self.server.posts.append((self.path, body))
        self.send_response(204 if self.path.endswith("/events") else 200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


@contextlib.contextmanager
def recording_server() -> Iterator[_Recorder]:
    """A loopback HTTP server that answers every POST and keeps (path, body)."""
    server = _Recorder()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def url_of(server: _Recorder) -> str:
    host, port = server.server_address[:2]
    return f"http://{host!s}:{port}"


def events(server: _Recorder) -> list[dict[str, Any]]:
    """The benchmark status events posted to an EvalHub events endpoint, in order."""
    with server.lock:
        posts = list(server.posts)
    return [json.loads(body)["benchmark_status_event"] for path, body in posts if path.endswith("/events")]


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate a process started with start_new_session=True, with its children; kill after a grace period."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # children that outlived their parent


def wait_http(url: str, process: subprocess.Popen[bytes], timeout: float, log: str = "") -> None:
    """Wait until GET ``url`` answers 200; fail early when the process exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}: {log}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        time.sleep(0.25)
    raise RuntimeError(f"{url} did not come up in {timeout} s")
