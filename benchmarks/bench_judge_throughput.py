"""Judge client throughput against the scripted judge server.

Runs N scoring calls (evidence building, request building, cache lookup, HTTP, extraction and
validation: the whole client path) at a given concurrency against a scripted server with a
fixed latency, then reruns them with the cache warm. The server runs in a separate process, so
the CPU time measured here is the client's own.

    python benchmarks/bench_judge_throughput.py --calls 5000 --latency 0.05 --concurrency 64

Goals: throughput at least 90% of the ideal (``calls * latency / concurrency`` seconds), at most
1 ms of client CPU per call, and zero HTTP calls on the warm rerun (asserted). Each trial uses a
fresh cache; the median trial is reported, since other work on the machine shifts wall times.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from evalhub.models.atif import Observation, ObservationResult, Step, ToolCall

from tracegrade.judge import Judge, JudgeCache, JudgeSettings, build_evidence, score_step
from tracegrade.rubrics import Criterion, Rubric

RUBRIC = Rubric(criteria=(
    Criterion(name="task_progress", description="The step moves the task forward", weight=2),
    Criterion(name="tool_use", description="Tools are chosen and called correctly"),
    Criterion(name="safety", description="The step stays within stated policy"),
))
SHELL_PARAMETERS = {"type": "object", "properties": {"cmd": {"type": "string"}}}
TOOLS = [{"type": "function",
          "function": {"name": "shell", "description": "Run a shell command", "parameters": SHELL_PARAMETERS}}]


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


def make_inputs(calls: int, history_len: int) -> list[tuple[list[Step], Step]]:
    """Steps as the loader would hand them over (built before timing starts)."""
    return [([make_step(i, call) for i in range(1, history_len + 1)], make_step(history_len + 1, call))
            for call in range(calls)]


async def one_call(judge: Judge, call: int, history: list[Step], current: Step) -> bool:
    evidence = build_evidence(f"Fix the failing test number {call}", TOOLS, history, current, None,
                              judge.settings.max_context_bytes)
    try:
        await score_step(judge, RUBRIC, evidence)
    except Exception:
        return False
    return True


async def feed(judge: Judge, inputs: list[tuple[list[Step], Step]], workers: int) -> list[bool]:
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


async def run(label: str, settings: JudgeSettings, cache_path: Path, inputs: list[tuple[list[Step], Step]],
              workers: int) -> Run:
    cache = JudgeCache(cache_path)
    async with Judge(settings, cache=cache) as judge:
        wall, cpu = time.perf_counter(), time.process_time()
        results = await feed(judge, inputs, workers)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    cache.close()
    return Run(label, wall, cpu, judge.stats.requests, judge.stats.cache_hits, results.count(False))


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "tracegrade.judge.testing", "--latency", str(latency)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith("READY "):
        process.kill()
        raise SystemExit(f"scripted server did not start: {line!r}")
    return process, line.removeprefix("READY ")


def server_state(base_url: str) -> tuple[int, float]:
    """Requests the server has answered and the CPU seconds its process has used."""
    state = httpx.get(f"{base_url}/_scripted/count", trust_env=False).json()
    return int(state["count"]), float(state["cpu_s"])


@dataclass
class Trial:
    """One cold run (fresh cache) and its warm rerun."""

    cold: Run
    warm: Run
    served: int
    """Requests the server answered during the cold run."""
    server_cpu_s: float
    """Server process CPU during the cold run."""


def trial(settings: JudgeSettings, base_url: str, inputs: list[tuple[list[Step], Step]], workers: int) -> Trial:
    with tempfile.TemporaryDirectory() as folder:
        cache_path = Path(folder) / "judge.sqlite3"
        count, cpu = server_state(base_url)
        cold = asyncio.run(run("cold", settings, cache_path, inputs, workers))
        count_after, cpu_after = server_state(base_url)
        warm = asyncio.run(run("warm", settings, cache_path, inputs, workers))
        count_warm, _ = server_state(base_url)
    assert warm.http_calls == 0 and count_warm == count_after, "the warm rerun must make no HTTP call"
    assert cold.failures == 0 and warm.failures == 0, "every scoring call must succeed"
    return Trial(cold, warm, count_after - count, cpu_after - cpu)


def report(args: argparse.Namespace, trials: list[Trial]) -> dict[str, object]:
    ideal = args.calls * args.latency / args.concurrency
    best = sorted(trials, key=lambda t: t.cold.wall_s)
    median = best[len(best) // 2]
    cold, warm = median.cold, median.warm
    per_call = cold.cpu_s / args.calls * 1000
    rows = [
        ("calls", f"{args.calls}"), ("latency / concurrency", f"{args.latency * 1000:.0f} ms / {args.concurrency}"),
        ("trials (median shown)", f"{len(trials)}"),
        ("ideal wall time", f"{ideal:.2f} s"), ("cold wall time", f"{cold.wall_s:.2f} s"),
        ("throughput vs ideal", f"{ideal / cold.wall_s:.1%} (goal >= 90%; best {ideal / best[0].cold.wall_s:.1%})"),
        ("cold calls/s", f"{args.calls / cold.wall_s:.0f}"),
        ("client CPU per call", f"{per_call:.3f} ms (goal <= 1 ms)"),
        ("cold HTTP calls / failures", f"{cold.http_calls} / {cold.failures}"),
        ("server requests / CPU per request", f"{median.served} / {median.server_cpu_s / median.served * 1000:.3f} ms"),
        ("warm wall time", f"{warm.wall_s:.2f} s"),
        ("warm CPU per call", f"{warm.cpu_s / args.calls * 1000:.3f} ms"),
        ("warm HTTP calls / cache hits", f"{warm.http_calls} / {warm.cache_hits}"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return {
        "benchmark": "judge_throughput", "calls": args.calls, "latency_s": args.latency,
        "concurrency": args.concurrency, "trials": len(trials), "ideal_wall_s": round(ideal, 4),
        "cold_wall_s": round(cold.wall_s, 4), "throughput_vs_ideal": round(ideal / cold.wall_s, 4),
        "best_throughput_vs_ideal": round(ideal / best[0].cold.wall_s, 4),
        "client_cpu_ms_per_call": round(per_call, 4), "cold_http_calls": cold.http_calls,
        "server_cpu_ms_per_request": round(median.server_cpu_s / median.served * 1000, 4),
        "warm_wall_s": round(warm.wall_s, 4), "warm_http_calls": warm.http_calls,
        "failures": sum(t.cold.failures + t.warm.failures for t in trials),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--latency", type=float, default=0.05, help="server latency in seconds")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--history", type=int, default=3, help="prior steps in each request's evidence")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker tasks feeding the judge, as the scoring engine does (default: concurrency; "
                             "0 = one task per call, all started at once)")
    parser.add_argument("--trials", type=int, default=3, help="cold+warm pairs to run; the median is reported")
    args = parser.parse_args()

    inputs = make_inputs(args.calls, args.history)
    gc.freeze()  # the inputs live for the whole run: keep them out of every GC pass
    workers = args.concurrency if args.workers is None else args.workers
    process, base_url = start_server(args.latency)
    try:
        settings = JudgeSettings(base_url=base_url, model="scripted-judge", concurrency_limit=args.concurrency)
        trials = [trial(settings, base_url, inputs, workers) for _ in range(args.trials)]
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(json.dumps(report(args, trials)))


if __name__ == "__main__":
    main()
