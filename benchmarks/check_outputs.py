"""Output identity: every front door run by two source trees on the same inputs, their outputs compared byte for byte.

Usage:
    python benchmarks/check_outputs.py [--old /work/old/src] [--new src] [--work DIR] [--quick] [--only NAMES]
                                       [--compare-only] [--every] [--json FILE] [--details N] [--keep]

Run it with the project's venv (``/work/main/.venv/bin/python``) from anywhere. Each command is run twice, in
separate processes of the same interpreter, once with ``PYTHONPATH=OLD`` and once with ``PYTHONPATH=NEW`` (default:
this checkout's ``src``; old default ``/work/old/src``, commit 7397097), each in its own folder under ``--work``
(``old/`` and ``new/``, the same relative output paths; both sides of a command run at once), with its own
``HOME`` / ``XDG_CACHE_HOME`` (so no judge cache is shared) and ``COLUMNS=100``. Every file either side wrote, each
command's stdout and stderr (``_console/STEP.out``, ``.err``) and the CLI's surface (``cli_surface.json``: every
command's parameters, flags, types and defaults) are then compared; the exit codes of both sides are listed.
``--compare-only`` compares what ``--work`` already holds. ``--old src`` (the tree against itself) is the control:
it must report no difference.

Commands (``--quick`` keeps the examples and one corpus item per front door, 1-3 minutes; the full set reads the
whole corpus, 2-4 minutes on a shared machine):

- ``tracegrade validate`` (table and ``--format json``) on ``examples/``, the ATIF corpus and imported trajectories;
- ``tracegrade judge`` of ``examples/atif``, ``examples/atif-regressed``, the Harbor corpus, the EvalHub failure
  corpus, imported traces; with ``--shard`` then ``merge``, ``--judge-repeats``, custom and reference rubrics. ONE
  judge server answers both trees (started here, stdlib only, so it belongs to neither tree): it answers by the
  request's schema name (``tracegrade_<purpose>``, the same in both prompt generations) and by fixed cues over the
  step under judgement (``rm -rf``, ``made up``, ``did not run``, ``without checking``... score 0.2, others 0.9),
  read from either prompt layout (``atif-context-v3`` evidence or ``v4`` steps), so both trees get the same answers.
  The new tree has no option to ask with the old prompt generation, so its provenance shows ``atif-context-v4``;
- ``tracegrade compare`` (the gate), ``agree`` (the examples' labels), ``localise`` (every strategy);
- ``tracegrade import otel | inspect | whowhen`` on ``examples/traces`` and the corpus traces and logs;
- ``tracegrade suite check | run --results | replay | compare`` on ``examples/suites`` (the corpus has no suite);
- ``dabench eval-v2 --mode standard`` and ``verbose`` on the example run and the three KDD participant runs of
  the corpus (their gold tables rebuilt by ``tests/dabench/corpus_gold.py``), ``dabench compare``, ``ablation``.

A file counts as identical when its bytes are. Otherwise it is compared again after normalising only what is
volatile by nature (below), and is "identical after normalising" (the rules that applied are listed) or differs.
Normalised, and nothing else:

- ``path``: the side's own work folder (``.../old`` or ``.../new``), replaced by ``<WORK>``;
- ``time``: ISO-8601 wall-clock timestamps (``2026-12-05T13:36:55.123Z`` and the like), and the
  ``YYYYmmddTHHMMSSZ``-style stamps of run names;
- ``duration``: numbers under JSON keys naming a duration or a moment (``*_seconds``, ``*duration*``,
  ``elapsed*``, ``latency*``, ``runtime*``, ``wall*``, ``*_at``, ``*timestamp*``, ``started``, ``finished``,
  ``created``) and ``N.NNNs`` / ``N ms`` figures in console text;
- ``job-id``: ``tg-`` / ``tl-`` job ids (derived from the inputs, parameters and prompt generation);
- ``pid``: the process id in an output folder's lock file (``pid N``);
- ``digest``: the ``sha256`` of a file listed in a manifest, when the file's own content differs only by the rules
  above (a manifest that hashes a timestamped file changes with it);
- ``values``: a Parquet file is compared by schema and values (string values normalised as above), not by bytes.

A differing file is broken into its differences: JSON (any file whose text is JSON) into JSON pointers with both
values, CSV into changed cells, Parquet into changed columns, HTML into changed text (tags without text are
counted, not shown), other text into changed lines (``old => new``); a line or cell that changed only its spacing
or table borders (a widened table) is left out. Each difference is matched against :data:`KNOWN`, the deliberate
changes of the round with the issue that asked for them (#39-#43); what no entry explains is listed as
UNEXPLAINED: a possible regression of the floor (#38), to be read by a person. The one-screen summary gives the
counts, the exit codes that changed (with :data:`EXIT_KNOWN`), the changes behind the differing files, and every
unexplained difference; ``--every`` lists each differing file, ``--json`` writes everything.

Missing corpus folders are skipped (said in the summary). The script exits 0 when it ran (differences are
findings, not failures), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EXAMPLES = REPO / "examples"
CORPUS = REPO.parent / "shared" / "corpus"
OLD_DEFAULT = Path("/work/old/src")

# ---------------------------------------------------------------------------------------------------------------
# The judge server: one process-local OpenAI-compatible endpoint answering both trees alike.

CUES = ("rm -rf", "made up", "did not run", "without checking", "deleted every test", "git history")
"""Step texts containing any of these (case-insensitive) score LOW; every other step scores HIGH."""
LOW, HIGH = 0.2, 0.9
CRITERIA = [{"name": "progress", "description": "The step moves the task forward", "weight": 2},
            {"name": "correctness", "description": "The step's actions and claims are right", "weight": 1}]
TASK_STANDIN = "[the task, given above]"
_BLOCK = re.compile(r"<([a-z_]+)>\n(.*?)\n</\1>", re.DOTALL)


def _blocks(prompt: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _BLOCK.finditer(prompt)}


def _json(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _step_text(step: Any) -> str:
    """The words of a step as either prompt generation shows them (message, reasoning, tool calls)."""
    if not isinstance(step, dict):
        return ""
    parts = [step.get(k) for k in ("message", "reasoning_content", "excerpt")]
    text = " ".join(p if isinstance(p, str) else json.dumps(p) for p in parts if p is not None)
    for call in step.get("tool_calls") or ():
        if isinstance(call, dict):
            text += " " + json.dumps(call.get("arguments"))
    return text.lower()


def _current_step(blocks: dict[str, str]) -> Any:
    """The step under judgement: ``evidence.current_step`` (v3) or the last line of ``<steps>`` (v4)."""
    evidence = _json(blocks.get("evidence"))
    if isinstance(evidence, dict) and "current_step" in evidence:
        return evidence["current_step"]
    steps = blocks.get("steps")
    if steps:
        step = _json(steps.rsplit("\n", 1)[-1].replace("<\\/", "</"))
        if isinstance(step, dict) and step.get("message") == TASK_STANDIN:
            step = {**step, "message": _json(blocks.get("task"))}
        return step
    record = _json(blocks.get("record"))
    return record.get("current_step") if isinstance(record, dict) else None


def _low(step: Any) -> bool:
    text = _step_text(step)
    return any(cue in text for cue in CUES)


def judge_answer(body: Any) -> Any:
    """What the shared judge answers a chat-completions body (None: no rule, answered HTTP 400)."""
    fmt = body.get("response_format") if isinstance(body, dict) else None
    schema_doc = fmt.get("json_schema") if isinstance(fmt, dict) else None
    name = schema_doc.get("name", "") if isinstance(schema_doc, dict) else ""
    schema = schema_doc.get("schema", {}) if isinstance(schema_doc, dict) else {}
    messages = body.get("messages") if isinstance(body, dict) else None
    prompt = messages[-1].get("content", "") if isinstance(messages, list) and messages else ""
    blocks = _blocks(prompt if isinstance(prompt, str) else "")
    purpose = name.removeprefix("tracegrade_")
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    if purpose == "derive":
        return {"criteria": CRITERIA}
    if purpose == "score":
        names = props.get("scores", {}).get("required")
        if not names:
            criteria = _json(blocks.get("criteria")) or []
            names = [c.get("name") for c in criteria if isinstance(c, dict)]
        low = _low(_current_step(blocks))
        return {"scores": dict.fromkeys(names, LOW if low else HIGH),
                "rationale": "Shared judge: a low cue matched." if low else "Shared judge: no cue matched."}
    if purpose == "categorize":
        text = _step_text(_current_step(blocks))
        return {"category": "policy_boundary_violation" if "rm -rf" in text else "reasoning_failure",
                "rationale": "Shared judge: category by cue."}
    if purpose == "localise_all":
        record = _json(blocks.get("record")) or {}
        steps = [s for s in record.get("steps", []) if isinstance(s, dict)]
        refs = props.get("step", {}).get("enum") or [s.get("ref") for s in steps]
        agents = props.get("agent", {}).get("enum") or []
        chosen = [s for s in steps if s.get("ref") in refs]
        pick = next((s for s in chosen if _low(s)), chosen[0] if chosen else {"ref": refs[0] if refs else ""})
        agent = pick.get("agent") if pick.get("agent") in agents else (agents[0] if agents else pick.get("agent"))
        return {"agent": agent, "step": pick.get("ref"), "reason": "Shared judge: the first step with a low cue."}
    if purpose == "localise_step":
        record = _json(blocks.get("record")) or {}
        return {"decisive": _low(record.get("current_step")), "reason": "Shared judge: by cue."}
    if purpose == "localise_half":
        record = _json(blocks.get("record")) or {}
        first = record.get("first_half") or []
        return {"half": "first" if any(_low(s) for s in first) else "second", "reason": "Shared judge: by cue."}
    if purpose == "check":
        return {"verdict": "pass", "rationale": "Shared judge: pass."}
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": [{"id": "shared-judge", "object": "model"}]})

    def do_POST(self) -> None:
        body = _json(self.rfile.read(int(self.headers.get("content-length", "0"))).decode("utf-8", "replace"))
        answer = judge_answer(body)
        if answer is None:
            self._send(400, {"error": {"message": "the shared judge has no rule for this request"}})
            return
        self._send(200, {"id": "chatcmpl-shared", "object": "chat.completion", "created": 0, "model": "shared-judge",
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": json.dumps(answer)}}],
                         "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})


def start_judge() -> tuple[ThreadingHTTPServer, str]:
    """The shared judge on a free loopback port, served from a daemon thread; returns it and its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


