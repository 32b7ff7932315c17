"""The scripted judge in its own process, shared by the judge benchmarks (imported from the scripts' folder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def start_server(latency: float = 0.0, *, env: Mapping[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """Start the scripted judge with the tests' fixed verdicts (``tests.atif.scripted.judge_rule``: every step
    0.75) answering after ``latency`` s; returns it and its URL."""
    command = [sys.executable, "-m", "tracegrade.judge.testing", "--rule", "tests.atif.scripted:judge_rule",
               "--latency", str(latency)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO,
                               env={**os.environ, **(env or {})})
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith("READY "):
        process.kill()
        raise SystemExit(f"the scripted judge did not start: {line!r}")
    return process, line.removeprefix("READY ")


def served(url: str) -> int:
    """Requests the scripted judge has answered."""
    with urllib.request.urlopen(f"{url}/_scripted/count", timeout=10) as response:
        return int(json.loads(response.read())["count"])
