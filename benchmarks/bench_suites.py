"""Evaluation-suite benchmark: score 100,000 recorded attempts x 10 checks, then compare two such reports.

Run: ``.venv/bin/python benchmarks/bench_suites.py [--cases 100000] [--resamples 2000] [--score-only]``.
Goals: scoring within 8x its floor, each of the two stages under 30 s on the development machine (2 cores).
The floor, measured in the same run before scoring, is ``orjson.loads`` of the same inputs (the dataset, its
case files and every results line, the garbage collector off), nothing kept.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from tracegrade._io import command_collector
from tracegrade.suites import (
    IntervalParameters,
    RecordedResults,
    SuiteRunParameters,
    compare_reports,
    load_dataset,
    read_report,
    report_parts,
    run_dataset,
    write_private,
)

LABELS = ["billing", "cancellation", "technical"]


def make_case(i: int) -> dict[str, Any]:
    label = LABELS[i % 3]
    exps = [
        {"name": "st", "path": "/execution/status", "expected": "completed"},
        {"name": "cat", "path": "/flows/t/steps/c/selection/category/id", "expected": label},
        {"name": "org", "path": "/flows/t/steps/c/selection/origin", "expected": "model"},
        {"name": "tag", "path": "/payload/tags", "expected": ["a", "b"], "comparison": "set"},
        {"name": "pri", "path": "/payload/pri", "expected": [1, 2], "comparison": "one_of"},
        {"name": "rep", "path": "/payload/reply", "expected": "thank you", "comparison": "contains"},
        {"name": "tit", "path": "/payload/title", "expected": f"T {i}", "comparison": "text"},
        {"name": "ids", "path": "/payload/items", "expected": [1, 2], "each": "/id"},
        {"name": "not", "path": "/payload/note", "expected": None, "absent_as_null": True},
        {"name": "dra", "path": "/flows/r/steps/d/result", "expected": "ok"},
    ]
    return {"id": f"c{i}", "input": {"payload": {"m": i}}, "expectations": exps}


def make_result(i: int, rng: random.Random) -> dict[str, Any]:
    label = LABELS[i % 3] if rng.random() < 0.9 else LABELS[(i + 1) % 3]
    review = rng.random() < 0.05
    return {
        "payload": {"tags": ["b", "a"], "priority": rng.choice([1, 2, 3]), "reply": "Thank you!",
                    "title": f"t  {i}", "items": [{"id": 1}, {"id": 2}]},
        "flows": {"t": {"status": "completed", "steps": {"c": {
            "status": "completed", "result": {"answer": {"optionId": label}},
            "selection": {"category": {"id": label}, "origin": "model"}}}},
            "r": {"status": "skipped" if review else "completed", "steps": {"d": {
                "status": "skipped"} if review else {"status": "completed", "result": "ok"}}}},
        "execution": {"status": "needs_review" if review else "completed",
                      "usage": {"model_requests": 1, "input_tokens": 100, "output_tokens": None}},
    }


def write_inputs(folder: Path, cases: int, seed: int, suites: int = 2) -> tuple[Path, Path]:
    """A dataset of ``suites`` suites splitting ``cases`` cases (each case file stays under 64 MiB)."""
    dataset = folder / "dataset.json"
    per_suite = cases // suites
    entries = []
    for number in range(suites):
        name = f"cases-{number}.json"
        chunk = [make_case(i) for i in range(number * per_suite, (number + 1) * per_suite)]
        (folder / name).write_text(json.dumps(chunk, separators=(",", ":")))
        entries.append({"name": f"part{number}", "workflow": "w", "cases": name,
                        "metrics": [{"name": "category", "path": "/flows/t/steps/c/selection/category/id",
                                     "kind": "classification", "labels": LABELS}]})
    dataset.write_text(json.dumps({"name": "bench", "revision": "1", "suites": entries}))
    rng = random.Random(seed)
    results = folder / f"results-{seed}.jsonl"
    with results.open("w") as handle:
        for i in range(cases):
            line = {"id": f"c{i}", "result": None if rng.random() < 0.01 else make_result(i, rng),
                    "elapsed_seconds": rng.uniform(0.1, 3.0)}
            handle.write(json.dumps(line) + "\n")
    return dataset, results


def floor(folder: Path, results: Path) -> tuple[float, float]:
    """Wall and CPU seconds to parse every input of one scoring with orjson, the collector off (best of three)."""
    inputs = [folder / "dataset.json", *sorted(folder.glob("cases-*.json"))]
    best, best_cpu = float("inf"), float("inf")
    gc.disable()
    try:
        for _ in range(3):
            start, cpu = time.perf_counter(), time.process_time()
            for path in inputs:
                orjson.loads(path.read_bytes())
            with results.open("rb") as handle:
                for line in handle:
                    orjson.loads(line)
            best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, time.process_time() - cpu)
    finally:
        gc.enable()
    return best, best_cpu


def timed(label: str, start: tuple[float, float]) -> tuple[float, float]:
    now = time.perf_counter(), time.process_time()
    print(f"  {label:<44} {now[0] - start[0]:7.2f} s wall {now[1] - start[1]:7.2f} s CPU")
    return now


def score(folder: Path, dataset_path: Path, results: Path, name: str) -> tuple[Path, tuple[float, float]]:
    """The stages of ``tracegrade suite run --results``, under the collector policy the CLI applies."""
    with command_collector(offline=True):
        return _score(folder, dataset_path, results, name)


def _score(folder: Path, dataset_path: Path, results: Path, name: str) -> tuple[Path, tuple[float, float]]:
    start = time.perf_counter(), time.process_time()
    dataset = load_dataset(dataset_path)
    mark = timed("load and validate dataset", start)
    target = RecordedResults(results, dataset, 1)
    mark = timed("read recorded results", mark)
    params = SuiteRunParameters(details=False, concurrency_limit=1)
    report = asyncio.run(run_dataset(dataset, target, params))
    mark = timed("score, summarise, intervals (run_dataset)", mark)
    path = folder / name
    write_private(path, report_parts(report))
    timed("write report JSON", mark)
    total = sum(s.checks.total for s in report.suites)
    passed = sum(s.checks.passed for s in report.suites)
    print(f"  checks scored: {total:,} (passed {passed:,}) in {len(report.suites)} suites")
    return path, (time.perf_counter() - start[0], time.process_time() - start[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--score-only", action="store_true", help="stop after stage 1 (scoring against its floor)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        dataset, baseline_results = write_inputs(folder, args.cases, seed=1)
        print(f"stage 1: {args.cases:,} recorded attempts x 10 checks")
        parse, parse_cpu = floor(folder, baseline_results)
        print(f"  floor: orjson.loads of the same inputs {parse:10.2f} s wall {parse_cpu:7.2f} s CPU")
        baseline, (total, total_cpu) = score(folder, dataset, baseline_results, "baseline.json")
        print(f"  total {total:.2f} s wall = {total / parse:.1f}x the floor, {total_cpu:.2f} s CPU = "
              f"{total_cpu / parse_cpu:.1f}x the floor's CPU (goal <= 8x)")
        if args.score_only:
            return
        _, candidate_results = write_inputs(folder, args.cases, seed=2)
        candidate, _ = score(folder, dataset, candidate_results, "candidate.json")
        print(f"stage 2: compare over {args.cases:,} source cases, {args.resamples:,} bootstrap resamples")
        start = time.perf_counter(), time.process_time()
        with command_collector(offline=True):  # as the CLI runs `suite compare`
            base_report, cand_report = read_report(baseline), read_report(candidate)
            mark = timed("read both reports", start)
            result = compare_reports(cand_report, base_report, IntervalParameters(resamples=args.resamples))
            deltas = sum(len(s.deltas) for s in result.suites)
            timed(f"compare ({deltas} bootstrapped deltas)", mark)
        print(f"  total {time.perf_counter() - start[0]:.2f} s; changes {result.suites[0].changes.model_dump()}")


if __name__ == "__main__":
    main()
