from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from aiohttp import web

from tracegrade.suites import CallableTarget, CommandTarget, HttpTarget
from tracegrade.suites.checking._records import AttemptRequest

REQUEST = AttemptRequest("s", "c1", 1, "wf", None, None, {"message": "hi"}, None)


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "sut.py"
    path.write_text("import json, sys, time\nrequest = json.load(sys.stdin)\n" + body)
    return f"{sys.executable} {path}"


async def test_command_gets_the_request_on_stdin_and_returns_its_stdout(tmp_path: Path) -> None:
    body = "print(json.dumps({'echo': request['payload'], 'id': request['case_id']}))"
    target = CommandTarget(script(tmp_path, body))
    observation = await target.attempt(REQUEST, 10)
    assert observation.result == {"echo": {"message": "hi"}, "id": "c1"}
    assert observation.error_code is None and observation.elapsed_seconds is not None


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting to be reaped counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


async def test_command_is_killed_on_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    body = f"import os\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(600)\n"
    target = CommandTarget(script(tmp_path, body))
    observation = await target.attempt(REQUEST, 3)  # time enough to start and write its pid on a busy machine
    assert observation.error_code == "timeout" and observation.result is None
    assert not alive(int(pid_file.read_text()))  # killed, not left sleeping: no clock is read


async def test_command_failures_are_safe_codes(tmp_path: Path) -> None:
    assert (await CommandTarget(script(tmp_path, "sys.exit(3)")).attempt(REQUEST, 10)).error_code == \
        "target_exit_status"
    assert (await CommandTarget(script(tmp_path, "print('[1, 2]')")).attempt(REQUEST, 10)).error_code == \
        "invalid_result"
    assert (await CommandTarget(script(tmp_path, "print('{\"a\": NaN}')")).attempt(REQUEST, 10)).error_code == \
        "invalid_result"
    assert (await CommandTarget("/nonexistent/program").attempt(REQUEST, 10)).error_code == "target_not_started"


async def test_http_target_posts_the_request() -> None:
    seen: list[Any] = []

    async def handle(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(body)
        if body["case_id"] == "bad":
            return web.Response(status=500)
        if body["case_id"] == "big":
            return web.json_response({"blob": "x" * 300_000})
        return web.json_response({"payload": body["payload"]})

    app = web.Application()
    app.router.add_post("/run", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    target = HttpTarget(f"http://127.0.0.1:{port}/run")
    try:
        assert (await target.attempt(REQUEST, 10)).result == {"payload": {"message": "hi"}}
        bad = AttemptRequest("s", "bad", 1, "wf", None, None, {}, None)
        assert (await target.attempt(bad, 10)).error_code == "target_http_status"
        big = AttemptRequest("s", "big", 1, "wf", None, None, {}, None)
        assert (await target.attempt(big, 10)).result == {"blob": "x" * 300_000}
    finally:
        await target.aclose()
        await runner.cleanup()
    assert seen[0]["target_workflow"] == "wf"


async def test_http_target_unreachable_is_an_operational_error() -> None:
    target = HttpTarget("http://127.0.0.1:9/run")
    try:
        assert (await target.attempt(REQUEST, 5)).error_code == "target_unreachable"
    finally:
        await target.aclose()


async def test_callable_target_results_exceptions_and_timeouts() -> None:
    async def ok(request: AttemptRequest) -> Any:
        return {"case": request.case_id}

    async def boom(request: AttemptRequest) -> Any:
        raise RuntimeError("secret")

    async def slow(request: AttemptRequest) -> Any:
        import asyncio

        await asyncio.sleep(5)

    async def not_json(request: AttemptRequest) -> Any:
        return {"x": float("nan")}

    assert (await CallableTarget(ok).attempt(REQUEST, 1)).result == {"case": "c1"}
    assert (await CallableTarget(boom).attempt(REQUEST, 1)).error_code == "target_exception"
    assert (await CallableTarget(slow).attempt(REQUEST, 0.1)).error_code == "timeout"
    assert (await CallableTarget(not_json).attempt(REQUEST, 1)).error_code == "invalid_result"


FORKS = ("print(json.dumps({'id': request['case_id']}), flush=True)\n"
         "import os\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\n")
"""A command that answers, then leaves a child behind that holds its stdout open."""


async def test_the_answer_is_read_when_the_command_exits_despite_a_child_holding_stdout(tmp_path: Path) -> None:
    """Issue 23 item 8: the answer was dropped and the attempt became a ``timeout``."""
    observation = await CommandTarget(script(tmp_path, FORKS + "os._exit(0)\n")).attempt(REQUEST, 60)
    assert observation.error_code is None and observation.result == {"id": "c1"}


async def test_a_failing_exit_status_still_counts_when_a_child_holds_stdout(tmp_path: Path) -> None:
    observation = await CommandTarget(script(tmp_path, FORKS + "os._exit(3)\n")).attempt(REQUEST, 60)
    assert observation.error_code == "target_exit_status"


async def test_output_past_the_limit_is_drained_not_left_blocking_the_command(tmp_path: Path) -> None:
    body = "sys.stdout.write('x' * (65 * 1024 * 1024))\n"
    observation = await CommandTarget(script(tmp_path, body)).attempt(REQUEST, 120)
    assert observation.error_code == "result_too_large"
