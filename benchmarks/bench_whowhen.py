"""Benchmark: Who&When failure attribution with your judge, in the paper's table layout beside published figures.

Usage:
    python benchmarks/bench_whowhen.py --judge-url URL --judge-model M [--subset algorithm|hand]
        [--strategies all-at-once,step-by-step,binary-search] [--limit N] [--ground-truth both|with|without]
    python benchmarks/bench_whowhen.py --judge local --limit 3       # the bundled 270M judge: a smoke test

The logs are read from ../shared/corpus/whowhen/ (or --data; `--subset hand` reads its Hand-Crafted/ folder, whose
logs name the speaker in `role`, as `Orchestrator (-> WebSurfer)`: the agents are those names, and the user's
turns are never a candidate) and imported into a temporary folder (never into the repository); each strategy runs
with and without the ground-truth answer shown to the judge, through the
same judge client as ``tracegrade localise`` (cache, retries, concurrency). Printed per strategy: agent-level
and step-level accuracy with their 95 % intervals and n, the published figures beside them, judge calls (and
how many the cache answered), tokens and wall time. The published figures are those recorded in the project's
spec; a cell with no recorded figure shows "—".
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracegrade.atif import (
    JudgeTarget,
    LocalisationResults,
    LocaliseInputs,
    LocaliseOptions,
    Strategy,
    localise_inputs,
    run_localise_job,
)
from tracegrade.atif.agreement import LocalisationAgreement, measure_localisations, read_labels
from tracegrade.atif.importing import import_whowhen

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "corpus" / "whowhen"
SUBSETS = {"algorithm": "Algorithm-Generated", "hand": "Hand-Crafted"}
NAMES = {Strategy.ALL_AT_ONCE: "All-at-once", Strategy.STEP_BY_STEP: "Step-by-step",
         Strategy.BINARY_SEARCH: "Binary search"}
PUBLISHED: dict[str, list[tuple[str, str | None, str | None]]] = {
    "algorithm": [("A2P (arXiv 2509.10401)", None, "47.46"), ("AgenTracer-8B (arXiv 2509.03312, a summary)", None,
                                                              "37.30")],
    "hand": [("A2P (arXiv 2509.10401)", None, "29.31"), ("AgenTracer-8B (arXiv 2509.03312, a summary)", "69.10",
                                                         "20.68")],
}
"""Published agent / step accuracy (%) by subset, from the spec; the Who&When paper's best baseline is below."""
PAPER_BEST = ("Who&When paper, best baseline (arXiv 2505.00212)", "53.5", "14.2")


@dataclass(frozen=True)
class Row:
    strategy: Strategy
    ground_truth: bool
    results: LocalisationResults
    seconds: float


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    folder = args.data / SUBSETS[args.subset]
    if not folder.is_dir():
        print(f"{folder}: not there (this corpus holds {', '.join(p.name for p in args.data.iterdir() if p.is_dir())})",
              file=sys.stderr)
        return 2
    logs = sorted(folder.glob("*.json"), key=lambda p: (len(p.stem), p.stem))[: args.limit]
    target = (JudgeTarget(local=True) if args.judge == "local"
              else JudgeTarget(url=args.judge_url, model=args.judge_model, api_key_env=args.judge_api_key_env))
    with tempfile.TemporaryDirectory(prefix="whowhen-") as scratch:
        imported = import_whowhen(logs, Path(scratch))
        inputs = localise_inputs([Path(scratch) / "trajectories"])
        rows = [run_one(inputs, strategy, gt, target, args) for strategy in args.strategies for gt in args.gt]
        scored = measure_localisations([(f"{r.strategy.value}:{r.ground_truth}", r.results) for r in rows],
                                       read_labels(imported.labels_path), labels_file="labels.jsonl")
    print(table(rows, scored, args, len(logs)))
    return 0


def run_one(inputs: LocaliseInputs, strategy: Strategy, ground_truth: bool, target: JudgeTarget,
            args: argparse.Namespace) -> Row:
    options = LocaliseOptions(strategy=strategy, with_ground_truth=ground_truth, concurrency_limit=args.concurrency,
                              judge_max_attempts=args.attempts, **({"max_context_bytes": args.max_context_bytes}
                                                                  if args.max_context_bytes else {}))
    start = time.perf_counter()
    results = asyncio.run(run_localise_job(inputs, options, target, job_id=f"whowhen-{strategy.value}",
                                           cache_path=args.cache))
    return Row(strategy, ground_truth, results, time.perf_counter() - start)


