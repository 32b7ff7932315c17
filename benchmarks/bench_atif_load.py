"""Benchmark: load generated ATIF trajectories and compare with plain orjson parsing of the same bytes.

Usage: python benchmarks/bench_atif_load.py [--files 2000] [--kib 100] [--dir DIR] [--repeat 3] [--compare SRC]

Each measurement runs in a fresh child process, so each gets its own peak RSS; the phases alternate and the
fastest of ``--repeat`` rounds is kept (this machine is shared, and the floor itself moves by about 25%):

- ``orjson``: ``orjson.loads(path.read_bytes())`` for every file, nothing kept (the floor);
- ``sdk``: the same plus ``Trajectory.model_validate`` (eval-hub-sdk reference models), nothing kept;
- ``load``: ``load_trajectories`` (strict JSON, validation, trees, accounts), everything kept, as ``judge`` does
  (under the collector policy the CLI applies);
- ``validate``: ``tracegrade validate --format json`` on the folder (output discarded).

``--compare SRC`` also runs ``load`` and ``validate`` with another checkout's ``src`` folder first on the path
(e.g. a copy of main before a change), in the same rounds, so a before/after comparison sees the same machine.

Times are CPU seconds of the child (``time.process_time``), which other users of the machine move less than
wall time; wall seconds are printed beside them. Each child imports the modules its phase uses before the
clock starts (loading is measured, not start-up, which ``bench_startup.py`` measures); the import CPU seconds
are printed in their own column.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

PHASES = ("orjson", "sdk", "load", "validate")


def make_trajectory(index: int, target_bytes: int) -> bytes:
    """One ATIF-v1.7 document of about ``target_bytes`` bytes, with tool calls, observations and logprobs."""
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


def generate(folder: Path, files: int, kib: int) -> None:
    """Write ``files`` generated trajectories into ``folder``."""
    for index in range(files):
        (folder / f"t{index:05d}.json").write_bytes(make_trajectory(index, kib * 1024))


def _prepare(phase: str) -> None:
    """Import what ``phase`` uses, so the timed part measures loading and not module import."""
    if phase == "sdk":
        import evalhub.models.atif  # noqa: F401
    elif phase == "load":
        import tracegrade.atif.reading._load
    elif phase == "validate":
        import tracegrade.atif.reading._load
        import tracegrade.cli._app
        import tracegrade.cli._validate  # noqa: F401


def _command_collector() -> contextlib.AbstractContextManager[None]:
    """The collector policy the CLI applies around ``judge`` (none in a tree older than ``tracegrade._io``)."""
    try:
        from tracegrade._io import command_collector
    except ImportError:  # an older checkout paused the collector inside load_trajectories
        return contextlib.nullcontext()
    return command_collector()


def run_phase(phase: str, folder: Path) -> dict[str, float]:
    """Run one phase in this process and return its CPU and wall seconds, import CPU seconds and peak RSS."""
    paths = sorted(folder.glob("*.json"))
    for p in paths:  # warm the page cache so every phase reads from memory
        p.read_bytes()
    start = time.process_time()
    _prepare(phase)
    imports = time.process_time() - start
    cpu, wall = time.process_time(), time.perf_counter()
    if phase == "orjson":
        for p in paths:
            orjson.loads(p.read_bytes())
    elif phase == "sdk":
        from evalhub.models.atif import Trajectory

        for p in paths:
            Trajectory.model_validate(orjson.loads(p.read_bytes()))
    elif phase == "load":
        from tracegrade.atif import LoadOptions, load_trajectories

        options = LoadOptions(max_total_steps=10_000_000, max_steps_per_trajectory=100_000)
        with _command_collector():
            result = load_trajectories([folder], options)
        assert len(result.roots) == len(paths)
    else:
        from tracegrade.cli._app import app, run_app

        with open(os.devnull, "w") as sink:
            sys.stdout = sink
            code = run_app(app, ["validate", str(folder), "--format", "json", "--max-total-steps", "10000000"])
            sys.stdout = sys.__stdout__
        assert code == 0, code
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cpu": cpu, "wall": wall, "imports": imports, "rss_mib": rss_mib}


def measure(folder: Path, repeat: int, compare: Path | None) -> dict[str, dict[str, float]]:
    """Run every phase ``repeat`` times in child processes, keeping each phase's fastest round."""
    runs = [(phase, phase, None) for phase in PHASES]
    if compare is not None:
        runs += [(f"{phase} (compared)", phase, compare) for phase in ("load", "validate")]
    best: dict[str, dict[str, float]] = {}
    for _ in range(repeat):
        for name, phase, src in runs:
            env = dict(os.environ, PYTHONPATH=str(src)) if src else None
            out = subprocess.run(
                [sys.executable, __file__, "--phase", phase, "--dir", str(folder)],
                capture_output=True,
                text=True,
                check=True,
                env=env,
            )
            got = json.loads(out.stdout.strip().splitlines()[-1])
            if name not in best or got["cpu"] < best[name]["cpu"]:
                best[name] = got
    return best


def report(best: dict[str, dict[str, float]], megabytes: float, files: int) -> None:
    """Print the table and one JSON line."""
    floor = best["orjson"]["cpu"]
    print(f"{files} files, {megabytes:.1f} MB")
    print(f"{'':22}{'CPU s':>8}{'wall s':>8}{'MB/s':>8}{'x orjson':>10}{'peak RSS MiB':>14}{'import s':>10}")
    for phase in best:
        row = best[phase]
        print(
            f"{phase:22}{row['cpu']:8.2f}{row['wall']:8.2f}{megabytes / row['cpu']:8.1f}"
            f"{row['cpu'] / floor:10.2f}{row['rss_mib']:14.0f}{row['imports']:10.2f}"
        )
    summary = {
        "files": files,
        "megabytes": round(megabytes, 1),
        **{f"{p}_cpu_s": round(best[p]["cpu"], 3) for p in best},
        **{f"{p}_peak_rss_mib": round(best[p]["rss_mib"]) for p in best},
        **{f"{p}_import_cpu_s": round(best[p]["imports"], 3) for p in best},
        "ratio_load_to_orjson": round(best["load"]["cpu"] / floor, 2),
        "ratio_sdk_to_orjson": round(best["sdk"]["cpu"] / floor, 2),
        "ratio_validate_to_orjson": round(best["validate"]["cpu"] / floor, 2),
    }
    print(json.dumps(summary))


def main() -> None:
    """Generate (or reuse) the files, measure every phase, print the results."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--kib", type=int, default=100, help="approximate size of each trajectory")
    parser.add_argument("--dir", type=Path, default=None, help="reuse/generate files here (default: a temp dir)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per phase; the fastest is kept")
    parser.add_argument("--compare", type=Path, default=None, help="another src folder to measure alongside")
    parser.add_argument("--phase", choices=PHASES, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(run_phase(args.phase, args.dir)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if len(list(folder.glob("*.json"))) != args.files:
            generate(folder, args.files, args.kib)
        megabytes = sum(p.stat().st_size for p in folder.glob("*.json")) / 1e6
        report(measure(folder, args.repeat, args.compare), megabytes, args.files)


if __name__ == "__main__":
    main()
