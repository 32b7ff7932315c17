"""Benchmark: ``dabench eval-v2`` on a generated run against plain orjson parsing of the same files.

Usage: python benchmarks/bench_dabench.py [--tasks 2000] [--steps 30] [--dir DIR] [--repeat 2]
       [--phases orjson,eval,write,rows] [--compare SRC]

A run of ``--tasks`` tasks in the official ReAct trace shape (``--steps`` steps each, with tool output), a
prediction.csv and a gold.csv per task, is generated once. Each measurement runs in a fresh child process
(its own peak RSS); the fastest of ``--repeat`` rounds is kept:

- ``orjson``: ``orjson.loads`` of every trace.json plus reading every prediction/gold CSV (the floor);
- ``eval``: ``evaluate_run`` (read, normalise, score, every metric family, four tables in CSV + Parquet), under
  the collector policy the CLI applies (as ``pipeline``);
- ``write``: a lower bound for writing those tables from Python: the pyarrow imports plus Arrow's own C++ CSV
  and Parquet writers on the finished tables (read back from ``eval``'s Parquet files, untimed), so no trace
  is read and no cell is built in Python (needs ``eval`` first);
- ``rows``: a lower bound for building the per-step tables' cells in Python: the traces are parsed untimed,
  then plain Python builds the 30 trajectory cells and 17 tool-call cells of every step (no metric, no
  answer, no metadata column), the fastest pattern measured (one list comprehension per column and task);
- ``pipeline``: ``dabench eval-v2`` end to end in standard mode (part 1 plus reconciliation, replay artifacts,
  health, auditor report, report.json and report.html with figures);
- ``compare``: the ``dabench compare A B`` command in a fresh process (start-up included) on the pipeline's
  task_metrics and a copy with perturbed scores, 2,000 bootstrap resamples.

``--compare SRC`` also runs ``eval`` with another checkout's ``src`` folder first on the path, in the same
rounds (alternating with this tree's), and prints the minimum and median CPU seconds of both.

Goals: eval ≤ 3× the floor and peak RSS < 500 MB (tasks are streamed, not held); pipeline ≤ 2× eval;
compare < 5 s wall clock. Every phase runs in one process (no worker pool); the load average is printed
before and after, since wall times on a shared machine mean little without it.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

OUTPUTS = {"eval": "out", "write": "write-only", "pipeline": "full"}
"""The folder each phase writes (removed before it runs; the compare phase reads ``full``)."""
TOOLS = ("list_context", "read_csv", "read_json", "inspect_sqlite_schema", "execute_context_sql", "execute_python")


def make_trace(index: int, steps: int) -> dict[str, object]:
    """One official-shape trace with realistic tool output."""
    filler = "The agent reads the schema and decides which table to query next. " * 4
    out = []
    for step in range(1, steps):
        tool = TOOLS[step % len(TOOLS)]
        content = {
            "path": f"csv/t{step}.csv",
            "columns": ["id", "name", "amount"],
            "rows": [[i, f"n{i}", i * 1.5] for i in range(20)],
            "row_count": 20,
        }
        ok = step % 11 != 0
        observation = {"ok": True, "tool": tool, "content": content} if ok else {"ok": False, "error": "KeyError: 'x'"}
        out.append(
            {
                "step_index": step,
                "thought": filler,
                "action": tool,
                "action_input": {"path": f"csv/t{step}.csv"},
                "raw_response": filler,
                "observation": observation,
                "ok": ok,
            }
        )
    answer = {"columns": ["id", "total"], "rows": [[index, 42.5]]}
    out.append(
        {
            "step_index": steps,
            "thought": "done",
            "action": "answer",
            "action_input": answer,
            "raw_response": "",
            "observation": {"ok": True, "tool": "answer", "content": {"status": "submitted"}},
            "ok": True,
        }
    )
    return {
        "task_id": f"task_{index}",
        "answer": answer,
        "steps": out,
        "failure_reason": None,
        "succeeded": True,
        "e2e_elapsed_seconds": 12.5,
    }


def generate(root: Path, tasks: int, steps: int) -> None:
    """Write runs/bench/ and data/ under ``root``."""
    run = root / "runs" / "bench"
    entries = []
    for index in range(1, tasks + 1):
        task_id = f"task_{index}"
        (run / task_id).mkdir(parents=True, exist_ok=True)
        (run / task_id / "trace.json").write_text(json.dumps(make_trace(index, steps), indent=2) + "\n")
        with (run / task_id / "prediction.csv").open("w", newline="") as handle:
            csv.writer(handle).writerows([["id", "total"], [index, 42.5]])
        (root / "data" / "input" / task_id).mkdir(parents=True, exist_ok=True)
        task = {"task_id": task_id, "difficulty": ("easy", "medium", "hard")[index % 3], "question": "q"}
        (root / "data" / "input" / task_id / "task.json").write_text(json.dumps(task))
        (root / "data" / "output" / task_id).mkdir(parents=True, exist_ok=True)
        with (root / "data" / "output" / task_id / "gold.csv").open("w", newline="") as handle:
            csv.writer(handle).writerows([["total"], [42.5 if index % 4 else 41]])
        entries.append(
            {
                "task_id": task_id,
                "task_output_dir": "",
                "prediction_csv_path": "",
                "trace_path": "",
                "succeeded": True,
                "failure_reason": None,
            }
        )
    summary = {
        "run_id": "bench",
        "task_count": tasks,
        "succeeded_task_count": tasks,
        "max_workers": 1,
        "tasks": entries,
    }
    (run / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


def _command_collector() -> contextlib.AbstractContextManager[None]:
    """The collector policy the CLI applies around ``dabench eval-v2`` (none in a tree older than ``_io``)."""
    try:
        from tracegrade._io import command_collector
    except ImportError:  # an older checkout paused the collector inside evaluate_run
        return contextlib.nullcontext()
    return command_collector()


def child(phase: str, root: Path) -> dict[str, float]:
    """Run one phase in this process and report CPU, wall and peak RSS."""
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    if phase == "orjson":
        for folder in sorted((root / "runs" / "bench").glob("task_*")):
            orjson.loads((folder / "trace.json").read_bytes())
            (folder / "prediction.csv").read_bytes()
            (root / "data" / "output" / folder.name / "gold.csv").read_bytes()
    elif phase == "eval":
        from tracegrade.dabench import EvalOptions, evaluate_run

        with _command_collector():
            evaluate_run(EvalOptions(run=str(root / "runs" / "bench"), data_root=root / "data", output=root / "out"))
    elif phase == "write":
        return _write_only(root / "out", root / "write-only")
    elif phase == "rows":
        return _bare_rows(root / "runs" / "bench")
    elif phase == "pipeline":
        from tracegrade.dabench import EvalOptions, Mode, PipelineOptions, run_pipeline

        options = EvalOptions(run=str(root / "runs" / "bench"), data_root=root / "data", output=root / "full")
        with _command_collector():
            run_pipeline(options, PipelineOptions(mode=Mode.STANDARD))
    else:
        _perturbed_copy(root / "full", root / "full-b")
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        dabench = Path(sys.executable).with_name("dabench")
        command = [str(dabench), "compare", str(root / "full"), str(root / "full-b"), "--resamples", "2000"]
        subprocess.run(command, check=True, capture_output=True)
    return {
        "cpu": time.process_time() - start_cpu,
        "wall": time.perf_counter() - start_wall,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _write_only(tables: Path, target: Path) -> dict[str, float]:
    """The imports and Arrow's own writers for ``eval``'s four tables (reading them back is not timed)."""
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
    loaded = {path.stem: pq.read_table(path) for path in sorted(tables.glob("*.parquet"))}
    target.mkdir(parents=True, exist_ok=True)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    for name, table in loaded.items():  # Arrow streams each file to disk: no copy of the text in Python
        pacsv.write_csv(table, target / f"{name}.csv", pacsv.WriteOptions(quoting_style="needed"))
        pq.write_table(table, target / f"{name}.parquet")
    return {
        "cpu": cpu + time.process_time() - start_cpu,
        "wall": wall + time.perf_counter() - start_wall,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _bare_rows(run: Path) -> dict[str, float]:
    """Time only the Python loop that builds the two per-step tables' cells from parsed traces."""
    traces = [orjson.loads(path.read_bytes()) for path in sorted(run.glob("task_*/trace.json"))]
    stages = {"read_csv": ("understanding", "explore", "UNDERSTAND")}
    other = ("execution", "execute", "EXECUTE")

    def cap(text: str) -> str:
        return text if len(text) <= 300 else text[:299] + "…"

    start_cpu, start_wall = time.process_time(), time.perf_counter()
    columns: list[list[object]] = [[] for _ in range(47)]
    for trace in traces:  # one list comprehension per column and task: faster than a row tuple per step
        task_id, steps = trace["task_id"], trace["steps"]
        count, trace_id = len(steps), f"{task_id}/trace.json"
        index = [step.get("step_index") for step in steps]
        action = [step.get("action") for step in steps]
        stage = [stages.get(name, other) for name in action]
        seen = [step.get("observation") for step in steps]
        given_text = [orjson.dumps(step.get("action_input")).decode() for step in steps]
        seen_text = [orjson.dumps(observation).decode() for observation in seen]
        ok = [bool(step.get("ok")) for step in steps]
        error = [observation.get("error") if isinstance(observation, dict) else None for observation in seen]
        run, task, trace_ids, none = ["bench"] * count, [task_id] * count, [trace_id] * count, [None] * count
        stage_text = [names[0] for names in stage]
        trajectory = [run, task, trace_ids, index, none, stage_text, [names[1] for names in stage],
                      [names[2] for names in stage], none, none, none, action, action, none, none, none, none, none,
                      none, ok, none, none, none, none, none, [cap(step.get("thought") or "") for step in steps],
                      list(map(cap, given_text)), list(map(cap, seen_text)),
                      [cap(step.get("raw_response") or "") for step in steps], none]  # fmt: skip
        calls = [run, task, trace_ids, index, [f"{task_id}:{i}" for i in index], action, stage_text, ok, none, none,
                 [0] * count, list(map(len, given_text)), list(map(len, seen_text)),
                 [e and e.split(":")[0] for e in error], error, none, none]  # fmt: skip
        for column, cells in zip(columns, trajectory + calls, strict=True):
            column.extend(cells)
    assert len(columns) == 47
    return {
        "cpu": time.process_time() - start_cpu,
        "wall": time.perf_counter() - start_wall,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _perturbed_copy(source: Path, target: Path) -> None:
    """A second evaluated run: the same task_metrics with every final_score moved by seeded noise."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(source / "task_metrics.parquet")
    scores = np.asarray(table.column("final_score").to_numpy(zero_copy_only=False), dtype=float)
    noisy = np.clip(scores + np.random.default_rng(0).normal(0, 0.1, scores.size), 0, 1)
    index = table.schema.get_field_index("final_score")
    target.mkdir(parents=True, exist_ok=True)
    pq.write_table(table.set_column(index, "final_score", pa.array(noisy)), target / "task_metrics.parquet")
    (target / "manifest.json").write_bytes((source / "manifest.json").read_bytes())


def measure(phase: str, root: Path, src: Path | None = None) -> dict[str, float]:
    """Run a phase in a fresh child process, writing into a new folder (replacing files costs the file system more).

    With ``src``, that folder is first on the child's path (another checkout's sources).
    """
    shutil.rmtree(root / OUTPUTS.get(phase, "no-output"), ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=str(src)) if src else None
    result = subprocess.run(
        [sys.executable, __file__, "--child", phase, "--dir", str(root)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    """Generate, measure and print a table and a JSON line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--phases", default="orjson,eval,write,rows,pipeline,compare", help="part 1 alone: orjson,eval")
    parser.add_argument("--compare", type=Path, default=None, help="another src folder to run eval with alongside")
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.dir)))
        return
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench-dabench-"))
    if not (root / "runs" / "bench" / "summary.json").is_file():
        generate(root, args.tasks, args.steps)
    size = sum(p.stat().st_size for p in (root / "runs").rglob("*") if p.is_file())
    load_before = os.getloadavg()
    best: dict[str, dict[str, float]] = {}
    runs: list[tuple[str, str, Path | None]] = [(phase, phase, None) for phase in args.phases.split(",")]
    if args.compare is not None:
        runs.insert(runs.index(("eval", "eval", None)) + 1, ("eval (compared)", "eval", args.compare))
    rounds: dict[str, list[float]] = {name: [] for name, _, _ in runs}
    for _ in range(args.repeat):
        for name, phase, src in runs:
            got = measure(phase, root, src)
            rounds[name].append(got["cpu"])
            if name not in best or got["cpu"] < best[name]["cpu"]:
                best[name] = got
    ratio = best["eval"]["cpu"] / best["orjson"]["cpu"]
    wall_ratio = best["eval"]["wall"] / best["orjson"]["wall"]
    load_after = os.getloadavg()
    print(f"{args.tasks} tasks x {args.steps} steps, {size / 1e6:.1f} MB of run files in {root}")
    print(f"1 process per phase; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'phase':<8} {'cpu s':>8} {'wall s':>8} {'peak RSS MB':>12}")
    for phase, got in best.items():
        print(f"{phase:<8} {got['cpu']:>8.2f} {got['wall']:>8.2f} {got['rss_mb']:>12.1f}")
    if args.compare is not None:
        this, other = rounds["eval"], rounds["eval (compared)"]
        print(f"eval CPU s, this tree: min {min(this):.3f}, median {statistics.median(this):.3f}; "
              f"{args.compare}: min {min(other):.3f}, median {statistics.median(other):.3f} "
              f"(this / compared: min {min(this) / min(other):.3f}x, "
              f"median {statistics.median(this) / statistics.median(other):.3f}x)")  # fmt: skip
    print(f"eval / orjson: CPU {ratio:.2f}x, wall {wall_ratio:.2f}x (goal <= 3x); eval peak RSS "
          f"{best['eval']['rss_mb']:.0f} MB (goal < 500)")  # fmt: skip
    if "write" in best:
        floor = (best["orjson"]["wall"] + best["write"]["wall"]) / best["orjson"]["wall"]
        print(f"(orjson + write) / orjson: wall {floor:.2f}x: reading the files and writing the tables alone")
    if "write" in best and "rows" in best:
        bound = sum(best[p]["wall"] for p in ("orjson", "write", "rows")) / best["orjson"]["wall"]
        print(f"(orjson + write + rows) / orjson: wall {bound:.2f}x: also building the per-step cells, no metric")
    if "pipeline" in best and "compare" in best:
        full = best["pipeline"]["wall"] / best["eval"]["wall"]
        full_cpu = best["pipeline"]["cpu"] / best["eval"]["cpu"]
        compare = best["compare"]["wall"]
        print(f"pipeline / eval: wall {full:.2f}x, CPU {full_cpu:.2f}x (goal <= 2x); compare wall {compare:.2f}s "
              "(goal < 5 s)")  # fmt: skip
    print(
        json.dumps(
            {
                "tasks": args.tasks,
                "steps": args.steps,
                "bytes": size,
                "ratio": ratio,
                "wall_ratio": wall_ratio,
                "processes": 1,
                "load_before": load_before[0],
                "load_after": load_after[0],
                **{f"{p}_{k}": v for p, r in best.items() for k, v in r.items()},
                **{f"{p}_cpu_rounds": r for p, r in rounds.items() if args.compare is not None},
            }
        )
    )


if __name__ == "__main__":
    main()
