"""Benchmark: a whole scoring run against the scripted judge (separate process) with fixed latency.

Usage: python benchmarks/bench_judge_run.py [--latency 0.05]
Scenario A: 4 trajectories x 100 steps at concurrency 16; scenario B: 200 trajectories x 25 steps at concurrency 64.
Each reports wall time against the ideal steps x latency / concurrency (throughput efficiency = ideal / wall).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

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
    ideal = trajectories * steps * latency / concurrency
    return {
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
    args = parser.parse_args()
    process, url = start_server(args.latency)
    try:
        rows = [
            scenario(url, 4, 100, 16, args.latency),
            scenario(url, 200, 25, 64, args.latency),
        ]
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(f"{'scenario':>22}{'wall s':>9}{'ideal s':>9}{'efficiency':>12}{'cpu ms/step':>13}")
    for row in rows:
        name = f"{row['trajectories']}x{row['steps'] // row['trajectories']} @{row['concurrency']}"
        print(f"{name:>22}{row['wall_seconds']:9.2f}{row['ideal_seconds']:9.2f}{row['efficiency']:12.1%}"
              f"{row['client_cpu_ms_per_step']:13.2f}")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
