"""The review server: one page and a small JSON API over a finished judge run, on loopback, behind a token.

Every request must start with ``/<token>/`` (403 otherwise) and name this server as its host; answers
must be JSON posted from the page's own origin. Nothing is read from disk but the run's results, the
files its manifest lists and the labels file. Every response forbids framing and caching, and the page
runs only its own inline script (a fresh nonce each time it is served; no outside fonts or scripts).
"""

from __future__ import annotations

import asyncio
import hmac
import math
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web

from tracegrade.atif.agreement._labels import LABEL_CATEGORIES, Label, of_reviewer
from tracegrade.atif.reviewing._append import Conflict, LabelsFile, retraction_of
from tracegrade.atif.reviewing._figures import review_figures
from tracegrade.atif.reviewing._items import RunIndex, answer_view, item_view, judge_view
from tracegrade.atif.reviewing._queue import ReviewOrder, order_description, review_queue
from tracegrade.atif.reviewing._run import ReviewedRun
from tracegrade.atif.reviewing._session import Key, ReviewSession, answered_steps
from tracegrade.errors import InputError, OutputError
from tracegrade.render import render_html

__all__ = ["MAX_NOTE_CHARS", "ReviewServer", "ReviewSettings", "build_app", "page_policy", "serve_review"]

MAX_NOTE_CHARS = 4000
"""Longest note a reviewer may attach to an answer."""
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


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """What ``tracegrade review`` was asked for."""

    labels: Path
    reviewer: str
    order: ReviewOrder = ReviewOrder.LOWEST
    seed: int = 0
    blind: bool = False
    resamples: int = 2000
    level: float = 0.95


class ReviewServer:
    """The state behind the page: the run, the queue, the labels file and this reviewer's session."""

    def __init__(self, run: ReviewedRun, settings: ReviewSettings, token: str | None = None) -> None:
        self.run, self.settings = run, settings
        self.token = token or secrets.token_urlsafe(24)
        self.results = run.results
        self.threshold = run.results.parameters.failure_threshold
        self.index = RunIndex(run.results.nodes)
        self.queue = review_queue(run.results.nodes, settings.order, failure_threshold=self.threshold,
                                  seed=settings.seed)
        self.by_key = {step.key: step for step in self.queue}
        self.session = ReviewSession(self.queue)
        self.labels = LabelsFile(settings.labels)
        self.hosts: set[str] = set()
        self._figures: tuple[tuple[Label, ...], dict[str, Any]] | None = None

    # -- state -------------------------------------------------------------------------------------------------

    def mine(self, labels: tuple[Label, ...]) -> dict[Key, Label]:
        """The standing step labels of the server's reviewer, by step."""
        return answered_steps(self.results, of_reviewer(labels, self.settings.reviewer))

    def state(self, labels: tuple[Label, ...]) -> dict[str, Any]:
        """Everything the page shows, for the labels read just now."""
        answered = self.mine(labels)
        current = self.session.current(answered)
        item = None
        if current is not None:
            found = self.index.step(*current.key)
            assert found is not None
            blind = self.settings.blind  # the reason a step is contested would tell the verdict too
            item = item_view(self.index, *found, reveal=not blind, failure_threshold=self.threshold,
                             position=self.session.positions[current.key],
                             contested=None if blind else current.contested)
        in_queue = [key for key in answered if key in self.by_key]
        return {
            "reviewer": self.settings.reviewer,
            "blind": self.settings.blind,
            "order": {"name": self.settings.order.value, "seed": self.settings.seed,
                      "description": order_description(self.settings.order, self.settings.seed)},
            "run": {"job_id": self.results.job_id, "created_at": self.results.created_at,
                    "folder": str(self.run.folder),
                    "judge": self.results.parameters.atif_judge, "failure_threshold": self.threshold,
                    "steps": len(self.queue),
                    "report": not self.settings.blind and "report.html" in self.run.manifest.get("files", {})},
            "labels_file": str(self.settings.labels),
            "progress": {"total": len(self.queue), "answered": len(in_queue),
                         "skipped": len([k for k in self.session.skipped if k not in answered])},
            "item": item,
            "draft": self.session.draft if current is not None and current.key == self.session.focus else None,
            "taxonomy": list(LABEL_CATEGORIES),
        }

    def figures(self, labels: tuple[Label, ...]) -> dict[str, Any]:
        """The agreement figures for ``labels`` (computed again only when the labels changed)."""
        cached = self._figures
        if cached is not None and cached[0] == labels:
            return cached[1]
        figures = review_figures(self.results, labels, self.settings.reviewer, labels_file=str(self.settings.labels),
                                 resamples=self.settings.resamples, level=self.settings.level)
        self._figures = (labels, figures)
        return figures

    # -- answers -----------------------------------------------------------------------------------------------

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """Append the reviewer's answer for one step; the judge's verdict on it comes back with the new state.

        Raises:
            ValueError: the answer is malformed.
            Conflict: the step is answered already, or another step of its trajectory is the decisive one.
        """
        key = self._key(body)
        values = _verdict(body)
        reviewer = self.settings.reviewer

        def check(standing: tuple[Label, ...]) -> dict[str, Any]:
            mine = self.mine(standing)
            if key in mine:
                raise Conflict("this step already has your answer (undo it to answer again)")
            if values.get("decisive"):
                other = next((k for k, label in mine.items() if k[0] == key[0] and label.decisive), None)
                if other is not None:
                    raise Conflict(f"step {other[1]} of this trajectory is already your decisive step (undo it first)")
            extra: dict[str, Any] = {"tool": "tracegrade review", "order": self.settings.order.value,
                                     "answered_at": datetime.now(UTC).replace(microsecond=0).isoformat()}
            if self.settings.order is ReviewOrder.RANDOM:
                extra["seed"] = self.settings.seed
            return {"node_id": key[0], "step": key[1], "reviewer": reviewer, **values, "extra": extra}

        written = self.labels.append(check)
        self.session.answered_one()
        found = self.index.step(*key)
        assert found is not None
        return {"saved": written.line, "revealed": judge_view(*found, self.threshold), "key": list(key)}

    def skip(self, body: dict[str, Any]) -> dict[str, Any]:
        """Move a step to the back of the queue.

        Raises:
            ValueError: not a step of the queue.
        """
        key = self._key(body)
        self.session.skip(key)
        return {"skipped": list(key)}

    def undo(self) -> dict[str, Any]:
        """Take back the latest skip of this session, else withdraw this reviewer's latest standing label.

        Raises:
            Conflict: nothing to undo.
        """
        skipped = self.session.unskip()
        if skipped is not None:
            return {"undone": "skip", "key": list(skipped)}
        withdrawn: list[Label] = []

        def check(standing: tuple[Label, ...]) -> dict[str, Any]:
            mine = of_reviewer(standing, self.settings.reviewer)
            if not mine:
                raise Conflict("nothing to undo: you have no answers in the labels file")
            latest = max(mine, key=lambda label: label.line)
            withdrawn.append(latest)
            return retraction_of(latest)

        self.labels.append(check)
        label = withdrawn[0]
        keys = [k for k, v in answered_steps(self.results, [label]).items() if v is label]
        key = keys[0] if keys else None
        self.session.returned_to(key, answer_view(label))
        return {"undone": "answer", "key": None if key is None else list(key), "line": label.line}

    def _key(self, body: dict[str, Any]) -> Key:
        node_id, step = body.get("node_id"), body.get("step")
        if not isinstance(node_id, str) or type(step) is not int or (node_id, step) not in self.by_key:
            raise ValueError("node_id and step must name a step of the review queue")
        return (node_id, step)


