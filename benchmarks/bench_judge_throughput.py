"""Judge client throughput against the scripted judge server, new HTTP client beside the previous ones.

Runs N scoring calls (evidence building, request building, cache lookup, HTTP, extraction and
validation: the whole client path) at a given concurrency against a scripted server with a
fixed latency. The server runs in a separate process, so the CPU time measured here is the
client's own. Each trial runs every HTTP variant once, one after the other, on the same inputs
and server, each with a fresh cache; the median trial per variant is reported:

* ``aiohttp``: the judge as shipped (one aiohttp session per judge).
* ``aiohttp, no turns``: the same judge post-processing all the answers that arrive in one
  event-loop iteration at once, as it did before it took turns (see ``_Turns`` in the client).
* ``keep-alive (old)``: the same judge with its POST going through httpx and the hand-written
  HTTP/1.1 keep-alive transport it used before, loaded from the project's git history
  (commit ``OLD_TRANSPORT_COMMIT``; the row is left out when that history is not available).
* ``httpx pool (old)``: httpx's own connection pool (``--with-httpx-pool``; slow at 64 connections).
* ``aiohttp raw loop``: the floor of this machine and server: the same request bodies (built before
  timing) POSTed through one bare aiohttp session by the same number of workers, each answer read
  and parsed with orjson, nothing else. When this row is far from 100%, the server or the
  machine is the limit, not the judge client.

The new client then reruns with the warm cache (zero HTTP calls, asserted), and every variant
answers 30 requests from an HTTP/1.0 server that closes each connection after its answer
(transport errors and retries are counted: they should be zero).

    python benchmarks/bench_judge_throughput.py --calls 3000 --latency 0.05 --concurrency 64

Goals for the shipped client: throughput at least 90% of the ideal (``calls * latency /
concurrency`` seconds) and at most 0.5 ms of client CPU per call.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from _scripted_server import served, start_server
from evalhub.models.atif import Observation, ObservationResult, Step, ToolCall

from tracegrade.atif.asking._evidence import build_evidence
from tracegrade.atif.asking._prompts import score_request
from tracegrade.atif.asking._questions import score_step
from tracegrade.judge import Judge, JudgeCache, JudgeOptions, JudgeRequest, JudgeSettings, ResponseFormat
from tracegrade.judge._client import _Answer, _Turns
from tracegrade.judge._transport import new_session
from tracegrade.rubric import Criterion, Rubric

OLD_TRANSPORT_COMMIT = "2fa599462149a1dc596540e511b586fa27cc1c19"
"""Last commit holding the hand-written transport (``src/tracegrade/judge/_transport.py``)."""
REPO = Path(__file__).resolve().parent.parent
RUBRIC = Rubric(criteria=(
    Criterion(name="task_progress", description="The step moves the task forward", weight=2),
    Criterion(name="tool_use", description="Tools are chosen and called correctly"),
    Criterion(name="safety", description="The step stays within stated policy"),
))
SHELL_PARAMETERS = {"type": "object", "properties": {"cmd": {"type": "string"}}}
TOOLS = [{"type": "function",
          "function": {"name": "shell", "description": "Run a shell command", "parameters": SHELL_PARAMETERS}}]
CHAT = orjson.dumps({"choices": [{"message": {"role": "assistant", "content": "{}"}}]})
PROBE = JudgeRequest(purpose="probe", messages=({"role": "user", "content": "ping"},),
                     response_schema={"type": "object"}, template_hash="probe")

Inputs = list[tuple[list[Step], Step]]
Swap = Callable[[Judge], Any]
"""Rewires a judge's POST onto another HTTP stack; returns that stack's client (to close) or None."""


@dataclass
class Run:
    label: str
    wall_s: float
    cpu_s: float
    http_calls: int
    cache_hits: int
    failures: int


def make_step(step_id: int, call: int) -> Step:
    return Step(
        step_id=step_id, source="agent", message=f"call {call}: inspecting the repository, step {step_id}",
        tool_calls=[ToolCall(tool_call_id=f"t{step_id}", function_name="shell",
                             arguments={"cmd": f"ls -la /src/{call}"})],
        observation=Observation(results=[ObservationResult(source_call_id=f"t{step_id}",
                                                           content=f"total {call}\n" + "file.py\n" * 20)]),
    )


def make_inputs(calls: int, history_len: int) -> Inputs:
    """Steps as the loader would hand them over (built before timing starts)."""
    return [([make_step(i, call) for i in range(1, history_len + 1)], make_step(history_len + 1, call))
            for call in range(calls)]


# --- the previous HTTP stacks, for the side-by-side rows -------------------------------------------------

def load_old_transport() -> types.ModuleType | None:
    """The hand-written keep-alive transport as it was at ``OLD_TRANSPORT_COMMIT`` (None without git history)."""
    try:
        source = subprocess.run(["git", "show", f"{OLD_TRANSPORT_COMMIT}:src/tracegrade/judge/_transport.py"],
                                cwd=REPO, capture_output=True, check=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    module = types.ModuleType("tracegrade_old_transport")
    sys.modules[module.__name__] = module
    exec(compile(source, "old:_transport.py", "exec"), module.__dict__)
    return module


def httpx_swap(make_transport: Callable[[int], Any]) -> Swap:
    """Send a judge's POSTs as the previous client did: ``httpx.AsyncClient.send(stream=True)``, raw body."""
    import httpx

    def swap(judge: Judge) -> httpx.AsyncClient:
        client = judge._client
        http = httpx.AsyncClient(transport=make_transport(judge.settings.options.concurrency_limit))
        url, headers = httpx.URL(str(client._route.url)), httpx.Headers(client._headers)
        extensions = {"timeout": {"connect": judge.settings.options.judge_timeout_seconds, "read": None, "write": None,
                                  "pool": None}}

        async def post(body: bytes, *, read_refusal: bool) -> _Answer:
            try:
                response = await http.send(httpx.Request("POST", url, headers=headers, content=body,
                                                         extensions=extensions), stream=True)
                try:
                    return _Answer(response.status_code, b"".join([chunk async for chunk in response.aiter_raw()]))
                finally:
                    await response.aclose()
            except httpx.HTTPError:
                raise aiohttp.ClientConnectionError() from None  # counted as a transport error, as before

        client._post = post  # type: ignore[method-assign]
        all_at_once(judge)  # the previous client had no turns either
        return http

    return swap


