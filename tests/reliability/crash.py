"""Helpers for crash tests: run a CLI in a child process, kill it, compare outcomes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from tests.atif.scripted import trajectory, write

TRACEGRADE = str(Path(sys.executable).parent / "tracegrade")

KILL_AFTER_WRITES = """
import os, sys
import tracegrade.runs._folder as folder
limit = int(os.environ["TG_KILL_AFTER_WRITES"])
real = folder.write_atomic
done = []
def dying(path, data, **options):
    if len(done) == limit:
        real(path, data[: len(data) // 2], **options)  # a half-written file...
        os.kill(os.getpid(), 9)                          # ...then SIGKILL in the middle of the folder
    done.append(path)
    real(path, data, **options)
folder.write_atomic = dying
real_chunks = folder.RunFolder.write_chunks
def dying_chunks(self, name, chunks):  # files written in pieces count as writes too
    if len(done) == limit:
        dying(self.path / name, b"".join(bytes(chunk) for chunk in chunks))
    done.append(name)
    return real_chunks(self, name, chunks)
folder.RunFolder.write_chunks = dying_chunks
from tracegrade.cli._app import app, dabench_app, run_app
sys.exit(run_app(dabench_app if os.environ.get("TG_APP") == "dabench" else app, sys.argv[1:]))
"""


def record(name: str, **figures: Any) -> None:
    """Append measured figures to ``$TRACEGRADE_FIGURES`` (used to write docs/reliability.md)."""
    target = os.environ.get("TRACEGRADE_FIGURES")
    if target:
        with open(target, "ab") as handle:
            handle.write(orjson.dumps({"test": name, **figures}) + b"\n")


def make_inputs(folder: Path, trajectories: int, steps: int) -> Path:
    """``trajectories`` files of ``steps`` steps each, with deterministic scripted scores (some low)."""
    for t in range(trajectories):
        messages = ["task"] + [f"step {t}.{s} SCORE:{(0.2 if (t + s) % 5 == 0 else 0.9)}" for s in range(1, steps)]
        write(folder / f"t{t:03d}.json", trajectory(*messages))
    return folder


def outcome(run: Path) -> dict[str, Any]:
    """What a run decided (scores, statuses, codes, categories), without job-specific fields."""
    results = orjson.loads((run / "evaluation_results.json").read_bytes())
    steps = sorted(
        (n["node_id"], s["index"], s["status"], s["score"], s["error_code"], s["category"], s["criterion_scores"])
        for n in results["nodes"] for s in n["steps"]
    )
    summary = {k: v for k, v in results["summary"].items() if k not in {"judge", "job_id"}}
    return {"steps": steps, "summary": summary}


def spawn(argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})


def kill_when(process: subprocess.Popen[bytes], ready: Callable[[], bool], signum: int = signal.SIGKILL,
              timeout: float = 60) -> int:
    """Send ``signum`` once ``ready()`` holds; returns the exit status."""
    deadline = time.monotonic() + timeout
    while not ready() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    assert process.poll() is None, "the command finished before it could be interrupted"
    process.send_signal(signum)
    process.communicate(timeout=timeout)
    return process.returncode