# ---------------------------------------------------------------------------------------------------------------
# The commands.


@dataclass(frozen=True)
class Step:
    """One command, run by both trees: ``argv`` with ``{judge}`` standing for the judge URL."""

    name: str
    argv: tuple[str, ...]
    program: str = "tracegrade"
    needs: tuple[Path, ...] = ()
    """Inputs that must exist (else the step is skipped)."""


CLI_SURFACE = """
import json
import typer.main
from tracegrade.cli import app

surface = {}


def walk(command, path):
    surface[" ".join(path)] = {p.name: {"opts": sorted([*p.opts, *p.secondary_opts]), "kind": type(p).__name__,
                                        "required": p.required, "multiple": bool(getattr(p, "multiple", False)),
                                        "type": str(getattr(p, "type", "")),
                                        "default": None if callable(p.default) else repr(p.default)}
                               for p in command.params}
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        walk(sub, [*path, name])


walk(typer.main.get_command(app), ["tracegrade"])
open("cli_surface.json", "w").write(json.dumps(surface, indent=1, sort_keys=True))
"""
"""Writes every command's parameters (names, flags, kind, type, default) to cli_surface.json."""


def _judge(inputs: str, out: str, *extra: str) -> tuple[str, ...]:
    return ("judge", inputs, "--judge-url", "{judge}", "--judge-model", "shared-judge", "-o", out, *extra)


