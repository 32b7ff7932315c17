"""Benchmark: a whole scoring run against the scripted judge (separate process) with fixed latency.

Usage: python benchmarks/bench_judge_run.py [--latency 0.05] [--command-only] [--rounds N] [--baseline EXE]
Scenario A: 4 trajectories x 100 steps at concurrency 16; scenario B: 200 trajectories x 25 steps at concurrency 64
(both ``score_paths`` in this process); scenario C: the whole ``tracegrade judge`` command (start-up, outline,
scoring, every artifact written) in a child process, 800 trajectories x 25 steps at concurrency 64. Each reports
wall time against the ideal steps x latency / concurrency (throughput efficiency = ideal / wall) and CPU per step
(this process's, or the child's). The floor, measured in the same run: the raw aiohttp loop, as many POSTs of a
scoring request's size through one bare aiohttp session by as many workers, nothing else; ``vs raw`` is a row's
efficiency over the raw loop's at the same concurrency. ``--command-only`` runs the raw loop at 64 and scenario
C ``--rounds`` times, alternating with ``--baseline`` (another checkout's ``tracegrade`` executable) when given,
and prints the medians of the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import orjson
from _scripted_server import start_server

from tracegrade.atif import JobContext, parse_parameters, score_paths
from tracegrade.judge import Judge, JudgeSettings

RUBRIC = {"scoring_mode": "benchmark", "benchmark_name": "terminal-bench"}


def make_collection(folder: Path, trajectories: int, steps: int) -> None:
    for t in range(trajectories):
        doc = {
            "schema_version": "ATIF-v1.7",
            "agent": {"name": "bench", "version": "1"},
            "steps": [
                {"step_id": i + 1, "source": "user" if i == 0 else "agent", "message": f"trajectory {t} step {i}"}
                for i in range(steps)
            ],
        }
        (folder / f"t{t:04d}.json").write_bytes(orjson.dumps(doc))


async def score(url: str, folder: Path, concurrency: int) -> tuple[float, int]:
    options, criteria = parse_parameters({**RUBRIC, "concurrency_limit": concurrency})
    settings = JudgeSettings(base_url=url, model="scripted", options=options)
    async with Judge(settings) as judge:
        start = time.perf_counter()
        results = await score_paths([folder], options, criteria, judge, JobContext("bench"))
        elapsed = time.perf_counter() - start
    return elapsed, results.summary.counts.get("steps_scored", 0)


def scenario(url: str, trajectories: int, steps: int, concurrency: int, latency: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_collection(folder, trajectories, steps)
        cpu = time.process_time()
        wall, scored = asyncio.run(score(url, folder, concurrency))
        cpu = time.process_time() - cpu
    assert scored == trajectories * steps, scored
    return _row("score_paths", trajectories, steps, concurrency, latency, wall, cpu)


def command(url: str, trajectories: int, steps: int, concurrency: int, latency: float,
            tracegrade: Path | None = None) -> dict[str, float]:
    """The whole ``tracegrade judge`` command in a child process; its CPU from the child's resource usage."""
    with tempfile.TemporaryDirectory() as tmp:
        folder, out = Path(tmp) / "in", Path(tmp) / "out"
        folder.mkdir()
        make_collection(folder, trajectories, steps)
        tracegrade = tracegrade or Path(sys.executable).with_name("tracegrade")
        argv = [str(tracegrade), "judge", str(folder), "--judge-url", url, "--judge-model", "scripted",
                "--scoring-mode", "benchmark", "--benchmark-name", "terminal-bench", "--concurrency-limit",
                str(concurrency), "--max-total-steps", str(trajectories * steps), "--no-cache", "--quiet",
                "-o", str(out)]
        wall = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - wall
        assert child.stderr is not None
        assert os.waitstatus_to_exitcode(status) == 0, child.stderr.read()
        scored = json.loads((out / "summary.json").read_bytes())["counts"].get("steps_scored", 0)
    assert scored == trajectories * steps, scored
    return _row("judge command", trajectories, steps, concurrency, latency, wall, usage.ru_utime + usage.ru_stime)


