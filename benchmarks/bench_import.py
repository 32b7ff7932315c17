"""Benchmark: import generated OpenTelemetry GenAI traces and compare with plain orjson parsing of the same bytes.

Usage: python benchmarks/bench_import.py [--spans 100000] [--calls 5] [--text-bytes 1000] [--dir DIR] [--repeat 3]
       [--baseline-src OLD/src]

The input is one OTLP/JSON file per 1,000 traces, each trace an agent loop as the GenAI conventions record it:
an ``invoke_agent`` span, ``--calls`` ``chat`` spans (system instructions, the conversation so far in
``gen_ai.input.messages`` as JSON text, the answer in ``gen_ai.output.messages``, usage) and a tool span after
every call but the last. ``--text-bytes`` sizes the system instructions and each tool result (1,000 bytes is a
short agent prompt; real ones run to several KB); the assistant's texts are about 70 bytes. Each phase runs in a
fresh child process; the phases alternate and the fastest of ``--repeat`` rounds is kept. Times are CPU seconds of
the child after its imports (wall seconds beside them):

- ``orjson``: ``orjson.loads(path.read_bytes())`` for every file, nothing kept (the floor);
- ``read``: the importer's reading alone (every span of every file into its span records, all kept);
- ``import``: ``import_otel`` end to end: read, map each trace to an ATIF tree, write ``trajectories/`` and
  ``import_report.json``;
- ``baseline``: the same with the ``tracegrade`` found in ``--baseline-src`` (an older checkout's ``src``), so
  that before and after are measured in one run, alternating.

Every import writes into a new folder under ``--out-parent`` (default: the system's temporary folder) and the
folders are removed only after the last round: ext4 without a journal (this project's machines) does not reuse
an inode freed in the last minute, and creating 10,000 files next to 10,000 just deleted cost up to a second of
system time in the inode allocator (``recently_deleted`` under ``perf``), so removing each round's output before
the next one measured the benchmark's own clean-up rather than the import (``--clean-each-round`` does that
again, to compare). User and system seconds are printed apart.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

PHASES = ("orjson", "read", "import", "baseline")
TRACES_PER_FILE = 1000
_FILLER = "The agent looks at what it has and decides on the next action. "


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(trace: str, span: int, parent: int | None, name: str, start: int, attrs: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {"traceId": trace, "spanId": f"{span:016x}", "name": name, "kind": 1,
                             "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 900_000),
                             "attributes": [_attr(k, v) for k, v in attrs.items()], "status": {}}
    if parent is not None:
        found["parentSpanId"] = f"{parent:016x}"
    return found


def make_trace(index: int, calls: int, text_bytes: int) -> list[dict[str, Any]]:
    """The spans of one agent loop: an agent span, ``calls`` chat spans and ``calls - 1`` tool spans."""
    trace = f"{index + 1:032x}"
    base, start = (index + 1) * 1000, 1_767_261_600_000_000_000 + index * 10**9
    spans = [_span(trace, base, None, "invoke_agent bench_agent", start,
                   {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bench_agent"})]
    history: list[dict[str, Any]] = [{"role": "user", "parts": [{"type": "text", "content": f"Task {index}: "
                                                                  f"summarise the logs of service {index}."}]}]
    instructions = orjson.dumps([{"type": "text", "content": _text("You read logs and summarise them. ", text_bytes)}])
    for call in range(calls):
        last = call == calls - 1
        call_id = f"call_{index}_{call}"
        arguments = {"service": index, "page": call}
        part = ({"type": "text", "content": f"Done. {_FILLER * 2}"} if last else
                {"type": "tool_call", "id": call_id, "name": "read_logs", "arguments": arguments})
        answer = {"role": "assistant", "parts": [{"type": "text", "content": _FILLER}, part]}
        spans.append(_span(trace, base + 2 * call + 1, base, "chat bench-model", start + call * 2_000_000, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "bench-model",
            "gen_ai.usage.input_tokens": 400 + 150 * call, "gen_ai.usage.output_tokens": 60,
            "gen_ai.system_instructions": instructions.decode(),
            "gen_ai.input.messages": orjson.dumps(history).decode(),
            "gen_ai.output.messages": orjson.dumps([answer]).decode(),
        }))
        if last:
            break
        result = _text(f"page {call} of the logs: INFO request served in 12 ms; ", text_bytes)
        spans.append(_span(trace, base + 2 * call + 2, base, "execute_tool read_logs", start + call * 2_000_000 + 1,
                           {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_logs",
                            "gen_ai.tool.call.id": call_id, "gen_ai.tool.call.result": result}))
        response = {"type": "tool_call_response", "id": call_id, "response": result}
        history += [answer, {"role": "tool", "parts": [response]}]
    return spans


def _text(seed: str, size: int) -> str:
    return (seed * (size // len(seed) + 1))[:max(size, len(seed))]


def generate(folder: Path, spans: int, calls: int, text_bytes: int) -> None:
    """Write about ``spans`` spans as OTLP/JSON files of ``TRACES_PER_FILE`` traces each."""
    per_trace = 2 * calls
    traces = max(1, spans // per_trace)
    for first in range(0, traces, TRACES_PER_FILE):
        last = min(traces, first + TRACES_PER_FILE)
        batch = [s for i in range(first, last) for s in make_trace(i, calls, text_bytes)]
        request = {"resourceSpans": [{"resource": {"attributes": [_attr("service.name", "bench")]},
                                      "scopeSpans": [{"scope": {"name": "bench"}, "spans": batch}]}]}
        (folder / f"traces-{first // TRACES_PER_FILE:04d}.json").write_bytes(orjson.dumps(request))


def _times() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def run_phase(phase: str, folder: Path, out_parent: Path) -> dict[str, float]:
    """Run one phase in this process: CPU (user, system) and wall seconds, import CPU seconds, peak RSS."""
    paths = sorted(folder.glob("*.json"))
    for path in paths:  # warm the page cache
        path.read_bytes()
    start = time.process_time()
    from tracegrade.atif.importing import import_otel
    from tracegrade.atif.importing._envelopes import read_trace_file

    imports = time.process_time() - start
    out = Path(tempfile.mkdtemp(prefix="bench-import-", dir=out_parent))  # removed by measure(), at the end
    (user, system), wall = _times(), time.perf_counter()
    if phase == "orjson":
        spans = sum(len(orjson.loads(p.read_bytes())["resourceSpans"][0]["scopeSpans"][0]["spans"]) for p in paths)
    elif phase == "read":
        import gc

        gc.disable()  # as import_otel reads
        files = [read_trace_file(p) for p in paths]
        gc.enable()
        spans = sum(len(f.spans) for f in files)
    else:  # import, or baseline (the same call, another tracegrade on the path)
        result = import_otel(paths, out)
        spans = sum(f.records for f in result.report.files)
    wall = time.perf_counter() - wall
    user, system = (now - before for now, before in zip(_times(), (user, system), strict=True))
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cpu": user + system, "user": user, "system": system, "wall": wall, "imports": imports,
            "rss_mib": rss_mib, "spans": spans}


def measure(folder: Path, repeat: int, baseline: Path | None, out_parent: Path | None,
            clean_each_round: bool = False) -> dict[str, dict[str, float]]:
    """Every phase ``repeat`` times in child processes, the fastest round of each kept."""
    best: dict[str, dict[str, float]] = {}
    outputs = Path(tempfile.mkdtemp(prefix="bench-import-outputs-", dir=out_parent))
    try:
        for _ in range(repeat):
            for phase in PHASES:
                if phase == "baseline" and baseline is None:
                    continue
                got = _child(phase, folder, outputs, baseline)
                if clean_each_round:
                    for written in outputs.iterdir():
                        shutil.rmtree(written, ignore_errors=True)
                if phase not in best or got["cpu"] < best[phase]["cpu"]:
                    best[phase] = got
    finally:
        shutil.rmtree(outputs, ignore_errors=True)
    return best


def _child(phase: str, folder: Path, outputs: Path, baseline: Path | None) -> dict[str, float]:
    """One phase in a fresh process (the baseline's with its own ``tracegrade`` first on the path)."""
    env = dict(os.environ)
    if phase == "baseline" and baseline is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(baseline.resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    out = subprocess.run([sys.executable, __file__, "--phase", phase, "--dir", str(folder), "--out-parent",
                          str(outputs)], capture_output=True, text=True, check=True, env=env)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def report(best: dict[str, dict[str, float]], megabytes: float) -> None:
    """Print the table and one JSON line."""
    floor = best["orjson"]["cpu"]
    print(f"{int(best['import']['spans'])} spans, {megabytes:.1f} MB")
    print(f"{'':10}{'CPU s':>8}{'user s':>8}{'sys s':>8}{'wall s':>8}{'x orjson':>10}{'peak RSS MiB':>14}"
          f"{'import s':>10}")
    for phase, row in best.items():
        print(f"{phase:10}{row['cpu']:8.2f}{row['user']:8.2f}{row['system']:8.2f}{row['wall']:8.2f}"
              f"{row['cpu'] / floor:10.2f}{row['rss_mib']:14.0f}{row['imports']:10.2f}")
    print(json.dumps({"spans": int(best["import"]["spans"]), "megabytes": round(megabytes, 1),
                      **{f"{p}_cpu_s": round(best[p]["cpu"], 3) for p in best},
                      **{f"{p}_system_s": round(best[p]["system"], 3) for p in best},
                      **{f"{p}_peak_rss_mib": round(best[p]["rss_mib"]) for p in best},
                      **{f"ratio_{p}_to_orjson": round(best[p]["cpu"] / floor, 2) for p in best if p != "orjson"},
                      "load_average": os.getloadavg()}))


def main() -> None:
    """Generate (or reuse) the traces, measure both phases, print the results."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=5, help="model calls per agent loop (spans = 2 x calls)")
    parser.add_argument("--text-bytes", type=int, default=1000, help="size of the instructions and each tool result")
    parser.add_argument("--dir", type=Path, default=None, help="reuse/generate files here (default: a temp dir)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per phase; the fastest is kept")
    parser.add_argument("--baseline-src", type=Path, default=None,
                        help="also time import_otel of the tracegrade in this folder (an older checkout's src)")
    parser.add_argument("--out-parent", type=Path, default=None,
                        help="where the imports write (default: the system's temporary folder)")
    parser.add_argument("--clean-each-round", action="store_true",
                        help="remove each import's output at once (as before), not after the last round")
    parser.add_argument("--phase", choices=PHASES, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(run_phase(args.phase, args.dir, args.out_parent)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if not list(folder.glob("*.json")):
            generate(folder, args.spans, args.calls, args.text_bytes)
        megabytes = sum(p.stat().st_size for p in folder.glob("*.json")) / 1e6
        started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        print(f"started {started}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        report(measure(folder, args.repeat, args.baseline_src, args.out_parent, args.clean_each_round), megabytes)


if __name__ == "__main__":
    main()
