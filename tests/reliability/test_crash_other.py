"""Crash tests for the other long-running commands: ``tracegrade suite run`` and ``dabench eval-v2``."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.crash import KILL_AFTER_WRITES, kill_when, record, spawn
from tracegrade.errors import InputError
from tracegrade.runs import read_manifest

CASES = 40
CONCURRENCY = 4
DABENCH = Path(__file__).resolve().parents[2] / "examples" / "dabench"
_TIMING = {"elapsed_seconds", "started_at", "finished_at", "created_at", "duration_seconds", "wall_seconds", "latency"}


def suite_inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    log = tmp_path / "calls.log"
    sut = tmp_path / "sut.py"
    sut.write_text("import json, sys, time\nrequest = json.load(sys.stdin)\ntime.sleep(0.05)\n"
                   f"open({str(log)!r}, 'a').write(request['case_id'] + '\\n')\n"
                   "print(json.dumps({'v': request['payload'] % 7}))\n")
    cases = [{"id": f"c{i:02d}", "input": {"payload": i},
              "expectations": [{"name": "v", "path": "/v", "expected": i % 5}]} for i in range(CASES)]
    dataset = tmp_path / "d.json"
    dataset.write_text(json.dumps({"name": "d", "revision": "1", "suites": [{"name": "s", "workflow": "w",
                                                                             "cases": cases}]}))
    return dataset, sut, log


def suite_argv(dataset: Path, sut: Path, report: Path) -> list[str]:
    return [sys.executable, "-c", "from tracegrade.cli import main; main()", "suite", "run", str(dataset),
            "--target-cmd", f"{sys.executable} {sut}", "-o", str(report), "--concurrency-limit", str(CONCURRENCY)]


def without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in _TIMING}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def calls(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


@pytest.mark.slow
def test_suite_run_killed_mid_run_resumes_to_the_same_report(tmp_path: Path) -> None:
    dataset, sut, log = suite_inputs(tmp_path)
    assert subprocess.run(suite_argv(dataset, sut, tmp_path / "ref.json"), capture_output=True).returncode == 1
    log.unlink()
    argv = suite_argv(dataset, sut, tmp_path / "r.json")
    assert kill_when(spawn(argv), lambda: len(calls(log)) >= CASES // 2) == -signal.SIGKILL
    before = len(calls(log))
    assert subprocess.run(argv, capture_output=True).returncode == 1
    done = calls(log)
    repaid = len(done) - CASES
    assert sorted(set(done)) == [f"c{i:02d}" for i in range(CASES)]
    assert 0 <= repaid <= CONCURRENCY  # only the attempts in flight at the kill ran twice
    assert without_timing(json.loads((tmp_path / "r.json").read_text())) == without_timing(
        json.loads((tmp_path / "ref.json").read_text()))
    record("suite_SIGKILL", total_calls=CASES, calls_before_kill=before, repaid=repaid, concurrency=CONCURRENCY)


def dabench_argv(out: Path) -> list[str]:
    return ["eval-v2", "demo-run", "--runs-root", str(DABENCH / "runs"), "--data-root", str(DABENCH / "data"),
            "--mode", "verbose", "-o", str(out), "--quiet"]


def hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "manifest.json"}


@pytest.mark.slow
@pytest.mark.parametrize("writes", [3])
def test_dabench_eval_v2_killed_mid_write_is_refused_then_rebuilt_identically(tmp_path: Path, writes: int) -> None:
    run = [sys.executable, "-c", "from tracegrade.cli import dabench_main; dabench_main()"]
    for name in ("a", "b"):
        assert subprocess.run([*run, *dabench_argv(tmp_path / name)], capture_output=True).returncode == 0
    first, second = hashes(tmp_path / "a"), hashes(tmp_path / "b")
    stable = {name for name in first if first[name] == second.get(name)}
    dying = [sys.executable, "-c", KILL_AFTER_WRITES, *dabench_argv(tmp_path / "b")]
    env = {**os.environ, "TG_APP": "dabench", "TG_KILL_AFTER_WRITES": str(writes)}
    assert subprocess.run(dying, capture_output=True, env=env).returncode == -signal.SIGKILL
    with pytest.raises(InputError):
        read_manifest(tmp_path / "b")
    assert subprocess.run([*run, *dabench_argv(tmp_path / "b")], capture_output=True).returncode == 0
    assert read_manifest(tmp_path / "b")["status"] == "completed"
    rebuilt = hashes(tmp_path / "b")
    assert len(stable) >= len(first) // 2
    assert {name: rebuilt[name] for name in stable} == {name: first[name] for name in stable}
