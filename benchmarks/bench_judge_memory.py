"""Benchmark: peak memory of a whole judge job over generated trajectories, as the collection grows.

Usage: python benchmarks/bench_judge_memory.py [--sizes 2000,20000] [--kib 100] [--steps 5] [--compare SRC]

Generates ``max(sizes)`` trajectories of about ``--kib`` KiB with ``--steps`` steps each (tool calls and
long observations) into a temp folder (refused when the disk would be left with under 2 GB), in folders
of the smallest size (every size a multiple of it), and scores the first N of them for each size against
the scripted judge (latency 0, its own process), each in a fresh child process: ``score_paths`` (the
``judge`` command's job), then ``write_artifacts`` into a temp run folder, under the collector policy the
command runs under (``tracegrade._io.command_collector``). Each child reports its peak RSS
after scoring and after writing, and the size of its ``evaluation_results.json`` (the results
themselves; each root's records are spooled to an unnamed file in the system's temporary folder as
it finishes, as ``tracegrade judge`` spools them in its run folder); the floor is the peak RSS of a child
that imports the same modules and scores nothing.
``--compare SRC`` runs the same sizes with another checkout's ``src`` folder first on the path (e.g. main
before a change). ``--files 250 --kib 9000 --steps 300`` is the folder of large ATIF files. The generated
data is removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson


def make_trajectory(index: int, target_bytes: int, steps: int) -> bytes:
    """One ATIF-v1.7 document of about ``target_bytes`` bytes in ``steps`` steps (the observations carry most)."""
    each = max(target_bytes // steps - 600, 100)
    line = f"trajectory {index}: output line of the tool run, with a path /srv/app/module_{index}.py and a count\n"
    output = (line * (each // len(line) + 1))[:each]
    body = [{"step_id": 1, "source": "user", "message": f"Task {index}: fix the failing test in module {index}."}]
    for step_id in range(2, steps + 1):
        body.append(
            {
                "step_id": step_id,
                "source": "agent",
                "message": f"Step {step_id}: I run the tests again and read what they print.",
                "tool_calls": [{"tool_call_id": f"c{step_id}", "function_name": "bash",
                                "arguments": {"cmd": f"pytest -q tests/test_module_{index}.py"}}],
                "observation": {"results": [{"source_call_id": f"c{step_id}", "content": output}]},
            }
        )
    doc = {"schema_version": "ATIF-v1.7", "agent": {"name": "bench-agent", "version": "1.0"}, "steps": body}
    return orjson.dumps(doc)


def generate(folder: Path, files: int, per_folder: int, kib: int, steps: int) -> list[Path]:
    """Write ``files`` trajectories in folders of ``per_folder``; returns the folders."""
    folders = []
    for start in range(0, files, per_folder):
        batch = folder / f"b{start // per_folder:03d}"
        batch.mkdir(parents=True)
        for index in range(start, min(start + per_folder, files)):
            (batch / f"t{index:06d}.json").write_bytes(make_trajectory(index, kib * 1024, steps))
        folders.append(batch)
    return folders


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_child(url: str, paths: list[Path], out: Path | None, concurrency: int) -> dict[str, float]:
    """One job in this process: score ``paths`` and write the artifacts (``out`` None: import only)."""
    from tracegrade.atif import JobContext, parse_parameters, score_paths, write_artifacts
    from tracegrade.judge import Judge, JudgeSettings

    options, criteria = parse_parameters({
        "scoring_mode": "benchmark", "benchmark_name": "terminal-bench", "concurrency_limit": concurrency,
        "max_total_steps": 100_000_000, "max_trajectory_files": 1_000_000, "max_file_bytes": 64 << 20,
        "failure_threshold": 0.5,
    })
    if out is None:
        return {"rss_scored_mib": _rss_mib(), "rss_written_mib": _rss_mib(), "results_mib": 0.0, "steps": 0}

    async def score() -> object:
        async with Judge(JudgeSettings(base_url=url, model="scripted", options=options)) as judge:
            return await score_paths(paths, options, criteria, judge, JobContext("bench"))

    try:  # the collector policy `tracegrade judge` runs under (a tree before tracegrade._io tuned it inside)
        from tracegrade._io import command_collector
    except ImportError:
        command_collector = None
    policy = command_collector() if command_collector is not None else contextlib.nullcontext()
    with policy:
        cpu, wall = time.process_time(), time.perf_counter()
        results = asyncio.run(score())
        scored = _rss_mib()
        write_artifacts(results, out)  # type: ignore[arg-type]
    return {
        "rss_scored_mib": scored,
        "rss_written_mib": _rss_mib(),
        "results_mib": (out / "evaluation_results.json").stat().st_size / 2**20,
        "steps": results.summary.counts.get("steps_scored", 0),  # type: ignore[attr-defined]
        "cpu": time.process_time() - cpu,
        "wall": time.perf_counter() - wall,
    }


def measure(url: str, paths: list[Path], concurrency: int, src: Path | None, scratch: Path) -> dict[str, float]:
    """Run one child (``paths`` empty: the floor) and return its report."""
    out = scratch / "run"
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=str(src)) if src else None
    command = [sys.executable, __file__, "--child", url, "--out", str(out) if paths else "-",
               "--concurrency", str(concurrency), *map(str, paths)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    shutil.rmtree(out, ignore_errors=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    """Generate the files, measure every size (and the floor), print the table and one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="2000,20000", help="trajectory counts to score, comma-separated")
    parser.add_argument("--files", type=int, default=None, help="one size (overrides --sizes)")
    parser.add_argument("--kib", type=int, default=100, help="approximate size of each trajectory")
    parser.add_argument("--steps", type=int, default=5, help="steps of each trajectory")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--compare", type=Path, default=None, help="another src folder to measure alongside")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        out = None if args.out == "-" else Path(args.out)
        print(json.dumps(run_child(args.child, args.paths, out, args.concurrency)))
        return
    sizes = [args.files] if args.files else [int(s) for s in args.sizes.split(",")]
    per_folder = min(sizes)
    if any(size % per_folder for size in sizes):
        raise SystemExit(f"--sizes: every size must be a multiple of the smallest ({per_folder})")
    need = max(sizes) * args.kib * 1024
    free = shutil.disk_usage(tempfile.gettempdir()).free
    if free - need < 2e9:
        raise SystemExit(f"needs {need / 1e9:.1f} GB in {tempfile.gettempdir()}, only {free / 1e9:.1f} GB free")
    from _scripted_server import start_server

    process, url = start_server(0.0)
    scratch = Path(tempfile.mkdtemp(prefix="tg-bench-memory-"))
    try:
        folders = generate(scratch / "data", max(sizes), per_folder, args.kib, args.steps)
        megabytes = sum(p.stat().st_size for f in folders for p in f.iterdir()) / 1e6
        print(f"generated {max(sizes)} trajectories, {megabytes:.0f} MB, {args.steps} steps each; "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)
        srcs: list[tuple[str, Path | None]] = [("this", None)] + ([("compared", args.compare)] if args.compare else [])
        rows = []
        for name, src in srcs:
            floor = measure(url, [], args.concurrency, src, scratch)["rss_scored_mib"]
            for size in sizes:
                got = measure(url, folders[: size // per_folder], args.concurrency, src, scratch)
                rows.append({"src": name, "trajectories": size, "floor_mib": round(floor), **{
                    k: round(v, 1) for k, v in got.items()}})
                print(json.dumps(rows[-1]), flush=True)
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{'src':>9}{'roots':>8}{'floor MiB':>11}{'scored MiB':>12}{'written MiB':>13}{'results MiB':>13}"
          f"{'cpu s':>8}{'wall s':>8}")
    for row in rows:
        print(f"{row['src']:>9}{row['trajectories']:>8}{row['floor_mib']:>11}{row['rss_scored_mib']:>12.0f}"
              f"{row['rss_written_mib']:>13.0f}{row['results_mib']:>13.0f}{row['cpu']:>8.1f}{row['wall']:>8.1f}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
