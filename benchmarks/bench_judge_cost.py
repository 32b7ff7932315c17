"""Benchmark: what judging costs in requests and input tokens, and how much of it a prompt cache could serve.

Usage: python benchmarks/bench_judge_cost.py [--before /work/main] [--trajectories 3] [--lengths 10,20,30,100,300]
       [--estimate-trajectories 20]

Scores the bundled examples (examples/atif), the Harbor corpus (../shared/corpus/atif/harbor, when present) and
generated trajectories of each length (steps of about 2 KB: a reasoning line, a tool call and its output of
0.6-2.4 KB; 3 KB of tool definitions) against the scripted judge (tests.atif.scripted, every step 0.75, so no
categorisation), once with the tree before (``--before``: its ``src`` and ``tests``) and once with this tree, each
in its own process. Every request the judge receives is read back, and per input set it prints:

* requests and input tokens per scored step, and input tokens per trajectory;
* the cacheable share: the tokens of each request that lie in a prefix it shares with an earlier request of
  the job, counted only from 1,024 tokens on and in 128-token blocks, as OpenAI's automatic prompt cache
  serves them, over all input tokens.

Tokens are counted with tiktoken's cl100k_base when it is installed and its encoding file can be loaded (it is
fetched from the internet the first time); otherwise as the bytes of the messages' text / 4 (the run says which).

Last, the dry run of this tree (``tracegrade judge --dry-run --judge-batch``, gpt-4o-mini list prices: $0.15 a
million input tokens, $0.075 cached, $0.60 output) estimates a job of ``--estimate-trajectories`` generated
trajectories of 30 steps, scaled to 1,000 trajectories, against today's online price of the same job (the tree
before, its own cacheable share, no batch, the same output-token assumption).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
HARBOR = REPO.parent / "shared" / "corpus" / "atif" / "harbor"
PRICES = {"input": 0.15, "cached_input": 0.075, "output": 0.60}
"""gpt-4o-mini list prices in dollars per million tokens."""
OUTPUT_TOKENS = {"score": 120, "categorize": 80, "derive": 300}
"""Output tokens assumed per answer (as the dry run assumes)."""
RUBRIC = {"scoring_mode": "benchmark", "benchmark_name": "terminal-bench"}
MIN_TOKENS, BLOCK_TOKENS = 1024, 128


# --- tokens and the prefix cache (no tracegrade import: the same code measures both trees) ---------------------


def tokenizer() -> tuple[str, Any]:
    """cl100k_base when tiktoken can load it, else None (bytes / 4)."""
    try:
        import tiktoken

        return "tiktoken cl100k_base", tiktoken.get_encoding("cl100k_base")
    except Exception:
        return "bytes of the messages' text / 4 (tiktoken's cl100k_base could not be loaded offline)", None


def token_units(text: str, encoding: Any) -> tuple[bytes, int]:
    """The prompt as 4-byte units, one per token, and its token count."""
    if encoding is None:
        data = text.encode()
        return data, -(-len(data) // 4)
    ids = encoding.encode(text, disallowed_special=())
    return b"".join(i.to_bytes(4, "little") for i in ids), len(ids)


class PrefixCache:
    """The longest prefix each prompt shares with an earlier one, from 1,024 tokens on, in 128-token blocks."""

    def __init__(self) -> None:
        self.seen: set[bytes] = set()

    def serve(self, units: bytes) -> int:
        block = BLOCK_TOKENS * 4
        digest = hashlib.blake2b(digest_size=16)
        served, matching = 0, True
        for index, start in enumerate(range(0, len(units) - block + 1, block), start=1):
            digest.update(units[start:start + block])
            key = digest.digest()
            if matching and key in self.seen:
                served = index
            else:
                matching = False
                self.seen.add(key)
        return served * BLOCK_TOKENS if served * BLOCK_TOKENS >= MIN_TOKENS else 0


def prompt_text(body: dict[str, Any]) -> str:
    return "".join(f"{m['role']}\n{m['content']}\n" for m in body.get("messages", []))


def purpose(body: dict[str, Any]) -> str:
    name = (body.get("response_format") or {}).get("json_schema", {}).get("name", "")
    return name.removeprefix("tracegrade_") or "other"


# --- inputs -----------------------------------------------------------------------------------------------------


def generated(folder: Path, steps: int, count: int) -> Path:
    """``count`` trajectories of ``steps`` steps (seeded), written under ``folder``."""
    target = folder / f"steps-{steps}"
    target.mkdir(parents=True, exist_ok=True)
    tools = [{"type": "function", "function": {"name": name, "description": f"{name}: " + "runs a command. " * 40,
                                                "parameters": {"type": "object", "properties": {"cmd": {
                                                    "type": "string"}}}}} for name in ("shell", "edit", "search")]
    for t in range(count):
        rng = random.Random(steps * 1000 + t)
        task = f"Trajectory {t}: fix the failing test in module m{t} and explain the cause. " * 3
        rows: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": task}]
        for i in range(2, steps + 1):
            output = " ".join(f"line{rng.randrange(10**6)}" for _ in range(rng.randrange(60, 240)))
            rows.append({"step_id": i, "source": "agent", "message": f"Step {i}: looking at the next file.",
                         "reasoning_content": "The output suggests " + "checking the import path " * 4,
                         "tool_calls": [{"tool_call_id": f"c{i}", "function_name": "shell",
                                         "arguments": {"cmd": f"pytest -x tests/test_m{t}.py -k case{i}"}}],
                         "observation": {"results": [{"source_call_id": f"c{i}", "content": output}]}})
        document = {"schema_version": "ATIF-v1.6", "session_id": f"gen-{steps}-{t}",
                    "agent": {"name": "bench-agent", "version": "1", "tool_definitions": tools}, "steps": rows}
        (target / f"t{t:03d}.json").write_text(json.dumps(document))
    return target


# --- one tree, in its own process ----------------------------------------------------------------------------


def worker(sets: dict[str, str], out: Path) -> None:
    """Score every input set with the tree on ``sys.path`` and write what the judge received, measured."""
    import asyncio

    from tests.atif.scripted import judge_rule

    from tracegrade.atif import JobContext, parse_parameters, score_paths
    from tracegrade.judge import Judge, JudgeSettings
    from tracegrade.judge.testing import ScriptedJudgeServer

    name, encoding = tokenizer()
    rule = judge_rule(score=0.75)
    bodies: list[dict[str, Any]] = []

    def recording(request: Any) -> Any:
        bodies.append(request.json())
        return rule(request)

    figures: dict[str, Any] = {"tokens": name}
    with ScriptedJudgeServer(recording, record_bodies=False) as server:
        for label, path in sets.items():
            bodies.clear()
            options, criteria = parse_parameters({**RUBRIC, "trajectory_path": path, "concurrency_limit": 4,
                                                  "partial_result_policy": "skip_failed_trajectory"})
            settings = JudgeSettings(base_url=server.base_url, model="bench-judge", options=options)

            async def score(settings: JudgeSettings = settings, options: Any = options, criteria: Any = criteria,
                            path: str = path) -> Any:
                async with Judge(settings) as judge:
                    return await score_paths([path], options, criteria, judge, JobContext("bench"))

            results = asyncio.run(score())
            cache = PrefixCache()
            requests: dict[str, int] = {}
            tokens = cacheable = output = 0
            for body in bodies:
                units, count = token_units(prompt_text(body), encoding)
                tokens += count
                cacheable += cache.serve(units)
                kind = purpose(body)
                requests[kind] = requests.get(kind, 0) + 1
                output += OUTPUT_TOKENS.get(kind, 100)
            figures[label] = {"requests": requests, "input_tokens": tokens, "cacheable_tokens": cacheable,
                              "output_tokens": output, "steps_scored": results.summary.counts.get("steps_scored", 0),
                              "roots": results.summary.counts.get("roots", 0)}
    out.write_text(json.dumps(figures))


def measure(tree: Path, sets: dict[str, str], scratch: Path, label: str) -> dict[str, Any]:
    out = scratch / f"{label}.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "src"), str(tree)])}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(sets), "--out", str(out)]
    subprocess.run(command, check=True, env=env, cwd=tree)
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def dry_run_estimate(folder: Path, scratch: Path) -> dict[str, Any]:
    """This tree's dry run of ``folder`` with gpt-4o-mini prices and batch mode."""
    out = scratch / "dry"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    command = [sys.executable, "-c", "from tracegrade.cli import main; main()", "judge", str(folder),
               "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "gpt-4o-mini", "--scoring-mode", "benchmark",
               "--benchmark-name", "terminal-bench", "--dry-run", "--judge-batch", "--no-cache", "-q", "-o", str(out),
               "--price-input", str(PRICES["input"]), "--price-cached-input", str(PRICES["cached_input"]),
               "--price-output", str(PRICES["output"])]
    subprocess.run(command, check=True, env=env, cwd=scratch)
    document: dict[str, Any] = json.loads((out / "dry_run.json").read_text())
    return document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, default=Path("/work/main"), help="root of the tree before")
    parser.add_argument("--trajectories", type=int, default=3, help="generated trajectories per length")
    parser.add_argument("--lengths", default="10,20,30,100,300")
    parser.add_argument("--estimate-trajectories", type=int, default=20)
    parser.add_argument("--worker")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.worker:
        worker(json.loads(args.worker), args.out)
        return
    with tempfile.TemporaryDirectory() as temp:
        scratch = Path(temp)
        sets = {"examples/atif": str(REPO / "examples" / "atif")}
        if HARBOR.is_dir():
            sets["harbor corpus"] = str(HARBOR)
        for length in (int(n) for n in args.lengths.split(",")):
            sets[f"generated {length} steps"] = str(generated(scratch / "gen", length, args.trajectories))
        before = measure(args.before, sets, scratch, "before")
        after = measure(REPO, sets, scratch, "after")
        print(f"tokens counted as: {after['tokens']}")
        print(f"{'input set':<22} {'tree':<6} {'req/step':>8} {'tokens/step':>11} {'tokens/traj':>11} "
              f"{'cacheable':>9}")
        for label in sets:
            for tree, figures in (("before", before[label]), ("after", after[label])):
                steps = max(figures["steps_scored"], 1)
                requests = sum(figures["requests"].values())
                share = figures["cacheable_tokens"] / max(figures["input_tokens"], 1)
                print(f"{label:<22} {tree:<6} {requests / steps:>8.2f} {figures['input_tokens'] / steps:>11.0f} "
                      f"{figures['input_tokens'] / max(figures['roots'], 1):>11.0f} {share:>9.3f}")
        folder = generated(scratch / "estimate", 30, args.estimate_trajectories)
        today = measure(args.before, {"estimate": str(folder)}, scratch, "today")["estimate"]
        scale = 1000 / args.estimate_trajectories
        today_cost = scale * (
            (today["input_tokens"] - today["cacheable_tokens"]) * PRICES["input"]
            + today["cacheable_tokens"] * PRICES["cached_input"] + today["output_tokens"] * PRICES["output"]) / 1e6
        document = dry_run_estimate(folder, scratch)
        print(f"\n1,000 trajectories of 30 steps (measured on {args.estimate_trajectories}, scaled), gpt-4o-mini "
              "prices; the scripted judge scores every step 0.75, so today's run asks no categorisation:")
        print(f"  today, online (tree before, its cacheable share):   ${today_cost:.2f}")
        for row, what in ((document["purposes"]["score"], "scoring"),
                          (document["total"], "with categorisation's upper bound")):
            for key, words in (("cost_online_without_cache", "online, no cache"),
                               ("cost_online_with_cache", "online with a prefix cache"),
                               ("cost_batch_with_cache", "batch with a prefix cache")):
                cost = row[key] * scale
                print(f"  dry run, {what}, {words}: ${cost:.2f} ({cost / today_cost:.2f}x today)")


if __name__ == "__main__":
    main()
