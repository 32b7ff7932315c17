"""A small ``tracegrade judge`` run loads only what it uses (fixed cost; see benchmarks/bench_startup.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.atif.scripted import judge_rule
from tracegrade.judge.testing import ScriptedJudgeServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "atif"
UNUSED = (
    "pandas",
    "matplotlib",
    "opentelemetry.sdk",
    "tracegrade.judge.local._runner",
    "tracegrade.suites.running._engine",
    "evalhub.client",
    "httpx",
)


def test_a_judge_run_imports_no_unused_library(tmp_path: Path) -> None:
    with ScriptedJudgeServer(judge_rule()) as server:
        argv = [
            "judge",
            str(EXAMPLES),
            "--judge-url",
            server.base_url,
            "--judge-model",
            "scripted",
            "--no-cache",
            "--quiet",
            "--scoring-mode",
            "benchmark",
            "--benchmark-name",
            "terminal-bench",
            "-o",
            str(tmp_path),
        ]
        code = (
            "import sys\n"
            "from tracegrade.cli._app import app, run_app\n"
            f"code = run_app(app, {argv!r})\n"
            f"print(code, [name for name in {UNUSED!r} if name in sys.modules])\n"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        env["TRACEGRADE_CACHE_DIR"] = str(tmp_path / "cache")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[-2] == "0 []"
    assert (tmp_path / "manifest.json").is_file()