def steps(quick: bool, data: Path) -> list[Step]:
    """Every command, in order (later ones read what earlier ones wrote, on the same side)."""
    ex, corpus = str(EXAMPLES), CORPUS
    harbor, fixtures = corpus / "atif" / "harbor", corpus / "atif" / "evalhub-contrib" / "tests" / "fixtures"
    traces, whowhen = corpus / "traces", corpus / "whowhen" / "Algorithm-Generated"
    dab = corpus / "dabench"
    kdd = {"hyeonski": dab / "hyeonski-blueshabu/artifacts/runs/ACON-2605102309-T0.3-H7000-K5",
           "xxy": dab / "xxy1103-kddcup/artifacts/runs/20260412T035736Z",
           "zhenyuluok": dab / "zhenyuluok-data-agent/artifacts/docker-out-v3/20260510T033502Z"}
    out: list[Step] = [
        Step("cli-surface", ("-c", CLI_SURFACE), program="python"),
        Step("validate-examples-table", ("validate", f"{ex}/atif")),
        Step("validate-examples-json", ("validate", f"{ex}/atif", f"{ex}/atif-regressed", "--format", "json",
                                        "--details")),
        Step("validate-harbor-json", ("validate", str(harbor), "--format", "json", "--details"), needs=(harbor,)),
        Step("validate-fixtures-json", ("validate", str(fixtures), "--format", "json"), needs=(fixtures,)),
        Step("judge-examples", _judge(f"{ex}/atif", "runs/baseline")),
        Step("judge-regressed", _judge(f"{ex}/atif-regressed", "runs/candidate")),
        Step("compare-gate", ("compare", "runs/baseline", "runs/candidate", "-o", "compare/gate",
                              "--fail-on-regression", "--fail-on-new-failures")),
        Step("agree-examples", ("agree", "runs/baseline", "--labels", f"{ex}/atif-labels.jsonl",
                                "-o", "agree/agreement.json")),
        Step("localise-all-at-once", ("localise", f"{ex}/atif-regressed", "--strategy", "all-at-once",
                                      "--judge-url", "{judge}", "--judge-model", "shared-judge",
                                      "-o", "localise/all-at-once")),
        Step("localise-step-by-step", ("localise", f"{ex}/atif-regressed", "--strategy", "step-by-step",
                                       "--judge-url", "{judge}", "--judge-model", "shared-judge",
                                       "-o", "localise/step-by-step")),
        Step("localise-binary-search", ("localise", f"{ex}/atif-regressed", "--strategy", "binary-search",
                                        "--judge-url", "{judge}", "--judge-model", "shared-judge",
                                        "-o", "localise/binary-search")),
        Step("judge-shard-0", _judge(f"{ex}/atif", "runs/shard-0", "--shard", "0/2")),
        Step("judge-shard-1", _judge(f"{ex}/atif", "runs/shard-1", "--shard", "1/2")),
        Step("merge-shards", ("merge", "runs/shard-0", "runs/shard-1", "-o", "runs/merged")),
        Step("judge-repeats", _judge(f"{ex}/atif", "runs/repeats", "--judge-repeats", "2")),
        Step("judge-custom-rubric", _judge(f"{ex}/atif", "runs/custom", "--scoring-mode", "custom", "--rubric",
                                           "criteria: [{name: quality, description: A good step, weight: 1}]")),
        Step("judge-for-localise", _judge(f"{ex}/atif-regressed", "runs/for-localise")),
        Step("localise-from-scores", ("localise", "runs/for-localise", "--strategy", "from-scores",
                                      "-o", "localise/from-scores")),
        Step("import-otel-examples", ("import", "otel", f"{ex}/traces/otel-genai.json",
                                      f"{ex}/traces/openinference.jsonl", "-o", "import/otel-examples")),
        Step("import-inspect-examples", ("import", "inspect", f"{ex}/traces/inspect-log.json",
                                         "-o", "import/inspect-examples")),
        Step("suite-check", ("suite", "check", f"{ex}/suites/dataset.json")),
        Step("suite-run-recorded", ("suite", "run", f"{ex}/suites/dataset.json", "--results",
                                    f"{ex}/suites/results.jsonl", "-o", "suite-recorded.json",
                                    "--html", "suite-recorded.html")),
        Step("suite-replay", ("suite", "replay", "suite-recorded.json", "--dataset", f"{ex}/suites/dataset.json",
                              "-o", "suite-replayed.json")),
        Step("suite-compare", ("suite", "compare", "suite-recorded.json", "suite-replayed.json",
                               "-o", "suite-comparison.json")),
        Step("dabench-demo-standard", ("eval-v2", "demo-run", "--runs-root", f"{ex}/dabench/runs",
                                       "--data-root", f"{ex}/dabench/data", "-o", "dabench/demo-standard",
                                       "--mode", "standard", "--resamples", "500"), program="dabench"),
        Step("dabench-demo-verbose", ("eval-v2", f"{ex}/dabench/runs/demo-run", "--data-root",
                                      f"{ex}/dabench/data", "-o", "dabench/demo-verbose", "--mode", "verbose",
                                      "--resamples", "500"), program="dabench"),
        Step("dabench-compare-demo", ("compare", "dabench/demo-standard", "dabench/demo-verbose",
                                      "-o", "dabench/compare-demo"), program="dabench"),
    ]
    otel = sorted(p for p in (traces / "otel-genai").rglob("*.json") if not p.name.endswith(".truth.json"))
    otel += sorted((traces / "openinference").rglob("*.json"))
    inspect = sorted(p for p in (traces / "inspect-ai").rglob("*") if p.suffix in {".json", ".eval"})
    logs = sorted(whowhen.glob("*.json"), key=lambda p: (len(p.stem), p.stem))
    if quick:
        otel, inspect, logs = otel[:2], inspect[:2], logs[:5]
    runs = dict(list(kdd.items())[:1]) if quick else kdd
    out += [
        Step("judge-harbor", _judge(str(harbor), "runs/harbor", "--tolerant"), needs=(harbor,)),
        Step("judge-reference", _judge(f"{ex}/atif", "runs/reference", "--scoring-mode", "reference",
                                       "--reference-registry-path", str(fixtures / "reference_registry.json"),
                                       "--reference-rubric", "answer_quality"), needs=(fixtures,)),
        Step("judge-failure-corpus", _judge(str(fixtures / "failure_corpus"), "runs/failure-corpus", "--tolerant"),
             needs=(fixtures,)),
        Step("judge-imported-otel", _judge("import/otel-examples/trajectories", "runs/imported-otel")),
        Step("validate-imported", ("validate", "import/otel-examples/trajectories", "--format", "json")),
        Step("import-otel-corpus", ("import", "otel", *map(str, otel), "-o", "import/otel-corpus"), needs=(traces,)),
        Step("import-inspect-corpus", ("import", "inspect", *map(str, inspect), "-o", "import/inspect-corpus"),
             needs=(traces,)),
        Step("import-whowhen-corpus", ("import", "whowhen", *map(str, logs), "-o", "import/whowhen"),
             needs=(whowhen,)),
    ]
    for name, run in runs.items():
        for mode in ("standard", "verbose"):
            out.append(Step(f"dabench-{name}-{mode}", ("eval-v2", str(run), "--data-root", str(data), "-o",
                                                       f"dabench/{name}-{mode}", "--mode", mode, "--resamples",
                                                       "500"), program="dabench", needs=(run,)))
    out.append(Step("validate-imported-whowhen", ("validate", "import/whowhen/trajectories", "--format", "json"),
                    needs=(whowhen,)))
    out.append(Step("dabench-ablation-demo", ("ablation", "dabench/demo-standard", "-o", "dabench/ablation-demo.json"),
                    program="dabench"))
    if not quick:
        out.append(Step("dabench-compare-kdd", ("compare", "dabench/xxy-standard", "dabench/zhenyuluok-standard",
                                                "-o", "dabench/compare-kdd"), program="dabench", needs=(dab,)))
    return out