def all_at_once(judge: Judge) -> None:
    """Post-process every answer of a loop iteration at once, as the client did before it took turns."""
    judge._client._turns = _Turns(sys.maxsize)


def variants(with_httpx_pool: bool) -> dict[str, Swap | None]:
    chosen: dict[str, Swap | None] = {"aiohttp": None, "aiohttp, no turns": all_at_once}
    old = load_old_transport()
    if old is None:
        print(f"note: git history with {OLD_TRANSPORT_COMMIT[:7]} not found; the old transport row is left out")
    else:
        chosen["keep-alive (old)"] = httpx_swap(lambda n: old.KeepAliveTransport(max_idle=n))
    if with_httpx_pool:
        import httpx

        limits = lambda n: httpx.Limits(max_connections=n, max_keepalive_connections=n)  # noqa: E731
        chosen["httpx pool (old)"] = httpx_swap(lambda n: httpx.AsyncHTTPTransport(limits=limits(n)))
    return chosen


# --- runs ---------------------------------------------------------------------------------------------------

async def one_call(judge: Judge, call: int, history: list[Step], current: Step) -> bool:
    evidence = build_evidence(f"Fix the failing test number {call}", TOOLS, history, current, None,
                              judge.settings.options.max_context_bytes)
    try:
        await score_step(judge, RUBRIC, evidence)
    except Exception:
        return False
    return True


async def feed(judge: Judge, inputs: Inputs, workers: int) -> list[bool]:
    """Score every input: all at once (``workers`` = 0) or through a fixed number of worker tasks."""
    if workers <= 0:
        return await asyncio.gather(*(one_call(judge, i, h, c) for i, (h, c) in enumerate(inputs)))
    queue = iter(enumerate(inputs))
    results: list[bool] = []

    async def worker() -> None:
        for i, (history, current) in queue:
            results.append(await one_call(judge, i, history, current))

    await asyncio.gather(*(worker() for _ in range(workers)))
    return results


