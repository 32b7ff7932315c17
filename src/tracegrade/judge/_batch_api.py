"""The OpenAI-compatible Batch API: a JSONL file of requests uploaded, a batch made of it, polled, read back.

``POST /files`` (multipart, ``purpose=batch``), ``POST /batches``, ``GET /batches/{id}``, ``GET /batches``
(to find a batch whose creation was not answered), ``GET /files/{id}/content`` and ``POST /batches/{id}/cancel``,
under the judge's base URL (``.../v1``). Failures leave as :class:`~tracegrade.errors.JudgeError` with a safe
code (``http_status_<n>``, ``timeout``, ``transport_error``, ``tls_error``, ``invalid_json``); no body, URL or
key reaches an error. Reads are retried a few times; an upload or a creation is not (the caller records what it
made before it goes on, so that nothing is paid twice).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from tracegrade._io import JsonProblem, loads
from tracegrade.errors import JudgeError
from tracegrade.judge._request import dumps
from tracegrade.judge._settings import Endpoint, JudgeSettings, chat_completions_url, resolve_endpoint
from tracegrade.judge._transport import PooledSession, failure_code, route_for, tls_context

__all__ = ["FINAL_STATUSES", "BatchClient", "BatchInfo", "batch_line", "parse_line"]

FINAL_STATUSES = frozenset({"completed", "expired", "cancelled", "failed"})
"""Statuses after which a batch changes no more."""
_READ_ATTEMPTS = 3
_TIMEOUT_SECONDS = 300.0
_MAX_BODY_BYTES = 1 << 31
"""Most bytes of an output file read back (a provider caps files at 200 MB)."""


@dataclass(frozen=True, slots=True)
class BatchInfo:
    """What a provider says of one batch."""

    id: str
    status: str
    output_file_id: str | None
    error_file_id: str | None
    counts: Mapping[str, int]
    """``request_counts``: ``total``, ``completed``, ``failed``."""

    @classmethod
    def of(cls, document: Any) -> BatchInfo:
        """Read a batch object; a malformed one is an ``invalid_json`` error."""
        if not isinstance(document, dict) or not isinstance(document.get("id"), str) \
                or not isinstance(document.get("status"), str):
            raise JudgeError("batch API: the answer is not a batch object", code="invalid_json")
        counts: dict[str, Any] = (document["request_counts"] if isinstance(document.get("request_counts"), dict)
                                  else {})
        return cls(document["id"], document["status"], _text(document.get("output_file_id")),
                   _text(document.get("error_file_id")),
                   {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)})


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def batch_line(custom_id: str, url_path: str, body: dict[str, Any]) -> bytes:
    """One line of a batch input file (newline included)."""
    return dumps({"custom_id": custom_id, "method": "POST", "url": url_path, "body": body}) + b"\n"


def parse_line(line: bytes) -> tuple[str, int | None, bytes | None, str | None] | None:
    """``(custom_id, status, body, error code)`` of one output or error line; None for a line without a custom id.

    The body is the chat-completions answer of a line whose ``response.status_code`` is 2xx; otherwise the
    error code is ``http_status_<n>`` for a status, or ``batch_request_error`` for an error without one.
    """
    try:
        document = loads(line)
    except JsonProblem:
        return None
    if not isinstance(document, dict) or not isinstance(document.get("custom_id"), str):
        return None
    response: dict[str, Any] = document["response"] if isinstance(document.get("response"), dict) else {}
    status = response.get("status_code")
    status = status if isinstance(status, int) and not isinstance(status, bool) else None
    body = response.get("body")
    if status is not None and 200 <= status < 300 and document.get("error") is None and isinstance(body, dict):
        return document["custom_id"], status, orjson.dumps(body), None
    code = f"http_status_{status}" if status is not None and not 200 <= status < 300 else "batch_request_error"
    return document["custom_id"], status, None, code


class BatchClient:
    """Calls the Batch API of the judge's provider (open it inside the running event loop).

    Args:
        settings: The judge's settings (base URL; the key comes from ``endpoint``).
        endpoint: The resolved chat URL and Authorization value.
        ca_bundle: PEM file of CA certificates for an ``https`` provider.
        environ: Environment to read the CA bundle variables from.
    """

    def __init__(self, settings: JudgeSettings, endpoint: Endpoint | None = None, *, ca_bundle: str | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        endpoint = endpoint if endpoint is not None else resolve_endpoint(settings, env)
        chat = endpoint.url
        self._base = chat.removesuffix("/chat/completions")
        self.url_path = urlsplit(chat_completions_url(settings.base_url)).path or "/v1/chat/completions"
        """The ``url`` of every batch line (the path of the chat-completions URL)."""
        self._sessions = PooledSession(4, tls_context(chat, ca_bundle, env))
        self._headers = {"accept-encoding": "identity"}
        if endpoint.authorization:
            self._headers["authorization"] = endpoint.authorization

    async def aclose(self) -> None:
        """Close the connections."""
        await self._sessions.aclose()

    async def upload(self, content: bytes, name: str) -> str:
        """Upload a batch input file; its file id. Not retried."""
        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        form.add_field("file", content, filename=name, content_type="application/jsonl")
        document = await self._call("POST", "/files", data=form, attempts=1)
        file_id = document.get("id") if isinstance(document, dict) else None
        if not isinstance(file_id, str) or not file_id:
            raise JudgeError("batch API: the upload was not answered with a file id", code="invalid_json")
        return file_id

    async def create(self, file_id: str, window: str, metadata: Mapping[str, str]) -> BatchInfo:
        """Create a batch of an uploaded file. Not retried."""
        body = {"input_file_id": file_id, "endpoint": self.url_path, "completion_window": window,
                "metadata": dict(metadata)}
        return BatchInfo.of(await self._call("POST", "/batches", json=body, attempts=1))

    async def find(self, file_id: str) -> BatchInfo | None:
        """The batch made of ``file_id`` among the provider's recent batches, if any (its creation's answer lost)."""
        document = await self._call("GET", "/batches?limit=100", attempts=_READ_ATTEMPTS)
        data = document.get("data") if isinstance(document, dict) else None
        for item in data if isinstance(data, list) else []:
            if isinstance(item, dict) and item.get("input_file_id") == file_id:
                return BatchInfo.of(item)
        return None

    async def status(self, batch_id: str) -> BatchInfo:
        """The batch as the provider sees it now."""
        return BatchInfo.of(await self._call("GET", f"/batches/{batch_id}", attempts=_READ_ATTEMPTS))

    async def cancel(self, batch_id: str) -> BatchInfo:
        """Ask the provider to cancel the batch (it ends as ``cancelled``, keeping what finished)."""
        return BatchInfo.of(await self._call("POST", f"/batches/{batch_id}/cancel", attempts=_READ_ATTEMPTS))

    async def content(self, file_id: str) -> bytes:
        """The bytes of an output or error file."""
        raw = await self._call("GET", f"/files/{file_id}/content", attempts=_READ_ATTEMPTS, raw=True)
        assert isinstance(raw, bytes)
        return raw

    async def _call(self, method: str, path: str, *, attempts: int, raw: bool = False, **kwargs: Any) -> Any:
        url = self._base + path
        route = route_for(url)
        for attempt in range(1, attempts + 1):
            failed: tuple[str, bool] | None = None
            status, content = 0, b""
            try:
                async with asyncio.timeout(_TIMEOUT_SECONDS):
                    async with self._sessions.get().request(
                            method, route.url, headers=self._headers | dict(route.headers), proxy=route.proxy,
                            proxy_headers=route.proxy_headers, allow_redirects=False, **kwargs) as response:
                        status = response.status
                        content = await response.content.read(_MAX_BODY_BYTES) if 200 <= status < 300 else b""
            except (TimeoutError, aiohttp.ClientError, OSError) as error:
                failed = failure_code(error) or ("transport_error", True)
            if failed is None and 200 <= status < 300:
                if raw:
                    return content
                try:
                    return loads(content)
                except JsonProblem:
                    raise JudgeError("batch API: the answer is not JSON", code="invalid_json") from None
            code, retryable = failed or (f"http_status_{status}", status == 429 or status >= 500)
            if not retryable or attempt == attempts:
                raise JudgeError(f"batch API call failed: {code}", code=code)
            await asyncio.sleep(2.0 ** attempt)
        raise AssertionError("unreachable")  # pragma: no cover

