"""Items 6 and 7 of issue 14: kill -9 or SIGTERM ``tracegrade judge``, rerun, same results, few calls re-paid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.atif.scripted import marker_rule
from tests.reliability.crash import KILL_AFTER_WRITES, TRACEGRADE, kill_when, make_inputs, outcome, record, spawn
from tracegrade.errors import InputError
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.runs import read_manifest

CONCURRENCY = 8


@pytest.fixture
def server() -> Iterator[ScriptedJudgeServer]:
    with ScriptedJudgeServer(marker_rule, latency=0.01, record_bodies=False) as running:
        yield running


def command(server: ScriptedJudgeServer, inputs: Path, run: Path, cache: Path) -> list[str]:
    return [TRACEGRADE, "judge", str(inputs), "--judge-url", server.base_url, "--judge-model", "scripted",
            "--concurrency-limit", str(CONCURRENCY), "--scoring-mode", "benchmark", "--benchmark-name",
            "terminal-bench", "--partial-result-policy", "skip_failed_trajectory", "--quiet",
            "-o", str(run), "--cache", str(cache)]


def reference(server: ScriptedJudgeServer, inputs: Path, tmp_path: Path) -> tuple[dict[str, object], int]:
    before = server.count
    done = subprocess.run(command(server, inputs, tmp_path / "ref", tmp_path / "ref.sqlite3"), check=False,
                          capture_output=True)
    assert done.returncode == 0, done.stderr
    return outcome(tmp_path / "ref"), server.count - before


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_run_resumes_to_identical_results_repaying_only_calls_in_flight(
        server: ScriptedJudgeServer, tmp_path: Path, signum: signal.Signals) -> None:
    inputs = make_inputs(tmp_path / "in", trajectories=30, steps=5)
    expected, total_calls = reference(server, inputs, tmp_path)
    argv = command(server, inputs, tmp_path / "run", tmp_path / "cache.sqlite3")
    start = server.count
    status = kill_when(spawn(argv), lambda: server.count - start >= total_calls // 3, signum)
    first_calls = server.count - start
    assert status == (-9 if signum == signal.SIGKILL else 130)
    if signum == signal.SIGKILL:
        with pytest.raises(InputError):
            read_manifest(tmp_path / "run")
    else:  # SIGTERM is a clean stop: finished results are written and marked interrupted
        assert read_manifest(tmp_path / "run")["status"] == "interrupted"
    again = subprocess.run(argv, check=False, capture_output=True)
    assert again.returncode == 0, again.stderr
    repaid = first_calls + (server.count - start - first_calls) - total_calls
    assert outcome(tmp_path / "run") == expected
    assert read_manifest(tmp_path / "run")["status"] == "completed"
    assert 0 <= repaid <= CONCURRENCY
    record(f"judge_{signum.name}", total_calls=total_calls, calls_before_kill=first_calls, repaid=repaid,
           concurrency=CONCURRENCY)


@pytest.mark.slow
@pytest.mark.parametrize("writes", [0, 3])
def test_a_run_killed_while_writing_its_folder_is_refused_then_rebuilt_without_judge_calls(
        server: ScriptedJudgeServer, tmp_path: Path, writes: int) -> None:
    inputs = make_inputs(tmp_path / "in", trajectories=6, steps=4)
    argv = command(server, inputs, tmp_path / "run", tmp_path / "cache.sqlite3")
    assert subprocess.run(argv, check=False, capture_output=True).returncode == 0  # a complete earlier run...
    first = outcome(tmp_path / "run")
    (tmp_path / "in" / "t000.json").write_bytes((tmp_path / "in" / "t002.json").read_bytes())  # ...new inputs
    dying = [sys.executable, "-c", KILL_AFTER_WRITES, *argv[1:]]
    env = {**os.environ, "TG_KILL_AFTER_WRITES": str(writes)}
    done = subprocess.run(dying, check=False, capture_output=True, env=env)
    assert done.returncode == -9
    with pytest.raises(InputError) as caught:  # a mix of two runs' files is never taken for a complete folder
        read_manifest(tmp_path / "run")
    assert caught.value.code == "incomplete_run"
    before = server.count
    assert subprocess.run(argv, check=False, capture_output=True).returncode == 0
    assert server.count == before  # every answer of the killed run was already in the cache
    assert read_manifest(tmp_path / "run")["status"] == "completed"
    rebuilt = outcome(tmp_path / "run")
    assert rebuilt != first  # the new inputs' results, not the earlier run's
    assert [step[2] for step in rebuilt["steps"]] == ["scored"] * 24
    record(f"judge_kill_mid_write_{writes}", repaid=server.count - before)