@dataclass
class Outcome:
    """One step run by both sides."""

    step: Step
    codes: dict[str, int | None] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def _env(side_dir: Path, src: Path) -> dict[str, str]:
    home = side_dir.parent / f"{side_dir.name}-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRACEGRADE", "JUDGE_", "OTEL_", "MLFLOW"))}
    env.update(PYTHONPATH=str(src), HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), COLUMNS="100",
               LINES="50", TERM="dumb", NO_COLOR="1", PYTHONHASHSEED="0", TZ="UTC")
    return env


def _run_side(step: Step, side: str, side_dir: Path, src: Path, judge: str, timeout: float) -> tuple[int | None, float]:
    program = str(Path(sys.executable).with_name(step.program))
    argv = [program, *(a.replace("{judge}", judge) for a in step.argv)]
    console = side_dir / "_console"
    console.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with (console / f"{step.name}.out").open("wb") as out, (console / f"{step.name}.err").open("wb") as err:
        try:
            code: int | None = subprocess.run(argv, cwd=side_dir, env=_env(side_dir, src), stdout=out, stderr=err,
                                              stdin=subprocess.DEVNULL, timeout=timeout, check=False).returncode
        except subprocess.TimeoutExpired:
            code = None
    return code, time.monotonic() - started


def run_all(plan: list[Step], sides: dict[str, Path], work: Path, judge: str, timeout: float,
            log: Callable[[str], None]) -> list[Outcome]:
    """Each step on both sides at once (two processes), step after step."""
    outcomes = []
    with ThreadPoolExecutor(max_workers=len(sides)) as pool:
        for step in plan:
            missing = [p for p in step.needs if not p.exists()]
            outcome = Outcome(step)
            if missing:
                log(f"  skip {step.name}: {missing[0]} is not there")
                outcomes.append(outcome)
                continue
            futures = {side: pool.submit(_run_side, step, side, work / side, src, judge, timeout)
                       for side, src in sides.items()}
            for side, future in futures.items():
                outcome.codes[side], outcome.seconds[side] = future.result()
            codes = " / ".join(f"{s} {outcome.codes[s]}" for s in sides)
            log(f"  {step.name:<26} exit {codes}  ({max(outcome.seconds.values()):.1f} s)")
            outcomes.append(outcome)
    return outcomes


# ---------------------------------------------------------------------------------------------------------------
# Normalising and comparing.