def raw_loop(url: str, calls: int, concurrency: int, latency: float) -> dict[str, float]:
    """The floor: ``calls`` POSTs of a scoring request's size through one bare aiohttp session."""
    prompt = "<criteria>\n" + json.dumps([{"name": "correctness", "weight": 1}]) + "\n</criteria>\n" + "x" * 1800
    body = orjson.dumps({"model": "scripted", "messages": [{"role": "user", "content": prompt}]})

    async def run() -> float:
        left = iter(range(calls))
        connector = aiohttp.TCPConnector(limit=concurrency)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def worker() -> None:
                for _ in left:
                    async with session.post(f"{url}/chat/completions", data=body,
                                            headers={"Content-Type": "application/json"}) as response:
                        orjson.loads(await response.read())

            start = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return time.perf_counter() - start

    cpu = time.process_time()
    wall = asyncio.run(run())
    return _row("raw aiohttp loop", calls, 1, concurrency, latency, wall, time.process_time() - cpu)


def _row(name: str, trajectories: int, steps: int, concurrency: int, latency: float, wall: float,
         cpu: float) -> dict[str, float]:
    ideal = trajectories * steps * latency / concurrency
    return {
        "name": name,  # type: ignore[dict-item]
        "trajectories": trajectories,
        "steps": trajectories * steps,
        "concurrency": concurrency,
        "wall_seconds": round(wall, 3),
        "ideal_seconds": round(ideal, 3),
        "efficiency": round(ideal / wall, 3),
        "client_cpu_ms_per_step": round(cpu * 1000 / (trajectories * steps), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--command-only", action="store_true", help="only the raw loop at 64 and the command")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of the command (and of the baseline)")
    parser.add_argument("--baseline", type=Path, help="another tracegrade executable, run alternately")
    args = parser.parse_args()
    process, url = start_server(args.latency)
    try:
        load = os.getloadavg()
        rows = [] if args.command_only else [
            raw_loop(url, 400, 16, args.latency),
            scenario(url, 4, 100, 16, args.latency),
        ]
        rows.append(raw_loop(url, 5000, 64, args.latency))
        if not args.command_only:
            rows.append(scenario(url, 200, 25, 64, args.latency))
        for _ in range(args.rounds):
            if args.baseline is not None:
                rows.append({**command(url, 800, 25, 64, args.latency, args.baseline), "name": "baseline command"})
            rows.append(command(url, 800, 25, 64, args.latency))
        load = tuple(max(a, b) for a, b in zip(load, os.getloadavg(), strict=True))
    finally:
        process.terminate()
        process.wait(timeout=10)
    raw = {row["concurrency"]: row["efficiency"] for row in rows if row["name"] == "raw aiohttp loop"}
    print(f"{'':18}{'scenario':>14}{'wall s':>9}{'ideal s':>9}{'efficiency':>12}{'vs raw':>9}{'cpu ms/step':>13}")
    for row in rows:
        shape = f"{row['trajectories']}x{row['steps'] // row['trajectories']} @{row['concurrency']}"
        print(f"{row['name']:18}{shape:>14}{row['wall_seconds']:9.2f}{row['ideal_seconds']:9.2f}"
              f"{row['efficiency']:12.1%}{row['efficiency'] / raw[row['concurrency']]:9.1%}"
              f"{row['client_cpu_ms_per_step']:13.2f}")
    if args.rounds > 1:
        for name in ("baseline command", "judge command"):
            runs = [row for row in rows if row["name"] == name]
            if runs:
                efficiency = statistics.median(row["efficiency"] for row in runs)
                cpu = statistics.median(row["client_cpu_ms_per_step"] for row in runs)
                print(f"{name}, median of {len(runs)} rounds: {efficiency:.1%} of ideal "
                      f"({efficiency / raw[64]:.1%} of the raw loop), {cpu:.2f} ms CPU per step")
    print(f"load average (highest of before and after): {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
