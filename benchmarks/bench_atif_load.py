"""Benchmark: load generated ATIF trajectories and compare with plain orjson parsing of the same bytes.

Usage: python benchmarks/bench_atif_load.py [--files 2000] [--kib 100] [--dir DIR]
Reports MB/s of `load_trajectories` and its ratio to `orjson.loads` over the same files, in one run.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import orjson
from evalhub.models.atif import Trajectory

from tracegrade.atif import LoadOptions, load_trajectories


def make_trajectory(index: int, target_bytes: int) -> bytes:
    filler = "The agent inspects the output and decides what to run next. " * 8
    steps = [{"step_id": 1, "source": "user", "message": f"Task {index}: fix the failing test in module {index}."}]
    step_id = 2
    while len(orjson.dumps(steps)) < target_bytes:
        steps.append(
            {
                "step_id": step_id,
                "timestamp": "2026-10-02T09:00:00Z",
                "source": "agent",
                "message": f"Step {step_id}. {filler}",
                "reasoning_content": filler,
                "tool_calls": [
                    {"tool_call_id": f"c{step_id}", "function_name": "bash", "arguments": {"cmd": "ls -la"}}
                ],
                "observation": {"results": [{"source_call_id": f"c{step_id}", "content": filler * 2}]},
                "metrics": {"prompt_tokens": 1200, "completion_tokens": 80, "logprobs": [-0.1] * 40},
            }
        )
        step_id += 1
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": f"bench-{index}",
        "agent": {"name": "bench-agent", "version": "1.0"},
        "steps": steps,
    }
    return orjson.dumps(doc)


def generate(folder: Path, files: int, kib: int) -> int:
    total = 0
    for index in range(files):
        data = make_trajectory(index, kib * 1024)
        (folder / f"t{index:05d}.json").write_bytes(data)
        total += len(data)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--kib", type=int, default=100, help="approximate size of each trajectory")
    parser.add_argument("--dir", type=Path, default=None, help="reuse/generate files here (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        paths = sorted(folder.glob("*.json"))
        if len(paths) != args.files:
            total = generate(folder, args.files, args.kib)
            paths = sorted(folder.glob("*.json"))
        else:
            total = sum(p.stat().st_size for p in paths)
        mb = total / 1e6
        for p in paths:  # warm the page cache so both measurements read from memory
            p.read_bytes()

        start = time.perf_counter()
        for p in paths:
            orjson.loads(p.read_bytes())
        plain = time.perf_counter() - start

        start = time.perf_counter()
        for p in paths:
            Trajectory.model_validate(orjson.loads(p.read_bytes()))
        floor = time.perf_counter() - start

        options = LoadOptions(max_total_steps=10_000_000, max_steps_per_trajectory=100_000)
        start = time.perf_counter()
        result = load_trajectories([folder], options)
        loaded = time.perf_counter() - start
        assert len(result.roots) == args.files

    report = {
        "files": args.files,
        "megabytes": round(mb, 1),
        "orjson_seconds": round(plain, 3),
        "load_seconds": round(loaded, 3),
        "orjson_mb_per_s": round(mb / plain, 1),
        "load_mb_per_s": round(mb / loaded, 1),
        "orjson_plus_sdk_validation_seconds": round(floor, 3),
        "ratio_load_to_orjson": round(loaded / plain, 2),
        "ratio_load_to_orjson_plus_sdk_validation": round(loaded / floor, 2),
    }
    print(f"{'':24}{'seconds':>10}{'MB/s':>10}")
    print(f"{'orjson.loads':24}{plain:10.2f}{mb / plain:10.1f}")
    print(f"{'orjson + SDK validation':24}{floor:10.2f}{mb / floor:10.1f}")
    print(f"{'load_trajectories':24}{loaded:10.2f}{mb / loaded:10.1f}")
    print(f"ratio load/orjson: {loaded / plain:.2f}x (goal <= 3x)")
    print(f"ratio load/(orjson + SDK validation): {loaded / floor:.2f}x")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