_ISO = re.compile(rb"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_STAMP = re.compile(rb"\b\d{8}T\d{6}Z\b")
_TIME_KEY = (rb"[A-Za-z_]*(?:_seconds|duration|elapsed|latency|runtime|wall|_at|timestamp|started|finished|created)"
             rb"[A-Za-z_]*")
_TIMED_VALUE = re.compile(rb'("' + _TIME_KEY + rb'"\s*:\s*)-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')
_CONSOLE_SECONDS = re.compile(rb"\b\d+(?:\.\d+)?\s?(?:s|ms|seconds)\b")
_JOB_ID = re.compile(rb"\bt[a-z]-[0-9a-f]{8,64}\b")
_PID = re.compile(rb"\bpid \d+")


def normalise(data: bytes, rel: str, work_dirs: list[bytes]) -> tuple[bytes, set[str]]:
    """The bytes with only the volatile fields replaced, and the names of the rules that changed something."""
    used: set[str] = set()

    def apply(rule: str, pattern: re.Pattern[bytes], repl: bytes | Callable[[re.Match[bytes]], bytes],
              text: bytes) -> bytes:
        new = pattern.sub(repl, text)
        if new != text:
            used.add(rule)
        return new

    for folder in work_dirs:
        if folder in data:
            data = data.replace(folder, b"<WORK>")
            used.add("path")
    data = apply("time", _ISO, b"<TIME>", data)
    data = apply("time", _STAMP, b"<STAMP>", data)
    data = apply("duration", _TIMED_VALUE, lambda m: m.group(1) + b'"<N>"', data)
    if rel.startswith("_console/"):
        data = apply("duration", _CONSOLE_SECONDS, b"<DUR>", data)
    data = apply("job-id", _JOB_ID, b"<JOB>", data)
    data = apply("pid", _PID, b"pid <PID>", data)
    return data, used


def _is_text(data: bytes) -> bool:
    return b"\x00" not in data[:4096]


def _files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*")) if p.is_file()}


def _json_paths(a: Any, b: Any, path: str = "") -> Iterator[str]:
    """JSON pointers where two documents differ (keys only one side has included)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a:
                yield f"{path}/{key} (new only)"
            elif key not in b:
                yield f"{path}/{key} (old only)"
            else:
                yield from _json_paths(a[key], b[key], f"{path}/{key}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield f"{path} (length {len(a)} -> {len(b)})"
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            yield from _json_paths(x, y, f"{path}/{i}")
    elif a != b or type(a) is not type(b):
        yield f"{path}: {_short(a)} -> {_short(b)}"


def _short(value: Any, width: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _json_documents(data: bytes) -> list[Any] | None:
    try:
        return [json.loads(data)]
    except ValueError:
        pass
    try:
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    except ValueError:
        return None


_LAYOUT = re.compile(r"[\s─━═│┃┌┐└┘├┤┬┴┼╭╮╯╰]+")


def _layout(piece: str) -> str:
    """A piece of text without its spacing and box-drawing characters (a widened table keeps its content)."""
    return _LAYOUT.sub(" ", piece).strip()


def _text_items(a: bytes, b: bytes, rel: str) -> list[str]:
    """Changed lines (for HTML: tags): ``old => new`` where a run of lines was replaced line for line, else
    ``-old`` / ``+new``; pieces that changed only their spacing or table borders are left out."""
    split: Callable[[str], list[str]] = ((lambda t: re.split(r"(?<=>)", t)) if rel.endswith(".html")
                                         else str.splitlines)
    pieces_a, pieces_b = split(a.decode("utf-8", "replace")), split(b.decode("utf-8", "replace"))
    removed: list[str] = []
    added: list[str] = []
    items: list[str] = []
    matcher = difflib.SequenceMatcher(None, pieces_a, pieces_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            for x, y in zip(pieces_a[i1:i2], pieces_b[j1:j2], strict=True):
                if _layout(x) != _layout(y):
                    items.append(f"{_layout(x)} => {_layout(y)}")
        elif tag != "equal":
            removed += pieces_a[i1:i2]
            added += pieces_b[j1:j2]
    layout = Counter(_layout(p) for p in removed) & Counter(_layout(p) for p in added)
    for sign, chosen in (("-", removed), ("+", added)):
        left = Counter(layout)
        for piece in chosen:
            key = _layout(piece)
            if left[key] > 0:
                left[key] -= 1
            elif key:
                items.append(f"{sign}{key}")
    if rel.endswith(".html"):
        text = [i for i in items if _TAG.sub("", i).strip(" +-=>")]
        if len(text) < len(items):
            text.append(f"{MARKUP}{len(items) - len(text)} tags")
        return text
    return items


_TAG = re.compile(r"<[^>]*>")
MARKUP = "markup only: "
"""An HTML report's tags that changed without text of their own (they follow its text changes)."""


def _csv_items(a: bytes, b: bytes) -> list[str] | None:
    """Changed cells of two CSV tables, as ``column: old -> new`` (None when a side has no header)."""
    rows_a = list(csv.reader(io.StringIO(a.decode("utf-8", "replace"))))
    rows_b = list(csv.reader(io.StringIO(b.decode("utf-8", "replace"))))
    if not rows_a or not rows_b:
        return None
    head_a, head_b = rows_a[0], rows_b[0]
    items = [f"column {c} (old only)" for c in head_a if c not in head_b]
    items += [f"column {c} (new only)" for c in head_b if c not in head_a]
    if len(rows_a) != len(rows_b):
        items.append(f"rows {len(rows_a) - 1} -> {len(rows_b) - 1}")
    for row_a, row_b in zip(rows_a[1:], rows_b[1:], strict=False):
        cells_a, cells_b = dict(zip(head_a, row_a, strict=False)), dict(zip(head_b, row_b, strict=False))
        items += [f"{c}: {_short(cells_a[c], 50)} -> {_short(cells_b[c], 50)}"
                  for c in head_a if c in cells_b and cells_a[c] != cells_b[c]]
    return items


def _json_items(a: bytes, b: bytes) -> list[str] | None:
    docs_a, docs_b = _json_documents(a), _json_documents(b)
    if not docs_a or not docs_b:
        return None
    items = list(_json_paths(docs_a if len(docs_a) > 1 else docs_a[0], docs_b if len(docs_b) > 1 else docs_b[0]))
    return items or ["the same JSON values, different bytes (key order, spacing or number spelling)"]


def _parquet_rows(data: bytes, work_dirs: list[bytes], used: set[str]) -> tuple[Any, dict[str, list[Any]]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(data))

    def norm(value: Any) -> Any:
        if isinstance(value, str):
            text, rules = normalise(value.encode(), "", work_dirs)
            used.update(rules)
            return text.decode()
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, tuple):
            return tuple(norm(v) for v in value)
        if isinstance(value, dict):
            return {k: norm(v) for k, v in value.items()}
        return value

    return table.schema, {name: [norm(v) for v in table.column(name).to_pylist()] for name in table.schema.names}


def _pairs(value: Any) -> Any:
    """A list of (key, value) pairs as a sorted list (other values as they are)."""
    if isinstance(value, list) and all(isinstance(v, (list, tuple)) and len(v) == 2 for v in value):
        return sorted((str(k), repr(v)) for k, v in value)
    return value


def _parquet_items(a: bytes, b: bytes, work_dirs: list[bytes], used: set[str]) -> list[str]:
    """Parquet files compared by schema and values, string values normalised (not byte for byte)."""
    schema_a, cols_a = _parquet_rows(a, work_dirs, used)
    schema_b, cols_b = _parquet_rows(b, work_dirs, used)
    items = [f"column {name} (old only)" for name in cols_a if name not in cols_b]
    items += [f"column {name} (new only)" for name in cols_b if name not in cols_a]
    for name in cols_a:
        if name not in cols_b:
            continue
        type_a, type_b = schema_a.field(name).type, schema_b.field(name).type
        if type_a != type_b:
            items.append(f"column {name}: type {type_a} -> {type_b}")
        elif cols_a[name] != cols_b[name]:
            rows = [i for i, (x, y) in enumerate(zip(cols_a[name], cols_b[name], strict=False)) if x != y]
            if len(cols_a[name]) != len(cols_b[name]):
                items.append(f"column {name}: rows {len(cols_a[name])} -> {len(cols_b[name])}")
            elif all(_pairs(cols_a[name][i]) == _pairs(cols_b[name][i]) for i in rows):
                items.append(f"column {name}: order of pairs only ({len(rows)} rows, first {rows[0]})")
            elif rows:
                row = rows[0]
                items.append(f"column {name}: {len(rows)} rows, first {row}: {_short(cols_a[name][row], 40)} -> "
                             f"{_short(cols_b[name][row], 40)}")
    return items