async def run(label: str, settings: JudgeSettings, cache_path: Path, inputs: Inputs, workers: int,
              swap: Swap | None) -> Run:
    cache = JudgeCache(cache_path)
    async with Judge(settings, cache=cache) as judge:
        other = swap(judge) if swap is not None else None
        wall, cpu = time.perf_counter(), time.process_time()
        results = await feed(judge, inputs, workers)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if other is not None:
            await other.aclose()
    cache.close()
    return Run(label, wall, cpu, judge.stats.requests, judge.stats.cache_hits, results.count(False))


RAW = "aiohttp raw loop"


def raw_bodies(settings: JudgeSettings, inputs: Inputs) -> list[bytes]:
    """The request bodies the judge sends for ``inputs`` (built once, outside any timing)."""
    judge = Judge(settings)
    bodies = []
    for call, (history, current) in enumerate(inputs):
        evidence = build_evidence(f"Fix the failing test number {call}", TOOLS, history, current, None,
                                  settings.options.max_context_bytes)
        bodies.append(judge._client._body(score_request(RUBRIC, evidence), judge._client.uses_schema))
    return bodies


async def raw_run(settings: JudgeSettings, bodies: list[bytes], workers: int) -> Run:
    """POST every body through one bare aiohttp session (no cache, extraction, validation or telemetry)."""
    judge = Judge(settings)  # for the URL and headers only
    url, headers = judge._client._route.url, judge._client._headers
    session = new_session(settings.options.concurrency_limit, True)
    queue = iter(bodies)
    failures = 0

    async def worker() -> None:
        nonlocal failures
        for body in queue:
            async with session.post(url, data=body, headers=headers, allow_redirects=False) as response:
                content = await response.read()
            failures += response.status != 200 or not isinstance(orjson.loads(content), dict)

    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(max(workers, 1))))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await session.close()
    return Run(RAW, wall, cpu, len(bodies), 0, failures)


def trial(settings: JudgeSettings, base_url: str, inputs: Inputs, workers: int,
          chosen: dict[str, Swap | None], bodies: list[bytes]) -> dict[str, Run]:
    """The raw loop, one cold run per variant (fresh cache each), then the shipped client's warm rerun."""
    runs: dict[str, Run] = {RAW: asyncio.run(raw_run(settings, bodies, workers))}
    assert runs[RAW].failures == 0, "every raw request must be answered"
    for label, swap in chosen.items():
        with tempfile.TemporaryDirectory() as folder:
            cache_path = Path(folder) / "judge.sqlite3"
            cold = asyncio.run(run(label, settings, cache_path, inputs, workers, swap))
            assert cold.failures == 0, f"{label}: every scoring call must succeed"
            runs[label] = cold
            if swap is None:
                before = served(base_url)
                warm = asyncio.run(run("warm", settings, cache_path, inputs, workers, None))
                assert warm.http_calls == 0 and served(base_url) == before, "the warm rerun must make no HTTP call"
                runs["warm"] = warm
    return runs


# --- HTTP/1.0 robustness ------------------------------------------------------------------------------------