def _verdict(body: dict[str, Any]) -> dict[str, Any]:
    """The verdict fields of an answer, checked (at least one of failed, score, category, decisive)."""
    allowed = {"node_id", "step", "failed", "score", "category", "decisive", "note"}
    if unknown := sorted(set(body) - allowed):
        raise ValueError(f"unknown fields: {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for name in ("failed", "decisive"):
        if body.get(name) is not None:
            if not isinstance(body[name], bool):
                raise ValueError(f"{name} must be true or false")
            values[name] = body[name]
    score = body.get("score")
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score) \
                or not 0 <= score <= 1:
            raise ValueError("score must be a number from 0 to 1")
        values["score"] = float(score)
    category = body.get("category")
    if category is not None:
        if category not in LABEL_CATEGORIES:
            raise ValueError(f"category must be one of {', '.join(LABEL_CATEGORIES)}")
        values["category"] = category
    if not values:
        raise ValueError("give at least one of pass/fail, a score, a category or the decisive mark")
    note = body.get("note")
    if note is not None and note != "":
        if not isinstance(note, str) or len(note) > MAX_NOTE_CHARS:
            raise ValueError(f"note must be text of at most {MAX_NOTE_CHARS} characters")
        values["note"] = note
    return values


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def build_app(server: ReviewServer) -> web.Application:
    """The aiohttp application of ``server``: the page, its API and the run's listed files, under the token."""
    prefix = f"/{server.token}"

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
        if not hmac.compare_digest(first.encode(), server.token.encode()):
            raise web.HTTPForbidden(text="forbidden: open the address tracegrade review printed (it holds the token)\n")
        if server.hosts and request.headers.get("Host", "") not in server.hosts:
            raise web.HTTPForbidden(text="forbidden: unknown host\n")
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin is not None and origin.removeprefix("http://") not in server.hosts:
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


async def serve_review(server: ReviewServer, *, ready: Callable[[str], None], stop: asyncio.Event,
                       host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve ``server`` on ``host`` (a free port unless ``port`` is given) until ``stop`` is set.

    ``ready`` receives the page's address, token included, once the socket listens.

    Raises:
        OutputError: the port cannot be bound.
    """
    runner = web.AppRunner(build_app(server), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            raise OutputError(f"{host}:{port}: cannot listen there ({exc.strerror or exc})") from None
        bound = runner.addresses[0][1]
        server.hosts = {f"{host}:{bound}", f"localhost:{bound}"}
        ready(f"http://{host}:{bound}/{server.token}/")
        await stop.wait()
    finally:
        await runner.cleanup()
