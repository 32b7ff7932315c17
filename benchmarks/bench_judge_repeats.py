"""Benchmark: repeated judgements cost N times the calls and about N times the time, not more.

Usage: python benchmarks/bench_judge_repeats.py [--latency 0.05] [--concurrency 16] [--steps 200]
Scores the same collection (20 trajectories) against the scripted judge (a separate process, fixed
latency, every answer 0.75 so no categorisation calls) with judge_repeats 1 and 3 at the same
concurrency, and reports judge calls, wall time and their ratios to N = 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import orjson
from _scripted_server import served, start_server

from tracegrade.atif import JobContext, parse_parameters, score_paths
from tracegrade.judge import Judge, JudgeSettings

RUBRIC = {"scoring_mode": "benchmark", "benchmark_name": "terminal-bench"}
TRAJECTORIES = 20


def make_collection(folder: Path, steps: int) -> None:
    per = steps // TRAJECTORIES
    for t in range(TRAJECTORIES):
        doc = {
            "schema_version": "ATIF-v1.7",
            "agent": {"name": "bench", "version": "1"},
            "steps": [{"step_id": i + 1, "source": "agent", "message": f"trajectory {t} step {i}"} for i in range(per)],
        }
        (folder / f"t{t:03d}.json").write_bytes(orjson.dumps(doc))


async def score(url: str, folder: Path, concurrency: int, repeats: int) -> tuple[float, int]:
    options, criteria = parse_parameters({**RUBRIC, "concurrency_limit": concurrency, "judge_repeats": repeats})
    settings = JudgeSettings(base_url=url, model="scripted", options=options)
    async with Judge(settings) as judge:
        start = time.perf_counter()
        results = await score_paths([folder], options, criteria, judge, JobContext("bench"))
        elapsed = time.perf_counter() - start
    return elapsed, results.summary.counts.get("steps_scored", 0)


def run(url: str, folder: Path, steps: int, concurrency: int, repeats: int, latency: float) -> dict[str, float]:
    before = served(url)
    wall, scored = asyncio.run(score(url, folder, concurrency, repeats))
    calls = served(url) - before
    assert scored == steps, scored
    return {
        "repeats": repeats,
        "steps": steps,
        "concurrency": concurrency,
        "calls": calls,
        "wall_seconds": round(wall, 3),
        "ideal_seconds": round(calls * latency / concurrency, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    process, url = start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            make_collection(Path(tmp), args.steps)
            rows = [run(url, Path(tmp), args.steps, args.concurrency, n, args.latency) for n in (1, 3)]
    finally:
        process.terminate()
        process.wait(timeout=10)
    base = rows[0]
    print(f"{'N':>3}{'calls':>8}{'x calls':>9}{'wall s':>9}{'x time':>8}{'ideal s':>9}")
    for row in rows:
        print(
            f"{row['repeats']:>3}{row['calls']:>8}{row['calls'] / base['calls']:>9.2f}{row['wall_seconds']:>9.2f}"
            f"{row['wall_seconds'] / base['wall_seconds']:>8.2f}{row['ideal_seconds']:>9.2f}"
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
