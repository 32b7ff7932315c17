"""Benchmark: ``tracegrade compare`` of two 10,000-trajectory judge runs; ``dabench compare`` at 500 and 2,000 tasks.

Usage: python benchmarks/bench_compare.py [--trajectories 10000] [--tasks 500,2000] [--dir DIR] [--repeat 3]
       [--old-tracegrade PATH] [--old-dabench PATH]

Part 1 (ATIF): the bundled examples are judged once by the scripted judge (two roots, four nodes, 21 steps, each
step with the bounded copy of what the judge saw); their results are replicated into two run folders of
``--trajectories`` roots each (ids renamed per copy; the candidate's step scores moved by seeded noise, own scores
recomputed), written with a verified manifest. Measured in fresh processes, fastest of ``--repeat``:

- ``read + sha256``: reading and hashing both ``evaluation_results.json`` files, what verifying the manifests costs
  at least;
- ``orjson``: ``orjson.loads`` of both files in a plain process (a reference: every value built, collector on);
- ``compare``: ``tracegrade compare BASELINE CANDIDATE -o DIR`` end to end (start-up, manifest checks, decoding,
  pairing, 2,000 bootstrap resamples, comparison.json and comparison.html); ``--old-tracegrade`` times another
  installation's ``tracegrade`` in the same rounds, so before and after come from one session.

Part 2 (DataAgent-Bench): runs of each ``--tasks`` size are generated and evaluated once with
``benchmarks/bench_dabench.py``'s generator, a copy gets seeded noise on ``final_score``, and ``dabench compare A B``
is timed in a fresh process; ``--old-dabench`` times another installation's ``dabench`` in the same rounds. Goals
(on a quiet machine, where wall ≈ CPU): ATIF compare < 5 s; dabench compare < 1 s at 500 tasks and < 1.5 s at 2,000.
The load average is printed before and after, and CPU seconds beside wall: on a shared machine wall means little.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))


def _template(root: Path) -> dict[str, Any]:
    """The examples' results as the scripted judge scores them."""
    from _scripted_server import start_server

    process, url = start_server()
    try:
        run = root / "template"
        subprocess.run([str(Path(sys.executable).with_name("tracegrade")), "judge", str(REPO / "examples" / "atif"),
                        "--judge-url", url, "--judge-model", "scripted", "-o", str(run), "--no-cache", "-q"],
                       check=True, cwd=REPO)
    finally:
        process.kill()
        process.wait()
    return orjson.loads((run / "evaluation_results.json").read_bytes())  # type: ignore[no-any-return]


def _copy(node: dict[str, Any], prefix: str, noise: Any) -> dict[str, Any]:
    out = dict(node, node_id=prefix + node["node_id"], root_id=prefix + node["root_id"],
               parent_id=None if node["parent_id"] is None else prefix + node["parent_id"],
               children=[prefix + c for c in node["children"]], trajectory_id=None, session_id=None)
    if noise is None:
        return out
    steps, scores = [], []
    for step in node["steps"]:
        if step["score"] is not None:
            score = float(min(1.0, max(0.0, step["score"] + noise.normal(-0.02, 0.1))))
            step = dict(step, score=score, criterion_scores=dict.fromkeys(step["criterion_scores"] or {}, score))
            scores.append(score)
        steps.append(step)
    own = sum(scores) / len(scores) if scores else None
    return dict(out, steps=steps, own_score=own, aggregate=own, passed=None if own is None else own >= 0.5)


def _write_run(folder: Path, template: dict[str, Any], copies: int, seed: int | None) -> None:
    import numpy as np

    from tracegrade.runs import JobStatus, RunFolder

    noise = None if seed is None else np.random.default_rng(seed)
    nodes = [_copy(n, f"c{i:05d}/", noise) for i in range(copies) for n in template["nodes"]]
    document = dict(template, job_id=folder.name, nodes=nodes)
    run = RunFolder(folder, kind="atif-judge", job_id=folder.name)
    run.write_bytes("evaluation_results.json", orjson.dumps(document))
    run.finish(JobStatus.COMPLETED, {"atif_complete": True})


def _fresh(command: list[str]) -> dict[str, float]:
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, capture_output=True, cwd=REPO)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": time.perf_counter() - start, "cpu": cpu}


def _reference(code: str, a: Path, b: Path) -> dict[str, float]:
    """``code`` run on both results files in a fresh process (``sys.argv[1:]`` are the files)."""
    return _fresh([sys.executable, "-c", code, str(a / "evaluation_results.json"), str(b / "evaluation_results.json")])


_HASHED = "import hashlib, sys; [hashlib.sha256(open(p, 'rb').read()).hexdigest() for p in sys.argv[1:]]"
_PARSED = "import orjson, sys; [orjson.loads(open(p, 'rb').read()) for p in sys.argv[1:]]"


