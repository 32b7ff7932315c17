"""The review server: one page and a small JSON API over a finished judge run, on loopback, behind a token.

Every request must start with ``/<token>/`` (403 otherwise) and name this server as its host; answers
must be JSON posted from the page's own origin. Nothing is read from disk but the run's results, the
files its manifest lists and the labels file. Every response forbids framing and caching, and the page
runs only its own inline script (a fresh nonce each time it is served; no outside fonts or scripts).
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiohttp import web

from tracegrade.atif.reviewing._append import Conflict
from tracegrade.atif.reviewing._state import ReviewState
from tracegrade.errors import InputError, OutputError
from tracegrade.render import render_html

__all__ = ["build_app", "page_policy", "serve_review"]

_MAX_BODY = 64 * 1024
_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
}
_API_POLICY = "default-src 'none'; frame-ancestors 'none'"
_FILE_POLICY = "sandbox allow-scripts; default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; " \
               "img-src data:; frame-ancestors 'none'"
"""A run's own report pages: their inline script runs in an opaque origin that cannot reach the API."""


def page_policy(nonce: str) -> str:
    """The page's Content-Security-Policy: its own inline script and style (by nonce) and calls to this server."""
    return (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
            "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def build_app(server: ReviewState, token: str, hosts: set[str]) -> web.Application:
    """The aiohttp application over ``server``: the page, its API and the run's listed files, under ``token``.

    ``hosts`` are the ``Host`` headers accepted (filled in once the port is bound; while empty, any).
    """
    prefix = f"/{token}"

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            response = await _guarded(request, handler)
        except web.HTTPException as exc:
            response = web.Response(status=exc.status, text=exc.text, headers=exc.headers)
        for name, value in _HEADERS.items():
            response.headers.setdefault(name, value)
        response.headers.setdefault("Content-Security-Policy", _API_POLICY)
        return response

    async def _guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
        first = request.raw_path.split("?", 1)[0].split("/", 2)[1] if request.raw_path.startswith("/") else ""
        if not hmac.compare_digest(first.encode(), token.encode()):
            raise web.HTTPForbidden(text="forbidden: open the address tracegrade review printed (it holds the token)\n")
        if hosts and request.headers.get("Host", "") not in hosts:
            raise web.HTTPForbidden(text="forbidden: unknown host\n")
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin is not None and origin.removeprefix("http://") not in hosts:
                raise web.HTTPForbidden(text="forbidden: another origin\n")
            if request.content_type != "application/json":
                raise web.HTTPUnsupportedMediaType(text="send JSON\n")
        return await handler(request)

    async def page(request: web.Request) -> web.StreamResponse:
        if not request.path.endswith("/"):
            raise web.HTTPFound(f"{prefix}/")
        nonce = secrets.token_urlsafe(18)
        html = render_html("atif_review.html", title="Review the judge", nonce=nonce,
                           subtitle=f"job {server.results.job_id}")
        response = web.Response(text=html, content_type="text/html", charset="utf-8")
        response.headers["Content-Security-Policy"] = page_policy(nonce)
        return response

    async def state(request: web.Request) -> web.StreamResponse:
        return await _respond(lambda: {})

    async def figures(request: web.Request) -> web.StreamResponse:
        loop = asyncio.get_running_loop()
        try:  # in a thread of their own: answers go on while the bootstrap runs
            labels = await asyncio.to_thread(server.labels.read)
            return web.json_response(await loop.run_in_executor(bootstrap, server.figures, labels))
        except (InputError, OutputError) as exc:
            return web.json_response({"error": exc.message}, status=500)

    async def answer(request: web.Request) -> web.StreamResponse:
        body = await _body(request)
        return await _respond(lambda: server.answer(body))

    async def skip(request: web.Request) -> web.StreamResponse:
        body = await _body(request)
        return await _respond(lambda: server.skip(body))

    async def undo(request: web.Request) -> web.StreamResponse:
        await _body(request)
        return await _respond(server.undo)

    one_at_a_time = asyncio.Lock()

    async def _respond(action: Callable[[], dict[str, Any]]) -> web.StreamResponse:
        try:
            async with one_at_a_time:  # the session changes in worker threads, one request after another
                done = await asyncio.to_thread(action)
                labels = await asyncio.to_thread(server.labels.read)
                payload = {**done, "state": await asyncio.to_thread(server.state, labels)}
        except ValueError as exc:
            return web.json_response({"error": str(exc)}, status=400)
        except Conflict as exc:
            return web.json_response({"error": str(exc)}, status=409)
        except (InputError, OutputError) as exc:
            return web.json_response({"error": exc.message}, status=500)
        return web.json_response(payload)

    async def files(request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        listed = server.run.manifest.get("files", {})
        folder = server.run.folder.resolve()
        target = (folder / name).resolve()
        if name not in listed or not target.is_relative_to(folder) or not target.is_file():
            raise web.HTTPNotFound(text="not a file of this run\n")
        data = await asyncio.to_thread(target.read_bytes)
        if target.suffix == ".html":
            response = web.Response(body=data, content_type="text/html", charset="utf-8")
            response.headers["Content-Security-Policy"] = _FILE_POLICY
        elif target.suffix == ".json":
            response = web.Response(body=data, content_type="application/json")
        else:
            response = web.Response(body=data, content_type="application/octet-stream")
            response.headers["Content-Disposition"] = "attachment"
        return response

    bootstrap = ThreadPoolExecutor(1, thread_name_prefix="review-figures")

    async def close_bootstrap(app: web.Application) -> None:
        bootstrap.shutdown(wait=False, cancel_futures=True)

    app = web.Application(middlewares=[guard], client_max_size=_MAX_BODY)
    app.on_cleanup.append(close_bootstrap)
    app.router.add_get(prefix, page)
    app.router.add_get(f"{prefix}/", page)
    app.router.add_get(f"{prefix}/api/state", state)
    app.router.add_get(f"{prefix}/api/figures", figures)
    app.router.add_post(f"{prefix}/api/answer", answer)
    app.router.add_post(f"{prefix}/api/skip", skip)
    app.router.add_post(f"{prefix}/api/undo", undo)
    app.router.add_get(prefix + "/files/{name:.+}", files)
    return app


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise web.HTTPBadRequest(text="the body is not JSON\n") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="the body must be a JSON object\n")
    return body


async def serve_review(state: ReviewState, *, ready: Callable[[str], None], stop: asyncio.Event,
                       host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve the review page over ``state`` on ``host`` (a free port unless ``port`` is given) until ``stop`` is set.

    ``ready`` receives the page's address, holding a new random token, once the socket listens.

    Raises:
        OutputError: the port cannot be bound.
    """
    token, hosts = secrets.token_urlsafe(24), set[str]()
    runner = web.AppRunner(build_app(state, token, hosts), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            raise OutputError(f"{host}:{port}: cannot listen there ({exc.strerror or exc})") from None
        bound = runner.addresses[0][1]
        hosts.update({f"{host}:{bound}", f"localhost:{bound}"})
        ready(f"http://{host}:{bound}/{token}/")
        await stop.wait()
    finally:
        await runner.cleanup()
