"""Benchmark: fixed start-up cost of the CLI, this tree against an earlier commit, in one run.

Usage: python benchmarks/bench_startup.py [--baseline 4b0925d] [--repeats 5]

Times (median of the repeats, separate processes) `tracegrade --help`, `--version`, `validate examples/atif`
and a small `judge` run of examples/atif against the scripted judge (no latency, cache off). The baseline
is checked out into a temporary git worktree and run with the same interpreter and packages.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUN = "import sys; from tracegrade.cli._app import app, run_app; sys.exit(run_app(app, sys.argv[1:]))"


def start_server() -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "tracegrade.judge.testing"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert process.stdout is not None
    line = process.stdout.readline().split()
    assert line[:1] == ["READY"], line
    return process, line[1]


def timed(src: Path, argv: list[str], repeats: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(src)}
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", RUN, *argv], env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
        if done.returncode not in (0,):
            raise SystemExit(f"{src}: {argv[:2]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", default="4b0925d")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    server, url = start_server()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(old), args.baseline],
                       check=True, capture_output=True)
        try:
            judge = ["judge", str(REPO / "examples/atif"), "--judge-url", url, "--judge-model", "scripted",
                     "--scoring-mode", "benchmark", "--benchmark-name", "terminal-bench", "--no-cache", "--quiet"]
            cases = {"--help": ["--help"], "--version": ["--version"],
                     "validate examples/atif": ["validate", str(REPO / "examples/atif")]}
            print(f"{'command':34} {'baseline':>9} {'now':>9} {'ratio':>7}")
            for name, argv in {**cases, "judge examples/atif (scripted)": judge}.items():
                before = timed(old / "src", [*argv, "-o", f"{tmp}/a"] if argv is judge else argv, args.repeats)
                after = timed(REPO / "src", [*argv, "-o", f"{tmp}/b"] if argv is judge else argv, args.repeats)
                print(f"{name:34} {before:8.2f}s {after:8.2f}s {after / before:6.2f}x")
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(old)], check=False)
            server.stdin.close() if server.stdin else None
            server.terminate()


if __name__ == "__main__":
    main()