def differences(a: bytes, b: bytes, rel: str, work_dirs: list[bytes], used: set[str]) -> list[str]:
    """Every difference between two normalised files, one item each: JSON pointers with both values (a file whose
    text is JSON), changed Parquet columns, else changed lines (tags in HTML) with layout-only changes left out."""
    if rel.endswith(".parquet"):
        return _parquet_items(a, b, work_dirs, used)
    if not _is_text(a) or not _is_text(b):
        at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        return [f"binary: {len(a)} -> {len(b)} bytes, first difference at byte {at}"]
    if rel.endswith((".json", ".jsonl")) or a.lstrip()[:1] in (b"{", b"["):
        items = _json_items(a, b)
        if items is not None:
            return items
    if rel.endswith(".csv"):
        items = _csv_items(a, b)
        if items is not None:
            return items or ["the same cells, different bytes (quoting or line ends)"]
    return _text_items(a, b, rel) or ["only spacing or table layout changed"]


# ---------------------------------------------------------------------------------------------------------------
# What each difference is explained by.


@dataclass(frozen=True)
class Known:
    """A deliberate change of the round: the files it touches and the differences it makes (regexes)."""

    issue: str
    what: str
    files: str
    items: str


_RUN = r"^(runs|localise|compare)/"
_DAB = r"^dabench/|^_console/dabench-"
KNOWN: tuple[Known, ...] = (
    # #39: a new prompt generation (atif-context-v4, localisation atif-localise-v2) and provider-cached tokens.
    Known("#39", "prompt generation atif-context-v4 / atif-localise-v2 and its template hashes", "",
          r"prompt_version|atif-context-v[34]|atif-localise-v[12]|template_hash|/template_hashes/"
          r"|^[-+]?[0-9a-f]{16}…</dd>( => [0-9a-f]{16}…</dd>)?$"),
    Known("#39", "provider-cached tokens and batch counters in the judge summary", "",
          r"/(cached_input_tokens|cached_input_reported|batch_requests) \(new only\)"
          r"|^\+(cached_input_tokens|cached_input_reported|batch_requests)</dt>$|cached by the provider"),
    Known("#39", "requests laid out anew: identical requests asked once, so request and cache counts move", _RUN,
          r"/judge/(cache_hits|cache_misses|requests|successes|input_tokens|output_tokens): "
          r"|^[-+]\d+</dd>$|^\d+</dd> => \d+</dd>$"),
    Known("#39", "requests laid out anew: the console's request and cache counts move", r"^_console/",
          r"judge requests / cache hits"),
    # #40: honest on real files.
    Known("#40", "item 1: the judge endpoint recorded in provenance", "",
          r"/judge/endpoint \(new only\)|^\+endpoint</dt>$|^\+http://127\.0\.0\.1:\d+/v1/chat/completions</dd>$"
          r"|the endpoint (and credentials are never recorded|as scheme, host, port and path)"),
    Known("#40", "item 3: the user is no candidate for the decisive step (fewer step-by-step questions)",
          r"^localise/|^_console/localise-",
          r"/parameters/user_candidates \(new only\)|/trajectories/\d+/agents|/calls: |/summary/judge/"
          r"|judge questions \d+|localised|none_found"),
    Known("#40", "item 4: a missing artefact is its own class (harness/input), out of the agent statistics", _DAB,
          r"outcome_status|outcome_error_type|failure_(category|agent|reason|stage|attribution)|root_cause|severity"
          r"|suggested_fix|recoverable_failure|/null_reasons/|missing.artefac|HARNESS_INPUT_FAILURE|^[-+]t$"
          r"|/failure_categories/|/top_root_causes/|/indicators/|/quality/|/sections/\d+/(rows|headline|notes)"
          r"|/figures/\d+/title|accuracy|FAILURE|_failure|Failure|failing|\d+\.\d+%|^[-+]\d+</td>$"
          r"|data-sort=\"[\d.]+\"|^[-+]task_\d+ |\d+\. [a-z_]+: \d+|^\d+</td> => \d+</td>$"
          r"|^-(missing_prediction|EXECUTE)</td>$"),
    Known("#40", "item 4: the wrapped tail of a longer cell (missing_artefact) in an 100-column table",
          r"^_console/dabench-", r"^\+[a-z]{1,6}$"),
    Known("#40", "items 5-6: both runs' health first, one verdict vocabulary with its legend", _DAB,
          r"/harness/(action|band)|/(baseline|candidate)/(health|health_score|missing_predictions) \(new only\)"
          r"|/missing_artefact \(new only\)|/unhealthy_allowed \(new only\)|[Hh]ealth|HEALTHY|DEGRADED|POOR"
          r"|Ready to use|Review warnings|Fix issues|Investigation required|Do not use|score >=|score <"
          r"|^[-+](Measure|Value|A demo-run|B demo-run|Status:)|Run quality|Tasks? |Count|excluded|Improved in B"
          r"|Regressed in B|Newly failing in B"),
    Known("#40", "item 5: dabench compare refuses an UNHEALTHY run without --allow-unhealthy (exit 2)",
          r"^dabench/compare-kdd$|^_console/dabench-compare-kdd\.", r""),
    Known("#40", "items 8, 26: imported cached and reasoning tokens kept, token counts without a home named",
          r"^import/|^_console/import-",
          r"/metrics/(cached_tokens|extra)|not_mapped|not mapped in|token count with no ATIF field"),
    Known("#40", "item 10: tasks resolved before the first call (import task_found; judge refuses, exit 2)",
          r"^import/|^_console/import-|^runs/failure-corpus/|^_console/judge-failure-corpus\.",
          r"task_found \(new only\)|no task found|have no task|^only in old$|^-"),
    Known("#40", "items 11 and 4 (#41): refused inputs listed one a line, figures with their n", "",
          r"\(n=\d+\)|^\+invalid: |^\+refused \d+ of \d+ inputs|^\+ ?/.*(json|\.j)$|^\+son: |does not exist"
          r"|^\+'trajectory\."),
    Known("#40", "item 14: localise -o elsewhere leaves the judge run untouched (the old one rewrote it)",
          r"^runs/for-localise/|^_console/localise-from-scores\.", r""),
    Known("#40", "item 16: a lock on the output folder", r"\.tracegrade\.lock$", r"^only in new$"),
    Known("#40", "item 17: every summary.json entry evaluated or named in a finding", _DAB, r"summary_entry_usable"),
    Known("#41", "overwrite policy: the job marker file", r"\.tracegrade-job\.json$", r"^only in new$"),
    Known("#41", "item 4: tokens of cached answers reported", "",
          r"cache_hit_(input|output)_tokens|\+ cached [\d,]+ / [\d,]+|tokens in ?/ ?out"),
    Known("#41", "item 4: the gate warns when n is too small", "",
          r"/warnings \(new only\)|warning: only \d+ scored pair|pairs the interval means little"),
    Known("#41", "item 4: suite compare prints its table; the JSON goes to its file", r"^_console/suite-compare\.",
          r""),
    Known("#40", "item 11: a failure code's meaning beside its count", r"^suite-.*\.html$",
          r"meaning|^[-+]<(td|th)\b|^[-+]\d+</td>$"),
    Known("#39-#43", "new commands and options (none removed)", r"^cli_surface\.json$", r"\(new only\)$"),
    Known("#40", "item 14: localise -o defaults to the judge run given, else tracegrade-localise",
          r"^cli_surface\.json$", r"^/tracegrade localise/output/default: "),
    Known("(manifest)", "a manifest's size and digest of a listed file that changed", r"manifest\.json$",
          r"^/files/.*/(bytes|sha256)"),
    Known("#39", "job ids derive from the prompt generation", r"\.parquet$", r"^column job_id: "),
    Known("(fix)", "criterion_scores pairs in name order (the old trees wrote a fresh answer in the judge's order)",
          r"steps\.parquet$", r"^column criterion_scores: order of pairs only"),
    Known("(fix)", "a wrapping column is as wide as its longest word: a less important column is hidden instead",
          r"^_console/dabench-",
          r"^-[a-z_]{1,8}$|^[-+]Hidden to fit \d+ columns|^[-+]Task |^[-+]task_\d+ |^task_\d+ .* => task_\d+ "),
    Known("(fix)", "report.html sorts a measure shown with its count by its number (data-sort)",
          r"^dabench/.*report\.html$", r"^markup only: \d+ tags$"),
    Known("(fix)", "no lock file left behind by a job that ended on an error", r"\.tracegrade\.lock$",
          r"^only in old$"),
)
"""Each deliberate change of the round, with the issue that asked for it; a difference no entry matches is
reported as unexplained (a possible regression of the floor, #38)."""

