"""A loopback server that follows the OpenAI Batch API, with a scripted judge answering behind it.

``POST /v1/files`` (multipart, purpose ``batch``), ``POST /v1/batches``, ``GET /v1/batches`` and
``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``, ``GET /v1/files/{id}/content``, and the online
``POST /v1/chat/completions`` (for ``--judge-batch-fallback online``). A batch goes ``validating`` →
``in_progress`` → ``finalizing`` → its planned final status, one step per look; at the end the rule answers its
lines (only the first ``answered`` of an expired or cancelled batch): 2xx answers go to the output file, other
statuses to the error file. The server counts every request it answers (``paid``, by custom id; online ones too).

A stage can be held (``hold("create")``...): the request is read and (for ``create``) acted on, then the answer
waits until ``release()``; ``reached`` is set once a held request arrived, so a test can kill the client there.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from tracegrade.judge.testing import ReceivedRequest, ScriptedReply

Rule = Callable[[ReceivedRequest], ScriptedReply]
_STEPS = ("validating", "in_progress", "finalizing")


@dataclass(frozen=True)
class Plan:
    """How one batch ends: its final status and how many of its lines are answered (None: all)."""

    status: str = "completed"
    answered: int | None = None


@dataclass
class _Batch:
    id: str
    input_file_id: str
    lines: list[dict[str, Any]]
    plan: Plan
    looks: int = 0
    status: str = "validating"
    output_file_id: str | None = None
    error_file_id: str | None = None
    counts: dict[str, int] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        return {"id": self.id, "object": "batch", "endpoint": "/v1/chat/completions", "status": self.status,
                "input_file_id": self.input_file_id, "output_file_id": self.output_file_id,
                "error_file_id": self.error_file_id, "completion_window": "24h",
                "request_counts": self.counts or {"total": len(self.lines), "completed": 0, "failed": 0}}


class BatchServer:
    """The Batch API on loopback in a background thread; ``plans`` gives each new batch (in order) its plan."""

    def __init__(self, rule: Rule, plans: list[Plan] | None = None) -> None:
        self.rule = rule
        self.plans = list(plans or [])
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, _Batch] = {}
        self.paid: Counter[str] = Counter()
        self.online = 0
        self.held: str | None = None
        self.reached = threading.Event()
        self._release = threading.Event()
        self._ids = itertools.count(1)
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def created(self) -> int:
        """Batches created."""
        return len(self.batches)

    def hold(self, stage: str) -> None:
        """Hold the answers of one stage: ``upload``, ``create``, ``status`` or ``content``."""
        self.held, self._release = stage, threading.Event()
        self.reached.clear()

    def release(self) -> None:
        self.held = None
        self._release.set()

    def __enter__(self) -> BatchServer:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._start())
        self._ready.set()
        self._loop.run_forever()

    async def _start(self) -> None:
        app = web.Application(client_max_size=1 << 30)
        app.router.add_post("/v1/files", self._upload)
        app.router.add_get("/v1/files/{id}/content", self._content)
        app.router.add_post("/v1/batches", self._create)
        app.router.add_get("/v1/batches", self._list)
        app.router.add_get("/v1/batches/{id}", self._status)
        app.router.add_post("/v1/batches/{id}/cancel", self._cancel)
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _wait_if_held(self, stage: str) -> None:
        if self.held == stage:
            self.reached.set()
            await asyncio.get_running_loop().run_in_executor(None, self._release.wait)

    async def _upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form["file"]
        assert form["purpose"] == "batch" and isinstance(upload, web.FileField)
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = upload.file.read()
        await self._wait_if_held("upload")
        return web.json_response({"id": file_id, "object": "file", "purpose": "batch"})

    async def _create(self, request: web.Request) -> web.Response:
        body = await request.json()
        content = self.files[body["input_file_id"]]
        lines = [orjson.loads(line) for line in content.splitlines() if line.strip()]
        assert all({"custom_id", "method", "url", "body"} <= line.keys() for line in lines)
        plan = self.plans.pop(0) if self.plans else Plan()
        batch = _Batch(f"batch_{next(self._ids)}", body["input_file_id"], lines, plan)
        self.batches[batch.id] = batch
        await self._wait_if_held("create")  # created, but the answer is held (and may be lost)
        return web.json_response(batch.document())

    async def _list(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [b.document() for b in self.batches.values()]})

    async def _status(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None:
            raise web.HTTPNotFound
        if batch.status in _STEPS:
            batch.looks += 1
            if batch.looks < len(_STEPS):
                batch.status = _STEPS[batch.looks]
            else:
                self._finish(batch, batch.plan.status, batch.plan.answered)
        elif batch.status == "cancelling":
            self._finish(batch, "cancelled", batch.plan.answered or 0)
        await self._wait_if_held("status")
        return web.json_response(batch.document())

    async def _cancel(self, request: web.Request) -> web.Response:
        batch = self.batches[request.match_info["id"]]
        if batch.status in _STEPS:
            batch.status = "cancelling"
        return web.json_response(batch.document())

    async def _content(self, request: web.Request) -> web.Response:
        await self._wait_if_held("content")
        return web.Response(body=self.files[request.match_info["id"]], content_type="application/jsonl")

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.online += 1
        reply = self.rule(ReceivedRequest(self.online, "POST", "/v1/chat/completions", {}, body))
        return web.Response(status=reply.status, body=_chat_body(reply), content_type="application/json")

    def _finish(self, batch: _Batch, status: str, answered: int | None) -> None:
        batch.status = status
        if status == "failed":
            batch.counts = {"total": len(batch.lines), "completed": 0, "failed": 0}
            return
        done = batch.lines if answered is None else batch.lines[:answered]
        outputs: list[bytes] = []
        errors: list[bytes] = []
        for index, line in enumerate(done):
            self.paid[line["custom_id"]] += 1
            reply = self.rule(ReceivedRequest(index, "POST", line["url"], {}, orjson.dumps(line["body"])))
            record = {"id": f"req_{index}", "custom_id": line["custom_id"],
                      "response": {"status_code": reply.status, "request_id": f"r{index}",
                                   "body": orjson.loads(_chat_body(reply))}, "error": None}
            (outputs if 200 <= reply.status < 300 else errors).append(orjson.dumps(record))
        for name, rows in (("output_file_id", outputs), ("error_file_id", errors)):
            if rows:
                file_id = f"file-{next(self._ids)}"
                self.files[file_id] = b"\n".join(rows) + b"\n"
                setattr(batch, name, file_id)
        batch.counts = {"total": len(batch.lines), "completed": len(outputs), "failed": len(errors)}


def _chat_body(reply: ScriptedReply) -> bytes:
    if reply.body is not None:
        return reply.body
    if reply.status >= 300:
        return orjson.dumps({"error": {"message": "scripted failure", "type": "server_error"}})
    return orjson.dumps({"id": "chatcmpl-batch", "object": "chat.completion", "model": "scripted",
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": reply.content or ""}}],
                         "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