def _dabench_runs(root: Path, tasks: int) -> tuple[Path, Path]:
    import bench_dabench

    from tracegrade.dabench import EvalOptions, evaluate_run

    base = root / f"dabench-{tasks}"
    if not (base / "out-b" / "task_metrics.parquet").is_file():
        bench_dabench.generate(base, tasks, 30)
        evaluate_run(EvalOptions(run=str(base / "runs" / "bench"), data_root=base / "data", output=base / "out"))
        bench_dabench._perturbed_copy(base / "out", base / "out-b")
    return base / "out", base / "out-b"


def _best(rounds: list[dict[str, float]]) -> dict[str, float]:
    return min(rounds, key=lambda r: r["wall"])


def main() -> None:
    """Generate, measure and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--trajectories", type=int, default=10_000)
    parser.add_argument("--tasks", default="500,2000")
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--old-tracegrade", type=Path, help="another installation's tracegrade, timed alike")
    parser.add_argument("--old-dabench", type=Path, help="another installation's dabench, timed in the same rounds")
    args = parser.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench-compare-"))
    root.mkdir(parents=True, exist_ok=True)
    copies = args.trajectories // 2  # the examples hold two roots
    base, cand = root / f"atif-{args.trajectories}-base", root / f"atif-{args.trajectories}-cand"
    if not (cand / "manifest.json").is_file():
        template = _template(root)
        _write_run(base, template, copies, None)
        _write_run(cand, template, copies, 7)
    sizes = [int(t) for t in args.tasks.split(",") if t]
    dabench_runs = {tasks: _dabench_runs(root, tasks) for tasks in sizes}
    tracegrade = Path(sys.executable).with_name("tracegrade")
    dabench = Path(sys.executable).with_name("dabench")
    load_before = os.getloadavg()
    results: dict[str, list[dict[str, float]]] = {}
    for _ in range(args.repeat):
        results.setdefault("atif read + sha256", []).append(_reference(_HASHED, base, cand))
        results.setdefault("atif orjson.loads", []).append(_reference(_PARSED, base, cand))
        for name, command in (("atif compare", tracegrade), ("atif compare (old)", args.old_tracegrade)):
            if command:
                results.setdefault(name, []).append(
                    _fresh([str(command), "compare", str(base), str(cand), "-o", str(root / "cmp"), "-q"]))
        for tasks, (a, b) in dabench_runs.items():
            results.setdefault(f"dabench compare {tasks}", []).append(_fresh([str(dabench), "compare", str(a), str(b)]))
            if args.old_dabench:
                results.setdefault(f"dabench compare {tasks} (old)", []).append(
                    _fresh([str(args.old_dabench), "compare", str(a), str(b)]))
    load_after = os.getloadavg()
    size = sum((p / "evaluation_results.json").stat().st_size for p in (base, cand)) / 1e6
    print(f"ATIF: two runs of {args.trajectories} trajectories ({2 * len(_nodes(base))} nodes, {size:.0f} MB of "
          f"results); dabench: {', '.join(map(str, sizes))} tasks; fastest of {args.repeat} rounds in {root}")
    print(f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'measure':<32} {'wall s':>8} {'cpu s':>8}")
    for name, rounds in results.items():
        best = _best(rounds)
        print(f"{name:<32} {best['wall']:>8.2f} {best['cpu']:>8.2f}")
    atif = _best(results["atif compare"])
    print(f"atif compare: {atif['wall']:.2f} s wall, {atif['cpu']:.2f} s CPU; goal < 5 s: "
          f"{'met' if atif['wall'] < 5 else 'met in CPU, not in wall at this load' if atif['cpu'] < 5 else 'not met'}")
    if args.old_tracegrade:
        before = _best(results["atif compare (old)"])
        print(f"atif compare old / new: {before['wall'] / atif['wall']:.1f}x wall, "
              f"{before['cpu'] / atif['cpu']:.1f}x CPU")
    for tasks in sizes:
        wall = _best(results[f"dabench compare {tasks}"])["wall"]
        goal = 1.0 if tasks <= 500 else 1.5
        old = results.get(f"dabench compare {tasks} (old)")
        ratio = f"; old / new {_best(old)['wall'] / wall:.1f}x" if old else ""
        print(f"dabench compare {tasks}: {wall:.2f} s, goal < {goal:g} s: {'met' if wall < goal else 'not met'}{ratio}")


def _nodes(folder: Path) -> list[Any]:
    return orjson.loads((folder / "evaluation_results.json").read_bytes())["nodes"]  # type: ignore[no-any-return]


if __name__ == "__main__":
    main()