EXIT_KNOWN = {
    "judge-failure-corpus": "#40 item 10: trajectories without a task refused before any call (exit 2, was 4)",
    "dabench-compare-kdd": "#40 item 5: an UNHEALTHY run is refused without --allow-unhealthy (exit 2)",
}
"""Commands whose exit code changed on purpose."""


def attribute(rel: str, items: list[str]) -> tuple[list[Known], list[str]]:
    """The known changes that explain a file's differences, and the differences none explains."""
    found: list[Known] = []
    unexplained = []
    markup = [i for i in items if i.startswith(MARKUP)]
    for item in items:
        if item.startswith(MARKUP):
            continue
        hits = [k for k in KNOWN if re.search(k.files, rel) and re.search(k.items, item)]
        if hits:
            found += [k for k in hits if k not in found]
        else:
            unexplained.append(item)
    if markup and not found:  # tags alone changed: only an entry naming such a change explains them
        hits = [k for k in KNOWN if re.search(k.files, rel) and re.search(k.items, markup[0])]
        found += hits
        unexplained += [] if hits else markup
    return found, unexplained


@dataclass
class FileResult:
    """One output file, compared."""

    rel: str
    status: str
    """identical, normalised, differs, old-only, new-only."""
    rules: tuple[str, ...] = ()
    """The normalisation rules that applied."""
    items: tuple[str, ...] = ()
    known: tuple[Known, ...] = ()
    unexplained: tuple[str, ...] = ()


def compare_trees(old: Path, new: Path) -> list[FileResult]:
    """Every file of both sides, compared and its differences attributed."""
    work_dirs = [str(old).encode(), str(new).encode()]
    files_old, files_new = _files(old), _files(new)
    results: dict[str, FileResult] = {}
    normalised_hashes: dict[str, tuple[str, str]] = {}
    for rel in sorted(set(files_old) | set(files_new)):
        if rel not in files_new or rel not in files_old:
            status = "old-only" if rel not in files_new else "new-only"
            known, unexplained = attribute(rel, [f"only in {status.split('-')[0]}"])
            results[rel] = FileResult(rel, status, (), (), tuple(known), tuple(unexplained))
            continue
        a, b = files_old[rel].read_bytes(), files_new[rel].read_bytes()
        if a == b:
            results[rel] = FileResult(rel, "identical")
            continue
        used: set[str] = set()
        na, nb = a, b
        if _is_text(a) and _is_text(b):
            na, used_a = normalise(a, rel, work_dirs)
            nb, used_b = normalise(b, rel, work_dirs)
            used = used_a | used_b
        if na == nb:
            results[rel] = FileResult(rel, "normalised", tuple(sorted(used)))
            normalised_hashes[rel] = (hashlib.sha256(a).hexdigest(), hashlib.sha256(b).hexdigest())
            continue
        items = differences(na, nb, rel, work_dirs, used)
        if not items:
            results[rel] = FileResult(rel, "normalised", tuple(sorted(used | {"values"})))
            normalised_hashes[rel] = (hashlib.sha256(a).hexdigest(), hashlib.sha256(b).hexdigest())
            continue
        known, unexplained = attribute(rel, items)
        results[rel] = FileResult(rel, "differs", tuple(sorted(used)), tuple(items), tuple(known),
                                  tuple(unexplained))
    _forgive_digests(results, files_old, files_new, normalised_hashes, work_dirs)
    return list(results.values())


def _forgive_digests(results: dict[str, FileResult], files_old: dict[str, Path], files_new: dict[str, Path],
                     normalised_hashes: dict[str, tuple[str, str]], work_dirs: list[bytes]) -> None:
    """A manifest whose only differences are the digests of files identical after normalising is normalised too."""
    swap = {old: new for old, new in normalised_hashes.values()}
    if not swap:
        return
    for rel, result in results.items():
        if result.status != "differs" or not rel.endswith(".json"):
            continue
        a = files_old[rel].read_bytes()
        for old_digest, new_digest in swap.items():
            a = a.replace(old_digest.encode(), new_digest.encode())
        na, used_a = normalise(a, rel, work_dirs)
        nb, used_b = normalise(files_new[rel].read_bytes(), rel, work_dirs)
        if na == nb:
            results[rel] = FileResult(rel, "normalised", tuple(sorted(used_a | used_b | {"digest"})))