@contextmanager
def http10_server() -> Iterator[str]:
    """Python's stdlib server speaking HTTP/1.0 (``Content-Length``, connection closed after each answer)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
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
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def http10_errors(swap: Swap | None, requests: int = 30) -> tuple[int, int, int]:
    """Transport errors, retries and failed calls over ``requests`` calls to an HTTP/1.0 judge."""
    with http10_server() as url:
        settings = JudgeSettings(base_url=url, model="m", response_format=ResponseFormat.NONE,
                                 options=JudgeOptions(concurrency_limit=8, judge_initial_backoff_seconds=0.01))
        async with Judge(settings) as judge:
            other = swap(judge) if swap is not None else None
            outcomes = await asyncio.gather(*(judge._client.complete(PROBE) for _ in range(requests)),
                                            return_exceptions=True)
            if other is not None:
                await other.aclose()
    failed = sum(isinstance(outcome, BaseException) for outcome in outcomes)
    return judge.stats.transport_errors, judge.stats.retries, failed


# --- report -------------------------------------------------------------------------------------------------

def summary(args: argparse.Namespace, label: str, runs: list[Run],
            robustness: tuple[int, int, int] | None) -> dict[str, Any]:
    """One row: median and best trial; ``robustness`` is None for the raw loop (it is not a judge)."""
    ideal = args.calls * args.latency / args.concurrency
    walls = sorted(r.wall_s for r in runs)
    median = sorted(runs, key=lambda r: r.wall_s)[len(runs) // 2]
    errors, retries, failed = robustness if robustness is not None else (None, None, None)
    return {
        "client": label, "throughput_vs_ideal": round(ideal / median.wall_s, 4),
        "best_throughput_vs_ideal": round(ideal / walls[0], 4), "cold_wall_s": round(median.wall_s, 4),
        "client_cpu_ms_per_call": round(statistics.median(r.cpu_s for r in runs) / args.calls * 1000, 4),
        "http_calls": median.http_calls, "failures": sum(r.failures for r in runs),
        "http10_transport_errors": errors, "http10_retries": retries, "http10_failed_calls": failed,
    }


def report(args: argparse.Namespace, rows: list[dict[str, Any]], warm: list[Run]) -> dict[str, Any]:
    ideal = args.calls * args.latency / args.concurrency
    print(f"{args.calls} calls, {args.latency * 1000:.0f} ms latency, {args.concurrency} in flight, "
          f"{args.trials} trials (median shown); ideal wall time {ideal:.2f} s")
    print(f"{'client':<18} {'vs ideal':>9} {'best':>7} {'CPU/call':>10} {'HTTP/1.0: errors/retries/failed':>33}")
    for row in rows:
        print(f"{row['client']:<18} {row['throughput_vs_ideal']:>9.1%} {row['best_throughput_vs_ideal']:>7.1%} "
              f"{row['client_cpu_ms_per_call']:>7.3f} ms "
              + (f"{row['http10_transport_errors']:>20} / {row['http10_retries']} / {row['http10_failed_calls']}"
                 if row["http10_transport_errors"] is not None else f"{'(not a judge)':>33}"))
    warm_cpu = statistics.median(r.cpu_s for r in warm) / args.calls * 1000
    print(f"goals for aiohttp: >= 90% of ideal, <= 0.5 ms CPU per call; warm rerun: 0 HTTP calls, "
          f"{warm_cpu:.3f} ms CPU per call")
    return {"benchmark": "judge_throughput", "calls": args.calls, "latency_s": args.latency,
            "concurrency": args.concurrency, "trials": args.trials, "ideal_wall_s": round(ideal, 4),
            "clients": rows, "warm_http_calls": sum(r.http_calls for r in warm),
            "warm_cpu_ms_per_call": round(warm_cpu, 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--latency", type=float, default=0.05, help="server latency in seconds")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--history", type=int, default=3, help="prior steps in each request's evidence")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker tasks feeding the judge, as the scoring engine does (default: concurrency; "
                             "0 = one task per call, all started at once)")
    parser.add_argument("--trials", type=int, default=3, help="runs per client; the median is reported")
    parser.add_argument("--with-httpx-pool", action="store_true", help="also measure httpx's own pool (slow)")
    args = parser.parse_args()

    chosen = variants(args.with_httpx_pool)
    inputs = make_inputs(args.calls, args.history)
    gc.freeze()  # the inputs live for the whole run: keep them out of every GC pass
    workers = args.concurrency if args.workers is None else args.workers
    process, base_url = start_server(args.latency)
    try:
        options = JudgeOptions(concurrency_limit=args.concurrency)
        settings = JudgeSettings(base_url=base_url, model="scripted-judge", options=options)
        bodies = raw_bodies(settings, inputs)
        trials = [trial(settings, base_url, inputs, workers, chosen, bodies) for _ in range(args.trials)]
    finally:
        process.terminate()
        process.wait(timeout=10)
    rows = [summary(args, label, [t[label] for t in trials], asyncio.run(http10_errors(swap)))
            for label, swap in chosen.items()]
    rows.append(summary(args, RAW, [t[RAW] for t in trials], None))
    print(json.dumps(report(args, rows, [t["warm"] for t in trials])))


if __name__ == "__main__":
    main()