def table(rows: list[Row], scored: LocalisationAgreement, args: argparse.Namespace, logs: int) -> str:
    judge = "local (Gemma 3 270M: a smoke test, not a judge of agents)" if args.judge == "local" else args.judge_model
    lines = [f"Who&When {SUBSETS[args.subset]}: {logs} log{'' if logs == 1 else 's'}, judge {judge}", "",
             f"{'Method':<15}{'GT':<5}{'Agent-level accuracy %':<28}{'Step-level accuracy %':<28}"
             f"{'calls':>6}{'cached':>7}{'tokens in/out':>16}{'wall s':>9}{'failed':>7}{'fallback':>9}",
             f"{'':<20}{'ours [95% CI] (n)':<28}{'ours [95% CI] (n)':<28}"]
    for row, agreement in zip(rows, scored.strategies, strict=True):
        judge_counts = row.results.summary.judge
        tokens = f"{judge_counts.get('input_tokens', 0)}/{judge_counts.get('output_tokens', 0)}"
        lines.append(f"{NAMES[row.strategy]:<15}{'yes' if row.ground_truth else 'no':<5}"
                     f"{cell(agreement.agent):<28}{cell(agreement.step):<28}{row.results.summary.calls:>6}"
                     f"{judge_counts.get('cache_hits', 0):>7}{tokens:>16}{row.seconds:>9.1f}"
                     f"{row.results.summary.failed:>7}{row.results.summary.fallbacks:>9}")
    failures = [f"{NAMES[row.strategy]} ({'with' if row.ground_truth else 'without'} GT): {t.node_id} {t.error_code}"
                for row in rows for t in row.results.trajectories if t.error_code is not None]
    if failures:
        lines += ["", "No usable judge answer (left out of n):", *(f"  {line}" for line in failures)]
    lines += ["", "Published (same metrics; per-strategy figures of the paper are not recorded here):",
              f"  {'':<52}{'agent %':>8}{'step %':>10}"]
    for name, agent, step in [PAPER_BEST, *PUBLISHED[args.subset]]:
        lines.append(f"  {name:<52}{agent or '—':>8}{step or '—':>10}")
    lines.append("Failed trajectories (no usable judge answer) are left out of n, never scored; see localisation.json.")
    if any(row.results.summary.judge.get("cache_hits") for row in rows):
        lines.append("Calls answered from the cache (--cache) count in calls but not in tokens or wall time.")
    return "\n".join(lines)


def cell(estimate: Any) -> str:
    value, low, high, n = estimate.value, estimate.low, estimate.high, estimate.n
    if value is None:
        return f"— (n={n})"
    bounds = "" if low is None or high is None else f" [{100 * low:.1f}, {100 * high:.1f}]"
    return f"{100 * value:.1f}{bounds} ({n})"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", choices=["local"], help="the bundled local judge instead of an endpoint")
    parser.add_argument("--judge-url")
    parser.add_argument("--judge-model")
    parser.add_argument("--judge-api-key-env", help="name of the env var holding the key (never the key)")
    parser.add_argument("--subset", choices=sorted(SUBSETS), default="algorithm")
    parser.add_argument("--strategies", default="all-at-once,step-by-step,binary-search",
                        type=lambda text: [Strategy(s.strip()) for s in text.split(",") if s.strip()])
    parser.add_argument("--ground-truth", dest="ground_truth", choices=["both", "with", "without"], default="both")
    parser.add_argument("--limit", type=int, default=None, help="only the first N logs (by number)")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--max-context-bytes", type=int, default=None)
    parser.add_argument("--cache", type=Path, default=None, help="judge cache file (default: none)")
    args = parser.parse_args(argv)
    if args.judge is None and not (args.judge_url and args.judge_model):
        parser.error("give --judge-url and --judge-model, or --judge local")
    if Strategy.FROM_SCORES in args.strategies:
        parser.error("from-scores needs a judge run; compare it with tracegrade agree instead")
    args.gt = {"both": [False, True], "with": [True], "without": [False]}[args.ground_truth]
    return args


if __name__ == "__main__":
    sys.exit(main())