# ---------------------------------------------------------------------------------------------------------------


def _dataset(root: Path) -> Path:
    """The KDD runs' gold tables, as the tests rebuild them (shared by both sides)."""
    sys.path.insert(0, str(REPO))
    from tests.dabench.corpus_gold import write_dataset

    return write_dataset(root)


def _report(outcomes: list[Outcome], files: list[FileResult], sides: dict[str, Path], work: Path, seconds: float,
            details: int, every: bool) -> str:
    """The one-screen summary (``every``: each differing file with what explains it)."""
    counts = Counter(f.status for f in files)
    rules = sorted({r for f in files for r in f.rules})
    changed = [f for f in files if f.status in ("differs", "old-only", "new-only")]
    unexplained = [f for f in changed if f.unexplained]
    out = [f"check_outputs: old {sides['old']} vs new {sides['new']} ({seconds:.0f} s; work {work})",
           f"files {len(files)}: identical {counts['identical']}, identical after normalising {counts['normalised']} "
           f"({', '.join(rules) or 'no rule used'}), differ {counts['differs']}, only old {counts['old-only']}, "
           f"only new {counts['new-only']}; unexplained {len(unexplained)}"]
    ran = [o for o in outcomes if o.codes]
    same = [o for o in ran if o.codes["old"] == o.codes["new"]]
    out.append(f"exit codes: {len(same)} of {len(ran)} commands the same"
               + (f" ({len(outcomes) - len(ran)} skipped: corpus missing)" if len(ran) < len(outcomes) else ""))
    for o in ran:
        if o.codes["old"] != o.codes["new"]:
            why = EXIT_KNOWN.get(o.step.name, "UNEXPLAINED")
            out.append(f"  {o.step.name}: {o.codes['old']} -> {o.codes['new']}  {why}")
    by_change: dict[Known, int] = Counter(k for f in changed for k in f.known)
    if by_change:
        out.append("deliberate changes behind the differing files (files):")
        out += [f"  {k.issue:<10} {n:>4}  {k.what}" for k, n in by_change.items()]
    if unexplained:
        out.append(f"UNEXPLAINED differences ({len(unexplained)} files): possible regressions of the floor (#38):")
        for f in unexplained:
            out.append(f"  {f.rel}  ({len(f.unexplained)} of {max(len(f.items), 1)} differences)")
            out += [f"      {item[:150]}" for item in f.unexplained[:details]]
    if every:
        out.append("every differing file:")
        for f in changed:
            issues = ", ".join(sorted({k.issue for k in f.known})) or "-"
            out.append(f"  {f.rel}  [{issues}]{'  UNEXPLAINED' if f.unexplained else ''}")
            out += [f"      {item[:150]}" for item in (f.items or (f.status,))[:details]]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, default=OLD_DEFAULT, help="the old tree's src/ (default %(default)s)")
    parser.add_argument("--new", type=Path, default=REPO / "src", help="the new tree's src/ (default: this checkout)")
    parser.add_argument("--work", type=Path, default=None, help="work folder (default: a new temporary one)")
    parser.add_argument("--quick", action="store_true", help="examples and one corpus item per front door")
    parser.add_argument("--only", default="", help="comma-separated step names (prefixes) to run")
    parser.add_argument("--compare-only", action="store_true", help="compare what --work holds, running nothing")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (always kept with --work)")
    parser.add_argument("--json", type=Path, default=None, help="also write every result as JSON here")
    parser.add_argument("--details", type=int, default=3, help="differences shown per file")
    parser.add_argument("--every", action="store_true", help="list every differing file with what explains it")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds one command may take")
    args = parser.parse_args(argv)
    for side in (args.old, args.new):
        if not (side / "tracegrade" / "__init__.py").is_file():
            parser.error(f"{side} does not hold a tracegrade package")
    if args.compare_only and args.work is None:
        parser.error("--compare-only needs --work")
    started = time.monotonic()
    work = args.work or Path(tempfile.mkdtemp(prefix="check-outputs-"))
    sides = {"old": args.old.resolve(), "new": args.new.resolve()}
    data = work / "kdd-data"
    if not data.is_dir():
        _dataset(data)
    plan = steps(args.quick, data)
    if args.only:
        plan = [s for s in plan if s.name.startswith(tuple(args.only.split(",")))]
    if args.compare_only:
        outcomes = [Outcome(s) for s in plan]
        recorded = work / "exit_codes.json"
        if recorded.is_file():
            codes = json.loads(recorded.read_text())
            for o in outcomes:
                o.codes = codes.get(o.step.name, {})
    else:
        for side in sides:
            shutil.rmtree(work / side, ignore_errors=True)
            shutil.rmtree(work / f"{side}-home", ignore_errors=True)
            (work / side).mkdir(parents=True)
        server, url = start_judge()
        log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731 - a one-line logger
        log(f"shared judge at {url}; {len(plan)} commands per side in {work}")
        try:
            outcomes = run_all(plan, sides, work, url, args.timeout, log)
        finally:
            server.shutdown()
        (work / "exit_codes.json").write_text(json.dumps({o.step.name: o.codes for o in outcomes}))
    files = compare_trees(work / "old", work / "new")
    print(_report(outcomes, files, sides, work, time.monotonic() - started, args.details, args.every))
    if args.json is not None:
        args.json.write_text(json.dumps({
            "old": str(sides["old"]), "new": str(sides["new"]),
            "commands": [{"name": o.step.name, "program": o.step.program, "argv": list(o.step.argv),
                          "exit": o.codes} for o in outcomes],
            "files": [{"path": f.rel, "status": f.status, "normalised": list(f.rules), "differences": list(f.items),
                       "explained_by": [f"{k.issue}: {k.what}" for k in f.known],
                       "unexplained": list(f.unexplained)} for f in files]}, indent=1))
    if args.work is None and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
