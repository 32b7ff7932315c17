"""Benchmark: fixed start-up cost of the CLI, this tree against an earlier commit, in one run.

Usage: python benchmarks/bench_startup.py [--baseline 4b0925d] [--repeats 5] [--only judge] [--baseline-src DIR]

Times `tracegrade --help`, `--version`, `validate examples/atif` and a small `judge` run of examples/atif
against the scripted judge (no latency, judge cache off), each in separate processes. The baseline is
checked out into a temporary git worktree (or taken from ``--baseline-src``, e.g. the ``src`` of
``git archive 4b0925d src | tar -x -C DIR``) and run with the same interpreter, packages and arguments.

Fairness: both trees are byte-compiled first (`compileall`, whatever PYTHONDONTWRITEBYTECODE says: a fresh
worktree would otherwise recompile every module on every run), each command runs once untimed per tree
(warm file cache and, for this tree, the compiled-template cache in a temporary TRACEGRADE_CACHE_DIR), and
the two trees alternate repeat by repeat so that load changes hit both alike. Reported: the median wall
time and the median CPU time (user + system of the child) of the repeats; prefer CPU on a shared machine.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _scripted_server import start_server

REPO = Path(__file__).resolve().parents[1]
RUN = "import sys; from tracegrade.cli._app import app, run_app; sys.exit(run_app(app, sys.argv[1:]))"


def run_once(src: Path, argv: list[str], cache_dir: str) -> tuple[float, float]:
    """Wall and child CPU seconds of one run of the CLI from ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src), "TRACEGRADE_CACHE_DIR": cache_dir}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN, *argv], env=env, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{src}: {argv[:2]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compare(trees: dict[str, Path], argv: dict[str, list[str]], repeats: int, cache_dir: str) -> dict[str, list]:
    """Alternate the trees ``repeats`` times after one untimed run each; (wall, cpu) per tree."""
    for name, src in trees.items():
        run_once(src, argv[name], cache_dir)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    for _ in range(repeats):
        for name, src in trees.items():
            times[name].append(run_once(src, argv[name], cache_dir))
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", default="4b0925d")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", help="run only the cases whose name contains this")
    parser.add_argument("--baseline-src", type=Path, help="the baseline's src folder, already extracted")
    args = parser.parse_args()
    server, url = start_server(env={"PYTHONPATH": str(REPO / "src")})
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "baseline"
        if args.baseline_src is None:
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(old), args.baseline],
                           check=True, capture_output=True)
        try:
            trees = {"baseline": args.baseline_src or old / "src", "now": REPO / "src"}
            for src in trees.values():
                compileall.compile_dir(src, quiet=1)
            judge = ["judge", str(REPO / "examples/atif"), "--judge-url", url, "--judge-model", "scripted",
                     "--scoring-mode", "benchmark", "--benchmark-name", "terminal-bench", "--no-cache", "--quiet"]
            cases = {"--help": ["--help"], "--version": ["--version"],
                     "validate examples/atif": ["validate", str(REPO / "examples/atif")],
                     "judge examples/atif (scripted)": judge}
            print(f"{'command':32} {'wall before':>11} {'now':>7} {'ratio':>6}  "
                  f"{'CPU before':>10} {'now':>7} {'ratio':>6}")
            for name, argv in cases.items():
                if args.only and args.only not in name:
                    continue
                per_tree = {t: [*argv, "-o", f"{tmp}/{t}"] if argv is judge else argv for t in trees}
                times = compare(trees, per_tree, args.repeats, f"{tmp}/cache")
                (wall_a, cpu_a), (wall_b, cpu_b) = (
                    (statistics.median(w for w, _ in times[t]), statistics.median(c for _, c in times[t]))
                    for t in trees
                )
                print(f"{name:32} {wall_a:10.2f}s {wall_b:6.2f}s {wall_b / wall_a:5.2f}x  "
                      f"{cpu_a:9.2f}s {cpu_b:6.2f}s {cpu_b / cpu_a:5.2f}x")
        finally:
            if args.baseline_src is None:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(old)], check=False)
            server.stdin.close() if server.stdin else None
            server.terminate()


if __name__ == "__main__":
    main()
